"""The session's vector index (FAISS) over hypothesis embeddings (seed 004 "FAISS Vector Store")."""
