"""Benchmarks and training scripts: measure the product, never shipped inside the apps."""
