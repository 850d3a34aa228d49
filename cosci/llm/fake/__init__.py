"""The scripted fake: a LiteLLM custom provider, its data, its answers and its batch endpoint.
"""
