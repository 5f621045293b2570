"""Bit operations for the compiled kernels, each one LLVM instruction (numba has no public ones).

:func:`popcount`, :func:`lowest_bit` and :func:`highest_bit` read the 64-bit masks of the input
encoder (:mod:`analyzer.eval.features`: bit ``p`` is point ``p``); :func:`f64_from_bits` builds the
powers of two of the vectorised exponential (:mod:`analyzer.eval.net`). They are inlined where they
are called, so a loop using them can still be vectorised.

>>> from numba import njit
>>> @njit
... def demo(m):
...     return popcount(m), lowest_bit(m), highest_bit(m), f64_from_bits((1023 + 3) << 52)
>>> demo(0b1011000)
(3, 3, 6, 8.0)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from llvmlite import ir  # type: ignore[import-untyped]
from numba import types
from numba.extending import intrinsic


def _count(name: str, x: Any) -> Any:
    """Signature and code generator of the LLVM bit-counting intrinsic ``name`` (``llvm.ctpop``,
    ``llvm.cttz``, ``llvm.ctlz``) on an int64; ``highest`` turns a count of leading zeros into the
    index of the highest set bit."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ty = ir.IntType(64)
        if name == "llvm.ctpop":
            return builder.call(builder.module.declare_intrinsic(name, [ty]), [args[0]])
        fn = builder.module.declare_intrinsic(name, [ty, ir.IntType(1)])
        n = builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])
        if name == "llvm.ctlz":
            return builder.sub(ir.Constant(ty, 63), n)
        return n

    return types.int64(types.int64), codegen


def _popcount(typingctx: Any, x: Any) -> Any:
    return _count("llvm.ctpop", x)


popcount = cast(Callable[[int], int], intrinsic(_popcount))
"""The number of set bits of an int64."""


def _lowest_bit(typingctx: Any, x: Any) -> Any:
    return _count("llvm.cttz", x)


lowest_bit = cast(Callable[[int], int], intrinsic(_lowest_bit))
"""The index of the lowest set bit of an int64 (64 for 0)."""


def _highest_bit(typingctx: Any, x: Any) -> Any:
    return _count("llvm.ctlz", x)


highest_bit = cast(Callable[[int], int], intrinsic(_highest_bit))
"""The index of the highest set bit of an int64 (-1 for 0)."""


def _f64_from_bits(typingctx: Any, x: Any) -> Any:
    if not isinstance(x, types.Integer):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


f64_from_bits = cast(Callable[[int], float], intrinsic(_f64_from_bits))
"""The float64 whose IEEE 754 bits are the int64 ``x`` (``(n + 1023) << 52`` is 2.0 ** n for a whole ``n``
in -1022..1023)."""
