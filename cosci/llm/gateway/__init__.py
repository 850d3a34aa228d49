"""The LiteLLM adapter of the port: the gateway (request, cost, retries, degradation, budget
admission, transcripts), model routing, custom providers and prices, hosted embedding calls,
and the pre-flight cost estimate.
"""
