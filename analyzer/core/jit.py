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

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

import numba
import numpy as np

F = TypeVar("F", bound=Callable[..., Any])

as_int64 = cast(Callable[[Any], int], np.int64)
"""``np.int64``, typed for mypy as a function returning ``int``. In a kernel, ``callee(as_int64(0))``
passes the constant as an int64, where ``callee(0)`` would pass a literal: numba compiles a function
called with a literal constant once more for each constant it gets.

>>> as_int64(3) == 3, type(as_int64(3)).__name__
(True, 'int64')
"""

as_bool = cast(Callable[[Any], bool], np.bool_)
"""``np.bool_``, typed for mypy as a function returning ``bool``: ``callee(as_bool(False))`` passes a
plain bool where ``callee(False)`` would pass a literal (one more compiled version of ``callee``).

>>> bool(as_bool(False)), type(as_bool(True)).__name__
(False, 'bool')
"""


def njit(func: F) -> F:
    """Compile ``func`` with numba (nopython, cached); the decorated value keeps ``func``'s type."""
    return cast(F, numba.njit(cache=True)(func))


@contextmanager
def compile_events(callback: Callable[[str, bool], None]) -> Iterator[None]:
    """While inside, call ``callback(name, started)`` for each function numba compiles now (not
    those it loads from its on-disk cache): ``started`` true when it begins, false when it ends;
    ``name`` is ``module.function``. A command uses it to say that a first run compiles.

    >>> seen: list[tuple[str, bool]] = []
    >>> with compile_events(lambda name, started: seen.append((name, started))):
    ...     _ = numba.njit(lambda x: x + 1)(1)
    >>> [s for _, s in seen]
    [True, False]
    """
    from numba.core import event

    class _Listener(event.Listener):
        def on_start(self, ev: Any) -> None:
            callback(_dispatcher_name(ev), True)

        def on_end(self, ev: Any) -> None:
            callback(_dispatcher_name(ev), False)

    listener = _Listener()
    event.register("numba:compile", listener)  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)  # type: ignore[no-untyped-call]


def _dispatcher_name(ev: Any) -> str:
    data = ev.data if isinstance(ev.data, dict) else {}
    func = getattr(data.get("dispatcher"), "py_func", None)
    if func is None:
        return "?"
    return f"{getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', '?')}"
