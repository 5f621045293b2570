"""Work units of a batch run: one input file, read match by match, one part file per match.

:func:`process_unit` is what a worker runs (in this process, in a local process pool or on a
Dask worker): it streams the matches of one file, replays or analyses each, and writes each
match's part file atomically (decisions table plus the match row and its errors in the Parquet
metadata). A match whose part is already in place for the same input (same size and mtime) is
skipped, so a resumed run does nothing twice. When the whole file is done, the unit's marker
(``units/<unit>.json``) is renamed into place; only then does the unit count as done.

>>> from pathlib import Path
>>> import tempfile
>>> text = " 3 point match\\n Game 1\\n ann : 0      bob : 0\\n  1) 31: 8/5 6/5   42: 8/4 6/4\\n"
>>> with tempfile.TemporaryDirectory() as tmp:
...     src = Path(tmp, "m.mat")
...     _ = src.write_text(text)
...     out = Path(tmp, "out")
...     prepare_folders(out)
...     r = process_unit(make_unit(str(src)), str(out), BatchOptions(replay_only=True))
...     (r.matches, r.written, r.skipped, r.errors)
(1, 1, 0, 0)
"""

from __future__ import annotations

import datetime as dt
import os
import re
import signal
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import polars as pl

from analyzer.analysis.analyze import analyze_match
from analyzer.analysis.confirm import ConfirmSettings
from analyzer.analysis.replay import GameReplay, replay_games
from analyzer.analysis.schema import DECISIONS_SCHEMA
from analyzer.analysis.settings import ReviewSettings
from analyzer.analysis.summary import AnalysisSummary
from analyzer.analysis.themes import player_theme
from analyzer.analysis.thresholds import load_thresholds
from analyzer.core.errors import InputError
from analyzer.core.ids import decode_key, encode_key
from analyzer.eval.engine import Engine
from analyzer.eval.protocol import Evaluator
from analyzer.formats import read_any
from analyzer.formats.records import MatchRecord

from .layout import (
    DECISIONS_DIR,
    UNITS_DIR,
    atomic_write_json,
    atomic_write_parquet,
    part_name,
    read_json,
    read_part_meta,
    unit_id,
)
from .phase import key_phase, position_phase

__all__ = [
    "REPLAY_SCHEMA",
    "BatchOptions",
    "Unit",
    "UnitResult",
    "error_row",
    "make_unit",
    "match_date",
    "prepare_folders",
    "process_unit",
    "unit_done",
]

REPLAY_SCHEMA: dict[str, pl.DataType] = {
    "file": pl.String(),
    "match_index": pl.Int32(),
    "game": pl.Int32(),
    "move_no": pl.Int32(),
    "player": pl.String(),
    "side": pl.Int8(),
    "kind": pl.String(),
    "variant": pl.String(),
    "dice": pl.String(),
    "played": pl.String(),
    "normalised": pl.String(),
    "key": pl.String(),
    "phase": pl.String(),
    "match_length": pl.Int32(),
    "score_me": pl.Int32(),
    "score_opp": pl.Int32(),
    "cube": pl.Int32(),
}
"""Decisions of a ``--replay-only`` run: one row per replayed decision (kinds ``move``,
``double``, ``take``, ``drop``, ``resign``); ``key`` is the position before the decision seen
from the player on roll (:func:`analyzer.core.ids.encode_key`), ``phase`` its game phase
(:func:`analyzer.batch.phase.position_phase`)."""

MatchCallback = Callable[[int], None]
"""Called with the number of matches finished so far in the unit (in-process runs only)."""


@dataclass(frozen=True, slots=True)
class BatchOptions:
    """What a batch run does to each match: replay only, or analyse at ``ply`` with the
    ``thresholds`` preset (or JSON file), with the confirmation pass when ``confirm``
    (:class:`analyzer.analysis.confirm.ConfirmSettings` defaults, one process per worker);
    ``seed`` is recorded with every output.

    >>> BatchOptions(ply=0).as_dict()
    {'ply': 0, 'replay_only': False, 'seed': 0, 'thresholds': 'xg', 'confirm': False}
    """

    ply: int = 2
    replay_only: bool = False
    seed: int = 0
    thresholds: str = "xg"
    confirm: bool = False

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def review(self) -> ReviewSettings:
        """The review of each match (:class:`~analyzer.analysis.settings.ReviewSettings`): at ``ply``, the
        ``thresholds`` loaded, the confirmation at its defaults when ``confirm``, one process a worker.
        Raises :class:`~analyzer.core.errors.SettingsError` for settings the engine cannot honour and
        :class:`ValueError` for thresholds that cannot be read.

        >>> s = BatchOptions(ply=1, confirm=True).review()
        >>> s.ply, s.thresholds.name, s.confirm.workers
        (1, 'xg', 1)
        """
        return ReviewSettings(ply=self.ply, thresholds=load_thresholds(self.thresholds), seed=self.seed,
                              confirm=ConfirmSettings() if self.confirm else None, workers=1)


@dataclass(frozen=True, slots=True)
class Unit:
    """One input file: its path as given (the ``file`` column of every table), the unit's name,
    its size and mtime (``None`` when the file cannot be examined) and the absolute path the
    worker reads (workers may run in another folder, or on another machine)."""

    path: str
    unit: str
    size: int | None
    mtime_ns: int | None
    source: str = ""

    def stamp(self) -> dict[str, Any]:
        """What identifies this version of the input (stored in every part and marker)."""
        return {"path": self.path, "size": self.size, "mtime_ns": self.mtime_ns}


@dataclass(frozen=True, slots=True)
class UnitResult:
    """What a worker reports for a unit: matches in the file, parts written now, parts found
    already done, and the number of error rows of the matches written now plus the file's own."""

    unit: str
    path: str
    matches: int
    written: int
    skipped: int
    errors: int
    decisions: int


def make_unit(path: str) -> Unit:
    """The work unit of input ``path`` (size and mtime read now)."""
    source = os.path.abspath(path)
    try:
        st = os.stat(path)
    except OSError:
        return Unit(path, unit_id(path), None, None, source)
    return Unit(path, unit_id(path), st.st_size, st.st_mtime_ns, source)


def prepare_folders(out: Path) -> None:
    """Create the dataset folder and its ``decisions`` and ``units`` subfolders."""
    (out / DECISIONS_DIR).mkdir(parents=True, exist_ok=True)
    (out / UNITS_DIR).mkdir(parents=True, exist_ok=True)


def unit_done(out: Path, unit: Unit) -> bool:
    """Whether ``unit`` was completed for this very version of its input: its marker is in place
    and so is the part file of every match it counts."""
    marker = read_json(out / UNITS_DIR / f"{unit.unit}.json")
    if marker is None or marker.get("stamp") != unit.stamp() or marker.get("status") in ("crashed", "failed"):
        return False
    n = int(marker.get("matches") or 0)
    return all((out / DECISIONS_DIR / part_name(unit.unit, i)).is_file() for i in range(n))


def error_row(err: InputError | Exception, *, file: str, kind: str, match_index: int | None = None,
              game: int | None = None) -> dict[str, Any]:
    """One row of the errors table.

    >>> e = InputError("not a move", file="a.mat", line=3, column=7, token="13/x")
    >>> r = error_row(e, file="a.mat", kind="parse", match_index=0, game=1)
    >>> r["line"], r["column"], r["token"], r["reason"]
    (3, 7, '13/x', 'not a move')
    """
    if isinstance(err, InputError):
        return {"file": file, "match_index": match_index, "game": game, "line": err.line,
                "column": err.column, "token": err.token, "reason": err.message, "kind": kind}
    return {"file": file, "match_index": match_index, "game": game, "line": None, "column": None,
            "token": None, "reason": f"{type(err).__name__}: {err}", "kind": kind}


_DATE = re.compile(r"(\d{4})[./-](\d{1,2})[./-](\d{1,2})")


def match_date(text: str | None) -> str | None:
    """The ISO date of a header date written year first (``2023.08.09``, ``2024-1-3``).

    >>> match_date("2023.08.09"), match_date("2024-1-3"), match_date("09/08/2023"), match_date(None)
    ('2023-08-09', '2024-01-03', None, None)
    """
    if not text:
        return None
    m = _DATE.search(text)
    if m is None:
        return None
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3))).isoformat()
    except ValueError:
        return None


def _final(record: MatchRecord, games: list[GameReplay]) -> tuple[int | None, int | None, int | None]:
    """Final score (first, second) and winning side, when the last game replayed."""
    if not games or games[-1].error is not None:
        return None, None, None
    last = games[-1]
    score = [last.state.score[0], last.state.score[1]]
    if last.winner is not None:
        score[last.winner] += last.points
    winner: int | None = None
    if record.length:
        if max(score) >= record.length:
            winner = 0 if score[0] > score[1] else 1
    elif score[0] != score[1]:
        winner = 0 if score[0] > score[1] else 1
    return score[0], score[1], winner


def _replay_frame(file: str, index: int, games: list[GameReplay]) -> pl.DataFrame:
    rows: list[tuple[Any, ...]] = []
    for g in games:
        if g.error is not None:
            continue
        for d in g.decisions:
            me, opp = d.state.score[d.side], d.state.score[1 - d.side]
            dice = f"{d.dice[0]}{d.dice[1]}" if d.dice else None
            rows.append((file, index, d.game, d.move, d.player, d.side, d.kind, d.variant, dice, d.played,
                         d.normalised, encode_key(d.position), position_phase(d.position), d.state.length, me,
                         opp, d.state.cube))
    return pl.DataFrame(rows, schema=REPLAY_SCHEMA, orient="row")


GAME_MAX = 2**31 - 1
"""The largest game number the dataset's Int32 ``game`` columns hold."""


def _storable(games: list[GameReplay]) -> list[GameReplay]:
    """The games with a number the dataset cannot hold (readers take any 'Game N') turned into
    failed games: an error on the game's line, no decisions, the other games untouched."""
    return [g if 0 <= g.number <= GAME_MAX else
            replace(g, decisions=(), error=g.error or InputError(
                f"game number beyond the dataset's range (at most {GAME_MAX})", file=g.file, line=g.line,
                token=str(g.number)[:40]))
            for g in games]


def _errors(record: MatchRecord, index: int, games: list[GameReplay], file: str) -> list[dict[str, Any]]:
    out = [error_row(e, file=file, kind="parse", match_index=index) for e in record.errors]
    for g in games:
        number = g.number if 0 <= g.number <= GAME_MAX else None
        if g.error is not None:
            out.append(error_row(g.error, file=file, kind="replay", match_index=index, game=number))
        if g.score_error is not None:
            out.append(error_row(g.score_error, file=file, kind="score", match_index=index, game=number))
    return out


_ENGINE: Evaluator | None = None
_ENGINE_THREADS: int | None = None


def set_engine_threads(threads: int | None) -> None:
    """Cap the threads of this process's engine (a worker's initializer; ``None``: numba's count).

    Workers that share the cores run one thread each: a batched 2-ply evaluation split over
    threads that the other workers keep busy waits for its slowest thread (a whole-corpus 2-ply
    sample of 12 matches on 2 cores: 31-42 s with 2 threads a worker, 23 s with 1).

    >>> set_engine_threads(None)
    """
    global _ENGINE, _ENGINE_THREADS
    if threads != _ENGINE_THREADS:
        _ENGINE_THREADS = threads
        _ENGINE = None


def init_pool_worker(threads: int | None) -> None:
    """A local pool worker's initializer: cap its engine's threads (:func:`set_engine_threads`)
    and leave Ctrl-C to the parent, which stops the workers at once (an interrupted worker would
    otherwise go on with the units already queued for it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    set_engine_threads(threads)


def worker_threads(jobs: int) -> int:
    """Threads for each of ``jobs`` workers sharing this machine's cores (at least 1).

    >>> worker_threads(10 ** 6)
    1
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores // max(1, jobs))


def _engine() -> Evaluator:
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = Engine(threads=_ENGINE_THREADS)
    return _ENGINE


def _player_fields(summary: AnalysisSummary | None, side: int) -> dict[str, Any]:
    keys = ("unforced", "total_error", "errors", "pr", "error_rate")
    if summary is None:
        return {f"{k}_{side}": None for k in keys}
    p = summary.players[side]
    return {f"unforced_{side}": p.unforced, f"total_error_{side}": p.total_error,
            f"errors_{side}": p.errors, f"pr_{side}": None if p.pr_raw is None else 500.0 * p.pr_raw,
            f"error_rate_{side}": p.errors / p.unforced if p.unforced else None}


def _match_row(record: MatchRecord, index: int, unit: Unit, games: list[GameReplay], frame: pl.DataFrame,
               summary: AnalysisSummary | None, options: BatchOptions) -> dict[str, Any]:
    s0, s1, winner = _final(record, games)
    sides = frame["side"].to_list()
    return {
        "file": unit.path, "match_index": index, "part": part_name(unit.unit, index),
        "player_0": record.players[0], "player_1": record.players[1], "length": record.length,
        "variant": record.variant, "event": record.event, "date_raw": record.date, "date": match_date(record.date),
        "games": len(games), "games_failed": sum(1 for g in games if g.error is not None),
        "decisions": frame.height, "decisions_0": sides.count(0), "decisions_1": sides.count(1),
        "score_0": s0, "score_1": s1, "winner_side": winner,
        "winner": None if winner is None else record.players[winner],
        "ply": None if options.replay_only or summary is None else options.ply,
        **_player_fields(summary, 0), **_player_fields(summary, 1),
    }


def _key_theme(key: str) -> str | None:
    """The :func:`~analyzer.analysis.themes.player_theme` of a position key (``None`` if unreadable)."""
    try:
        return player_theme(decode_key(key))
    except (InputError, ValueError):
        return None


def _analysis_frame(record: MatchRecord, index: int, file: str, options: BatchOptions,
                    games: list[GameReplay] | None = None) -> tuple[pl.DataFrame, AnalysisSummary]:
    engine = _engine()
    try:
        a = analyze_match(record, options.review(), engine=engine)
    finally:  # matches rarely share evaluations: a worker's memory stays flat (366 -> 280 MB after 150 matches)
        engine.clear_cache()
    keys = [k for k in a.decisions["key"].unique().to_list() if k is not None]
    phases = {k: key_phase(k) for k in keys}
    themes = {k: _key_theme(k) for k in keys}
    flags = {g.number: (g.state.crawford, g.state.post_crawford) for g in games or () if g.error is None}
    crawford = {n: c for n, (c, _) in flags.items()}
    post = {n: p for n, (_, p) in flags.items()}
    frame = a.decisions.with_columns(pl.lit(file, pl.String).alias("file"),
                                     pl.lit(index, pl.Int32).alias("match_index"),
                                     pl.col("key").replace_strict(phases, default=None,
                                                                  return_dtype=pl.String).alias("phase"),
                                     pl.col("key").replace_strict(themes, default=None,
                                                                  return_dtype=pl.String).alias("theme"),
                                     pl.col("game").replace_strict(crawford, default=None,
                                                                   return_dtype=pl.Boolean).alias("crawford"),
                                     pl.col("game").replace_strict(post, default=None,
                                                                   return_dtype=pl.Boolean).alias("post_crawford"))
    return frame.select(list(analysis_schema())), replace(a.summary, match=replace(a.summary.match, file=file))


def analysis_schema() -> dict[str, pl.DataType]:
    """The decisions schema of an analysis run: the analysis table
    (:data:`~analyzer.analysis.schema.DECISIONS_SCHEMA`) plus ``match_index`` (after ``file``),
    ``phase`` (after ``key``, from :func:`analyzer.batch.phase.key_phase`), then ``theme`` (the
    position's theme from the decider's side, :func:`analyzer.analysis.themes.player_theme`),
    ``crawford`` and ``post_crawford`` (the decision's game is the Crawford game, or after it)."""
    items: list[tuple[str, pl.DataType]] = []
    for name, dtype in DECISIONS_SCHEMA.items():
        items.append((name, dtype))
        if name == "file":
            items.append(("match_index", pl.Int32()))
        elif name == "key":
            items.extend([("phase", pl.String()), ("theme", pl.String()), ("crawford", pl.Boolean()),
                          ("post_crawford", pl.Boolean())])
    return dict(items)


def _match_part(record: MatchRecord, index: int, unit: Unit,
                options: BatchOptions) -> tuple[pl.DataFrame, dict[str, Any]]:
    """The part of one match: its decisions and its metadata (stamp, match row, errors, summary)."""
    games = _storable(list(replay_games(record)))
    errors = _errors(record, index, games, unit.path)
    summary: AnalysisSummary | None = None
    if options.replay_only:
        try:
            frame = _replay_frame(unit.path, index, games)
        except Exception as e:  # one match must not stop its file: the error is recorded
            frame = pl.DataFrame(schema=REPLAY_SCHEMA)
            errors.append(error_row(e, file=unit.path, kind="internal", match_index=index))
    else:
        frame = pl.DataFrame(schema=analysis_schema())
        if record.games:
            try:
                frame, summary = _analysis_frame(record, index, unit.path, options, games)
            except Exception as e:  # one match must not stop the archive: the error is recorded
                errors.append(error_row(e, file=unit.path, kind="analysis", match_index=index))
    row = _match_row(record, index, unit, games, frame, summary, options) if record.games else None
    meta = {"stamp": unit.stamp(), "match": row, "errors": errors,
            "summary": None if summary is None else summary.as_dict()}
    return frame, meta


def _part_done(path: Path, unit: Unit) -> bool:
    if not path.exists():
        return False
    try:
        meta = read_part_meta(path)
    except Exception:  # an unreadable part is redone
        return False
    return meta is not None and meta.get("stamp") == unit.stamp()


def _folder_error(folder: str, name: str) -> InputError:
    """Why the folder ``folder`` (``name`` as the user gave it) stands in the inputs: the input walk
    could not list it, so its match files are not read."""
    try:
        with os.scandir(folder):
            pass
    except OSError as e:
        return InputError(f"cannot read the folder ({e.strerror or type(e).__name__}): its match files are "
                          "left out", file=name)
    return InputError("a folder, not a match file", file=name)


def process_unit(unit: Unit, out_dir: str, options: BatchOptions,
                 on_match: MatchCallback | None = None) -> UnitResult:
    """Replay or analyse every match of ``unit`` into ``out_dir`` (see the module docstring)."""
    out = Path(out_dir)
    file_errors: list[dict[str, Any]] = []
    n = written = skipped = errors = decisions = 0
    try:
        if os.path.isdir(unit.source or unit.path):  # a folder the walk could not list
            raise _folder_error(unit.source or unit.path, unit.path)
        for index, record in enumerate(read_any(unit.source or unit.path)):
            n += 1
            path = out / DECISIONS_DIR / part_name(unit.unit, index)
            if _part_done(path, unit):
                skipped += 1
            else:
                frame, meta = _match_part(record, index, unit, options)
                atomic_write_parquet(path, frame, meta)
                written += 1
                errors += len(meta["errors"])
                decisions += frame.height
            if on_match is not None:
                on_match(n)
    except OSError as e:
        file_errors.append(error_row(InputError(e.strerror or "cannot read the file", file=unit.path),
                                     file=unit.path, kind="read"))
    except InputError as e:
        file_errors.append(error_row(e, file=unit.path, kind="parse"))
    except Exception as e:  # a reader bug must not stop the archive: the error is recorded
        file_errors.append(error_row(e, file=unit.path, kind="internal"))
    if n == 0 and not file_errors:
        file_errors.append(error_row(InputError("no match in the file", file=unit.path, line=1), file=unit.path,
                                     kind="parse"))
    # a read failure or a reader bug may not happen again: such a unit is tried again on --resume
    retry = any(e.get("kind") in ("read", "internal") for e in file_errors)
    marker = {"unit": unit.unit, "stamp": unit.stamp(), "matches": n, "errors": file_errors,
              "status": "failed" if retry else "done"}
    atomic_write_json(out / UNITS_DIR / f"{unit.unit}.json", marker)
    return UnitResult(unit.unit, unit.path, n, written, skipped, errors + len(file_errors), decisions)
