"""Maintenance: decay, garbage collection, the dream, links, similarity and the memory graph."""
