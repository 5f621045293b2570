"""Typer's parameter coercion for plain values without building pydantic validators (start-up).

Typer (0.2x) coerces every command-line value through a pydantic ``TypeAdapter`` built for each
parameter on first use: importing pydantic and building the adapters costs a fresh process about a
tenth of a second, more than the parsing of a whole command line needs. :func:`plain_coercion`
lets the values the commands take (text, flags, whole numbers, decimals, choices of an enum, paths) through
a direct conversion that gives what typer's adapter gives for them, and hands every other value
(a malformed number, an unknown choice, a missing path, a constrained or custom type) to typer's own
coercion, so that its results and its error messages are the ones typer gives.

>>> from pathlib import Path
>>> plain_value(int, "-12"), plain_value(float, "0.5"), plain_value(float, 2), plain_value(Path, "a/b")
(-12, 0.5, 2.0, PosixPath('a/b'))
>>> plain_value(int, "1e3") is NOT_PLAIN, plain_value(int, True) is NOT_PLAIN
(True, True)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

try:  # typer 0.2x: coercion through pydantic, lazily per parameter
    from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
    from typer._param_types import coerce_cli_choice, coerce_cli_path
    from typer.core import _TyperParameter

    TYPER_ADAPTERS = True
except ImportError:  # pragma: no cover - a typer that coerces through click: nothing to spare
    TYPER_ADAPTERS = False

NOT_PLAIN: Any = object()
"""What :func:`plain_value` returns for a value it leaves to typer."""

_INT = re.compile(r"-?[0-9]{1,18}")
_DECIMAL = re.compile(r"-?[0-9]{1,18}(\.[0-9]{1,18})?")


def plain_value(annotation: Any, value: Any) -> Any:
    """``value`` (a command-line string or a default) as typer's adapter for ``annotation`` converts it,
    for text, flags, whole numbers, decimals and paths; :data:`NOT_PLAIN` for anything else (enum choices
    go through typer's own matching in :class:`PlainParam`).

    >>> plain_value(str, "x"), plain_value(int, 3), plain_value(int, "02"), plain_value(float, "-1")
    ('x', 3, 2, -1.0)
    >>> plain_value(int, "3.0") is NOT_PLAIN, plain_value(bytes, b"x") is NOT_PLAIN
    (True, True)
    """
    if annotation is str:
        return value if type(value) is str else NOT_PLAIN
    if annotation is bool:
        return value if type(value) is bool else NOT_PLAIN
    if annotation is int:
        if type(value) is int:
            return value
        return int(value) if type(value) is str and _INT.fullmatch(value) else NOT_PLAIN
    if annotation is float:
        if type(value) in (int, float):
            return float(value)
        return float(value) if type(value) is str and _DECIMAL.fullmatch(value) else NOT_PLAIN
    if annotation is Path:
        if isinstance(value, Path):
            return value
        return Path(value) if type(value) is str else NOT_PLAIN
    return NOT_PLAIN


if TYPER_ADAPTERS:

    @dataclass(frozen=True)
    class PlainParam(RuntimeParam):
        """A parameter's coercion: plain values directly, anything else by typer's own coercion of
        ``descriptor`` (built only then)."""

        descriptor: TypeDescriptor

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            info = self.parameter_info
            try:
                if isinstance(self.annotation, type) and issubclass(self.annotation, Enum):
                    return coerce_cli_choice(value, choices=list(self.annotation),
                                             case_sensitive=info.case_sensitive, ctx=ctx)
                result = plain_value(self.annotation, value)
                if result is not NOT_PLAIN and self.annotation is Path:
                    result = coerce_cli_path(result, info, path_type=Path, param=param, ctx=ctx)
            except Exception:  # typer's coercion says what is wrong, in its words
                result = NOT_PLAIN
            if result is NOT_PLAIN:
                return build_runtime_param(self.descriptor)._coerce_value(value, param=param, ctx=ctx)
            return result

    def plain_param(descriptor: TypeDescriptor) -> RuntimeParam | None:
        """The coercion of a parameter of one of the plain types without constraints, or None."""
        info = descriptor.parameter_info
        annotation = descriptor.annotation
        plain = annotation in (str, bool, int, float, Path) or (isinstance(annotation, type)
                                                                and issubclass(annotation, Enum))
        if (not plain or descriptor.file_annotation is not None or info.parser is not None
                or info.min is not None or info.max is not None or getattr(info, "path_type", None) is not None):
            return None
        return PlainParam(parameter_info=info, annotation=annotation, descriptor=descriptor)

    def _runtime_param(self: _TyperParameter) -> RuntimeParam:
        if self._runtime_param is None:
            self._runtime_param = plain_param(self.type_descriptor) or build_runtime_param(self.type_descriptor)
        return self._runtime_param


@contextmanager
def plain_coercion() -> Iterator[None]:
    """Within the block, typer's parameters coerce plain values without pydantic (see the module's
    text); nothing changes with a typer that does not build pydantic adapters."""
    if not TYPER_ADAPTERS:  # pragma: no cover
        yield
        return
    before = _TyperParameter.get_runtime_param
    _TyperParameter.get_runtime_param = _runtime_param  # type: ignore[method-assign]
    try:
        yield
    finally:
        _TyperParameter.get_runtime_param = before  # type: ignore[method-assign]
