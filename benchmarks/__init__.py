"""Reproducible performance measurements; ``python -m benchmarks`` runs them all."""
