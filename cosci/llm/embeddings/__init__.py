"""Embedders: the chain (hosted, the bundled WordLlama model, hashing) and the offline models.
"""
