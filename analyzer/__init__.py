"""bgreview: review backgammon matches with our own rules engine and evaluator."""

from __future__ import annotations

from analyzer.core.position import Position

__version__ = "0.1.0"
ENGINE_NAME = "bgreview"

__all__ = ["Position", "__version__"]
