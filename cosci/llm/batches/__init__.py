"""Provider batches: the batch side of the gateway over Anthropic Message Batches (SDK).
"""
