"""Recall: the column store, the lanes (BM25, n-grams, vectors, links), fusion, relevance and the context block."""
