"""Helpers shared by the command modules: error reporting, output formats and the evaluators."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, NoReturn

import typer
from rich.console import Console

from analyzer.core.errors import InputError, SettingsError, shorten
from analyzer.core.variants import variant_names


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


MESSAGE_SHOWN = 1000
"""The longest error message printed: one that echoes a 100 kB input is cut there."""


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr (cut to :data:`MESSAGE_SHOWN` characters) and exit with ``code``."""
    typer.echo(f"error: {shorten(message, MESSAGE_SHOWN)}", err=True)
    raise typer.Exit(code)


def error_console() -> Console:
    """A console on stderr that prints text as it is: no markup, no emoji codes (``:100:`` in
    ``file:100:`` or a player called ``:cool:`` stay as written), no highlighting."""
    return Console(stderr=True, markup=False, emoji=False, highlight=False)


def input_error(err: InputError) -> NoReturn:
    fail(str(err), 2)


def settings_error(err: SettingsError, options: Mapping[str, str] | None = None) -> NoReturn:
    """Exit with code 2 and the error of a setting, named by its command-line option: ``options`` maps
    a setting to its option where the names differ; another is ``--`` and its name with dashes.

    >>> try:
    ...     settings_error(SettingsError("is a chance: 0 to 1", setting="confirm.cube_doubt"))
    ... except typer.Exit as e:
    ...     print(e.exit_code)
    2
    """
    option = (options or {}).get(err.setting, "--" + err.setting.replace(".", "-").replace("_", "-"))
    fail(f"{option} {err.detail}")


def position_argument(text: str) -> str:
    """The position argument of a command as given, or, when it names an eXtreme Gammon position
    file (``.xgp``; an ``.xg`` match file gives its last position), the XGID of that position.
    Raises :class:`~analyzer.core.errors.InputError` for a file that cannot be read as one.

    >>> position_argument("4HPwATDgc/ABMA")
    '4HPwATDgc/ABMA'
    >>> position_argument("tests/data/xg/position.xgp")
    'XGID=ab----E-C---eD---c-d----B-:1:1:-1:42:1:2:0:5:10'
    """
    if text.lower().endswith((".xgp", ".xg")) and os.path.lexists(text):  # unreadable, a FIFO: one error line
        from analyzer.formats.xg import xgp_xgid  # here: 0.12 s of CPU a process that reads no .xg file spares

        return str(xgp_xgid(text))
    return text


def stdout_write(text: str) -> None:
    sys.stdout.write(text)
    if not text.endswith("\n"):
        sys.stdout.write("\n")


FIRST_COMPILE_S = 80
"""About how long a fresh install's first review compiles the engine on two cores (seconds). The README's
first command with an empty cache on a quiet machine (2026-12-07, main 6c2584e, ``python bench/cold_start.py
--cold``, load 1.4-1.7, two runs) took 117.8 and 120.2 s wall (150 and 156 CPU-seconds), and its notice said
"compiled 118 functions in 78 s" and "in 75 s" (all in the command's process, one at a time); the same
command cached takes 35-42 s. Before:
136 s wall and "134 functions in 95 s" (cd102af: three kernels for deep evaluations, extra versions of
callees for literal and unsigned arguments), 193 s (2da5431: the rollout workers compiled their own copies
of the rollout kernel)."""


class CompileNotice:
    """Says on stderr, in the command-line process, that a first run compiles the engine: one line
    when numba starts compiling (``compiling the engine once, about N s``), a line of progress at
    most every ``every`` seconds while it goes on (the time since the first line) and one when the
    command ends, with how many of our functions were compiled and the time spent compiling them
    (from the start of a compile to its end, a function's callees compiled within; numba's helpers
    compiled for them are not counted); nothing when every kernel comes from numba's cache.
    ``write`` gets each line, ``clock`` tells the time.

    >>> lines: list[str] = []
    >>> t = iter([0.0, 1.0, 3.0, 4.0, 20.0, 21.0])
    >>> notice = CompileNotice(lines.append, clock=lambda: next(t))
    >>> for name, started in (("analyzer.a", True), ("analyzer.c", True), ("analyzer.c", False),
    ...                       ("analyzer.a", False), ("numba.impl", True), ("analyzer.b", True),
    ...                       ("analyzer.b", False)):
    ...     notice(name, started)
    >>> notice.finish()
    >>> print("\\n".join(lines))
    bgreview: compiling the engine once, about 80 s on two cores (later runs load it from the cache)
    bgreview: still compiling: 2 functions done in 20 s (now b)
    bgreview: compiled 3 functions in 5 s; later runs load them from the cache
    """

    def __init__(self, write: Callable[[str], None], *, every: float = 15.0,
                 clock: Callable[[], float] | None = None) -> None:
        self.pid = os.getpid()  # a forked worker (the rollouts' pool) inherits the listener: it stays silent
        self.lock = threading.Lock()  # the engine's threads may compile at the same time
        self.write = write
        self.every = every
        self.clock = clock or time.monotonic
        self.started: float | None = None
        self.last = 0.0
        self.done = 0
        self.depth = 0  # compiles under way: a function's callees compile within it
        self.since = 0.0  # when the outermost one began
        self.spent = 0.0  # time spent compiling, the outermost compiles summed

    def __call__(self, name: str, started: bool) -> None:
        if not name.startswith("analyzer.") or os.getpid() != self.pid:  # numba's helpers: counted with ours
            return
        with self.lock:
            self._event(name, started)

    def _event(self, name: str, started: bool) -> None:
        now = self.clock()
        if self.started is None:
            self.started = self.last = now
            self.write(f"bgreview: compiling the engine once, about {FIRST_COMPILE_S} s on two cores "
                       "(later runs load it from the cache)")
        if not started:
            self.done += 1
            self.depth = max(0, self.depth - 1)
            if self.depth == 0:
                self.spent += now - self.since
            return
        if self.depth == 0:
            self.since = now
        self.depth += 1
        if now - self.last >= self.every:
            self.last = now
            self.write(f"bgreview: still compiling: {self.done} function{'s' if self.done != 1 else ''} done in "
                       f"{now - self.started:.0f} s (now {name.rsplit('.', 1)[-1]})")

    def finish(self) -> None:
        """The closing line, when anything was compiled."""
        if self.started is not None and os.getpid() == self.pid:
            self.write(f"bgreview: compiled {self.done} function{'s' if self.done != 1 else ''} in "
                       f"{self.spent:.0f} s; later runs load them from the cache")


NOTICE: list[Any] = []
"""The process's compile notice and its listener, once installed (:func:`analyzer.cli.engines.notice_compiling`)."""
NOTICE_WANTED = [False]
"""Set by :func:`analyzer.cli.main` when it runs as the process: only then are the notices printed."""


def finish_compiling() -> None:
    """Close the compile notice (its last line) and stop listening."""
    if NOTICE:
        notice, events = NOTICE
        NOTICE.clear()
        events.__exit__(None, None, None)
        notice.finish()


def variant_help(template: str) -> str:
    """A ``--variant`` help text with the registered names in place of ``{names}`` (``"a, b or
    c"``) or ``{list}`` (``"a, b, c"``).

    >>> variant_help("{names} (for IDs without one).")
    'standard, dutch or mahbusa (for IDs without one).'
    """
    names = variant_names()
    joined = ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)
    return template.format(names=joined, list=", ".join(names))


def check_workers(workers: int) -> None:
    """Exit with code 2 when ``--workers`` is below 1 (more than the cores are cut to the cores by
    :class:`~analyzer.eval.trials.RolloutSettings`).

    >>> check_workers(10**9)
    >>> try:
    ...     check_workers(0)
    ... except typer.Exit as e:
    ...     print(e.exit_code)
    2
    """
    if workers < 1:
        fail(f"--workers must be at least 1 (got {workers})")
