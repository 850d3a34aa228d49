"""The session's vector index (FAISS) over hypothesis embeddings (design.md#dedup)."""
