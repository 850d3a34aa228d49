"""The embedded model (SmolLM2 through llama-cpp-python, a LiteLLM custom provider) and the JSON
schema bounds that keep its constrained output short.
"""
