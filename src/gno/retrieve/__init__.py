"""Retrieval: BM25, vectors, fusion, snippets."""
