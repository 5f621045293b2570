"""The version of bgreview and the name it records as the engine of an analysis.

A leaf module (it imports nothing), so that every layer may read the version without importing the
package root, whose ``__getattr__`` is the public API's facade over all the layers.

>>> ENGINE_NAME, __version__ == "0.1.0"
('bgreview', True)
"""

from __future__ import annotations

__all__ = ["ENGINE_NAME", "__version__"]

__version__ = "0.1.0"
ENGINE_NAME = "bgreview"
