"""The evaluators of the commands that evaluate, and their depth's check.

Only those commands import this module (importing the engines costs a fresh process about half a second
of CPU: numba, numpy and the kernels' caches; ``show``, ``moves``, ``convert``, ``replay``, ``report`` and
``profile`` do not pay it).
"""

from __future__ import annotations

import sys

from analyzer.analysis.variants import NoEvaluatorError, load_variant_engine
from analyzer.cli.common import NOTICE, NOTICE_WANTED, CompileNotice, fail, settings_error
from analyzer.core.errors import SettingsError
from analyzer.core.jit import compile_events
from analyzer.core.variants import DEFAULT_VARIANT
from analyzer.eval.capabilities import engine_capabilities
from analyzer.eval.engine import Engine
from analyzer.eval.variants.engine import VariantEngine, engine_for

__all__ = ["check_ply", "notice_compiling", "standard_engine", "variant_engine"]


def notice_compiling() -> None:
    """Install, once per process, the :class:`~analyzer.cli.common.CompileNotice` on stderr (the
    commands that evaluate call it before the engine's first use;
    :func:`~analyzer.cli.common.finish_compiling` closes it)."""
    if NOTICE or not NOTICE_WANTED[0]:
        return
    notice = CompileNotice(lambda line: print(line, file=sys.stderr, flush=True))
    events = compile_events(notice)
    events.__enter__()
    NOTICE.extend((notice, events))


def standard_engine() -> Engine:
    """The standard evaluator over the shipped nets; exits with code 2 when they are missing."""
    notice_compiling()
    try:
        return Engine()
    except FileNotFoundError as e:
        fail(f"evaluator weights not found: {e.filename}")


def variant_engine(variant: str) -> VariantEngine:
    """The shared evaluator of a cubeless variant (Dutch, Mahbusa) over its shipped net; exits with
    code 2 when there is none (:func:`analyzer.analysis.variants.load_variant_engine` says why)."""
    notice_compiling()
    try:
        load_variant_engine(variant)  # the engine and its nets are there, or why not
    except NoEvaluatorError as e:
        fail(str(e))
    return engine_for(variant)  # the one it loaded (shared)


def check_ply(ply: int, variant: str = DEFAULT_VARIANT) -> None:
    """Exit with code 2 unless ``0 <= ply <=`` the deepest search of the engine of ``variant``
    (:meth:`~analyzer.eval.capabilities.EngineCapabilities.check_ply`: the check of a review's settings).

    >>> import typer
    >>> check_ply(2, "dutch")
    >>> try:
    ...     check_ply(3, "mahbusa")
    ... except typer.Exit as e:
    ...     print(e.exit_code)
    2
    """
    try:
        engine_capabilities(variant).check_ply(ply)
    except SettingsError as e:
        settings_error(e)
