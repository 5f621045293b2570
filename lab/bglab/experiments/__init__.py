"""Drivers of training experiments, run as ``python -m bglab.experiments.NAME`` (docs/training.md)."""
