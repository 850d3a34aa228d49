"""The LLM port agents depend on: call specs, routes, responses (``types``) and record calls
over the port (``structured``). No framework is imported here.
"""
