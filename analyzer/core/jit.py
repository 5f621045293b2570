"""A typed front for numba's ``njit``: mypy sees the plain Python signature of a compiled function.

The cube and rollout kernels (:mod:`analyzer.eval._cube_kernel`, :mod:`analyzer.eval._rollout_kernel`) are
decorated with :func:`njit` (``cache=True``, no Python objects), so their type hints stay checkable and the
compiled code is cached between runs. The older kernels (the move generator, the features, nets, bear-off
databases and search of :mod:`analyzer.eval`, the variant evaluators, training and replay) call numba's
``njit(cache=True)`` directly and are typed by hand where Python calls them.

>>> from analyzer.rules.kernel import full_hash
>>> import numpy as np
>>> int(full_hash(np.zeros(64, np.int8))) > 0
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

F = TypeVar("F", bound=Callable[..., Any])


def njit(func: F) -> F:
    """Compile ``func`` with numba (nopython, cached); the decorated value keeps ``func``'s type."""
    return cast(F, numba.njit(cache=True)(func))
