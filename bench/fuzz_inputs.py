"""Fuzzing the match readers through the CLI: seeded mutants of real match files and the invariants.

    python bench/fuzz_inputs.py [--mutants 5000] [--seed 1] [--jobs 2] [--batch-every 50]
                                [--corpus tests/data/corpus] [--timeout 30] [--keep DIR]
                                [--writes 0] [--write-seed 1] [--specials 0] [--special-seed 1]

Mutant ``seed + i`` (``i < --mutants``) is a corpus file damaged by one kind of mutation
(:data:`KINDS`, taken in turn): byte flips, truncations, deleted, duplicated and swapped lines,
illegal moves, bad dice, out-of-range numbers, control bytes, non-UTF-8 bytes, other line endings,
other encodings, empty files and random files. Each mutant goes through ``bgreview replay``
(jsonl and table), ``bgreview convert --to mat`` (and a replay of what convert wrote) and, in
groups of ``--batch-every``, ``bgreview batch --replay-only``, in-process through Typer's
CliRunner, and these invariants are checked (:func:`check_mutant`, :func:`check_batch`):

* ``traceback``: no exception escapes a command and no "internal error" is reported;
* ``hang``: every command ends within ``--timeout`` seconds;
* ``exit``: exit 0 only when every game of the file replayed: the games counted independently in
  the mutated text (:func:`expected_games`: 'Game N' lines of a .mat, game trees of an SGF) all
  came out (at least one), and a non-zero exit says why on stderr;
* ``location``: every error line on stderr names the file and the line (``error: FILE:LINE: ...``;
  a file-level error names line 1); in a batch, every error row has the file and the line;
* ``consistency``: the table and jsonl outputs agree (exit code, errors, decision count) and a
  batch fails a file exactly when ``replay`` does;
* ``convert``: what ``convert --to mat`` wrote replays, to the same decisions as the games it kept.

``--writes N`` adds N write cases (issue 55, :data:`WRITE_KINDS`, :func:`check_write_case`): hostile
names through every writer, an output that is the input, links planted in ``--out``, a match file named
``...mat``, a read-only folder and a full 64 KiB tmpfs (these two where the process may mount, as root;
else counted as skipped). Their invariants: no traceback or hang; a write that fails is one error line
naming the path, exit 2; what is written reads back to the input's decisions (the .mat writer may refuse a
control character in a name, with a reason); the user's files are never replaced or written through;
nothing lands outside the output; no cut or temporary file is left.

``--specials N`` adds N special-input cases (issue 55, :data:`SPECIAL_KINDS`, :func:`check_special_case`):
a FIFO and ``/dev/zero`` named like match files (given directly, and met in a folder walk), a folder named
``.mat``, a sub-folder that cannot be listed, and multi-entry XG archives (64 entries of the per-entry cap
each, repeated names). Their invariants: no traceback or hang; what is not a regular file, or cannot be
read, is refused with one error line naming it, exit 2 (a walk reports it and reads the others, exit 1); an
unlistable folder is named (replay's stderr, batch's errors table); no process peaks past 2 GiB.

Prints the mutants by kind, the exit codes per command and the failures of each invariant with the
seeds of a few mutants, so one can be reproduced: ``python bench/fuzz_inputs.py --mutants 1
--seed SEED --keep /tmp/m`` writes that mutant to /tmp/m and prints what failed.
"""

from __future__ import annotations

import argparse
import codecs
import json
import random
import re
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"

KINDS = ("byte_flip", "truncate", "delete_line", "duplicate_line", "swap_lines", "illegal_move", "bad_dice",
         "out_of_range", "control_bytes", "non_utf8", "line_endings", "encoding", "empty", "random")
INVARIANTS = ("traceback", "hang", "exit", "location", "consistency", "convert")

_CONTROL = [bytes([c]) for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F)] + [
    "\u0085".encode(), "\u2028".encode(), "\u200b".encode(), "\ufeff".encode()]
_NON_UTF8 = [b"\xff", b"\xfe", b"\xc3", b"\x80", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf8\x88\x80\x80\x80",
             b"\xe2\x82", b"\xf4\x90\x80\x80", b"\xe9"]
_BAD_DICE = [b"00", b"07", b"70", b"99", b"1", b"123", b"0", b"x1", b"6 6", b"77", b"16", b"-1"]
_BIG = [b"0", b"-1", b"25", b"26", b"99", b"255", b"256", b"65536", b"2147483648", b"99999999999999999999",
        b"1" * 400]
_ENCODINGS = ("utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1", "cp1252", "utf-8")
_MOVE = re.compile(rb"(?<![\w/])(bar|\d{1,2})/(\d{1,2}|off)", re.IGNORECASE)
_DICE = re.compile(rb"(?<!\d)([1-6][1-6]):")
_NUMBER = re.compile(rb"\d+")
_SGF_MOVE = re.compile(rb"(?<=[BW]\[[1-6][1-6])[a-z]+(?=\])")
_SGF_DICE = re.compile(rb"(?<=[BW]\[)[1-6][1-6](?=[a-z]*\])")
_GAME_LINE = re.compile(r"^[ \t]*game[ \t]+\d+[ \t]*$", re.IGNORECASE)
_EOL = re.compile(r"\r\n|\r|\n")


def corpus_sources(corpus: Path = CORPUS) -> list[Path]:
    """The match files mutants are made from: a spread of the corpus (Galaxy, Backgammon Studio,
    gnubg .mat and SGF), sorted so that a seed always names the same file."""
    galaxy = sorted((corpus / "bglab" / "galaxy").glob("*.txt"))[::85]
    studio = sorted((corpus / "bglab" / "backgammon-studio").glob("*.txt"))[::9]
    gnubg = sorted((corpus / "gnubgparser").glob("*.mat")) + sorted((corpus / "gnubgparser").glob("*.sgf"))
    return [*galaxy, *studio, *gnubg]


@dataclass(frozen=True)
class Mutant:
    """One damaged file: ``data`` made from corpus file ``source`` by mutation ``kind``."""

    seed: int
    kind: str
    source: str
    suffix: str
    data: bytes
    note: str = ""

    @property
    def name(self) -> str:
        return f"m{self.seed}-{self.kind}{self.suffix}"


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True) or [b""]


def _sub_one(rng: random.Random, data: bytes, pattern: re.Pattern[bytes],
             replace: Callable[[re.Match[bytes]], bytes]) -> tuple[bytes, str]:
    hits = list(pattern.finditer(data))
    if not hits:
        return data, "no target"
    m = rng.choice(hits)
    new = replace(m)
    return data[:m.start()] + new + data[m.end():], f"{m.group(0)!r}->{new!r} at byte {m.start()}"


def _insert(rng: random.Random, data: bytes, pieces: Sequence[bytes]) -> tuple[bytes, str]:
    buf, notes = bytearray(data), []
    for _ in range(rng.randint(1, 5)):
        at, piece = rng.randint(0, len(buf)), rng.choice(pieces)
        buf[at:at] = piece
        notes.append(f"{piece!r}@{at}")
    return bytes(buf), " ".join(notes)


def _decode_source(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _mutate(kind: str, rng: random.Random, data: bytes) -> tuple[bytes, str]:  # noqa: C901, PLR0911, PLR0912
    if kind == "byte_flip":
        buf = bytearray(data)
        spots = [rng.randrange(len(buf)) for _ in range(rng.randint(1, 8))] if buf else []
        for i in spots:
            buf[i] ^= rng.randint(1, 255)
        return bytes(buf), f"bytes {spots}"
    if kind == "truncate":
        cut = rng.randrange(len(data) + 1)
        return data[:cut], f"cut at {cut}"
    if kind in ("delete_line", "duplicate_line", "swap_lines"):
        lines = _lines(data)
        picks = sorted(rng.randrange(len(lines)) for _ in range(rng.randint(1, 3)))
        if kind == "delete_line":
            for i in reversed(sorted(set(picks))):
                del lines[i]
        elif kind == "duplicate_line":
            for i in reversed(picks):
                lines.insert(i, lines[i])
        else:
            for i in picks:
                j = min(len(lines) - 1, max(0, i + rng.choice((-3, -2, -1, 1, 2, 3, rng.randrange(len(lines))))))
                lines[i], lines[j] = lines[j], lines[i]
        return b"".join(lines), f"lines {[p + 1 for p in picks]}"
    if kind == "illegal_move":
        def move(m: re.Match[bytes]) -> bytes:
            to = rng.choice((b"off", b"bar", b"0", b"25", b"26", b"99", str(rng.randint(1, 24)).encode()))
            return rng.choice((m.group(1) + b"/" + to, to + b"/" + m.group(2), m.group(2) + b"/" + m.group(1),
                               m.group(0) + b"(5)", m.group(0) + b"*", m.group(0) + b" " + m.group(0)))
        def sgf_move(m: re.Match[bytes]) -> bytes:
            return bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(rng.choice((1, 2, 2, 4, 6, 8))))
        if _MOVE.search(data):
            return _sub_one(rng, data, _MOVE, move)
        return _sub_one(rng, data, _SGF_MOVE, sgf_move)
    if kind == "bad_dice":
        if _DICE.search(data):
            return _sub_one(rng, data, _DICE, lambda m: rng.choice(_BAD_DICE) + b":")
        return _sub_one(rng, data, _SGF_DICE, lambda m: rng.choice(_BAD_DICE))
    if kind == "out_of_range":
        return _sub_one(rng, data, _NUMBER, lambda m: rng.choice(_BIG))
    if kind == "control_bytes":
        return _insert(rng, data, _CONTROL)
    if kind == "non_utf8":
        return _insert(rng, data, _NON_UTF8)
    if kind == "line_endings":
        text = data.replace(b"\r\n", b"\n")
        style = rng.choice(("crlf", "cr", "mixed", "lfcr", "no-final"))
        if style == "crlf":
            return text.replace(b"\n", b"\r\n"), style
        if style == "cr":
            return text.replace(b"\n", b"\r"), style
        if style == "lfcr":
            return text.replace(b"\n", b"\n\r"), style
        if style == "no-final":
            return text.rstrip(b"\r\n"), style
        return b"".join(line.rstrip(b"\n") + rng.choice((b"\n", b"\r\n", b"\r")) for line in _lines(text)), style
    if kind == "encoding":
        enc = rng.choice(_ENCODINGS)
        return _decode_source(data).encode(enc, errors="replace"), enc
    if kind == "empty":
        lines = _lines(data)
        first_game = next((i for i, line in enumerate(lines) if b"point match" in line.lower()
                           or _GAME_LINE.match(line.decode("latin-1"))), len(lines))
        choice = rng.choice((b"", b"\n", b" \t \n\n \n", b"\xef\xbb\xbf", b"\r\n\r\n", b"".join(lines[:first_game]),
                             b"".join(lines[:first_game + 1]), b"\x00" * rng.randint(1, 64)))
        return choice, f"{len(choice)} bytes"
    if kind == "random":
        n = rng.randint(0, 6000)
        style = rng.choice(("bytes", "text", "tokens"))
        if style == "bytes":
            return rng.randbytes(n), style
        if style == "text":
            return "".join(rng.choice("abcdefgh 0123456789:/*)\n") for _ in range(n)).encode(), style
        tokens = re.findall(rb"\S+|\n", data) or [b"Game", b"1", b"\n"]
        return b" ".join(rng.choice(tokens) for _ in range(n // 4)), style
    raise ValueError(f"unknown mutation kind {kind!r}")


def make_mutant(seed: int, sources: Sequence[Path], kind: str | None = None) -> Mutant:
    """Mutant number ``seed``: kind ``KINDS[seed % len(KINDS)]`` (or ``kind``) applied to a corpus
    file chosen by the seed. Same seed and sources, same bytes."""
    rng = random.Random(seed)
    kind = kind or KINDS[seed % len(KINDS)]
    src = sources[rng.randrange(len(sources))]
    original = src.read_bytes()
    for _ in range(5):  # a draw that changed nothing (a cut at the end, ASCII to UTF-8) is drawn again
        data, note = _mutate(kind, rng, original)
        if data != original:
            break
    else:
        note += " (unchanged)"
    return Mutant(seed, kind, src.name, src.suffix if src.suffix in (".sgf", ".mat") else ".txt", data, note)


def decode_like_a_reader(data: bytes) -> str:
    """The text of ``data`` for counting games: a BOM names UTF-8, UTF-16 or UTF-32, anything else
    is read as UTF-8 with bad bytes replaced (the game lines are ASCII)."""
    for bom, enc in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
                     (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return data.decode(enc, errors="replace")
    return data.decode("utf-8", errors="replace")


def sgf_game_trees(text: str) -> int:
    """Top-level game trees ``(;`` of an SGF text (brackets ``[...]`` with ``\\]`` escapes skipped)."""
    depth, games, i, n = 0, 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == "[":
            i += 1
            while i < n and text[i] != "]":
                i += 2 if text[i] == "\\" else 1
        elif c == "(":
            if depth == 0 and text[i + 1:].lstrip().startswith(";"):
                games += 1
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        i += 1
    return games


def expected_games(data: bytes, suffix: str) -> int:
    """How many games the file holds, counted without the project's readers: 'Game N' lines of a
    .mat text (any line ending), top-level game trees of an SGF."""
    text = decode_like_a_reader(data)
    if suffix == ".sgf":
        return sgf_game_trees(text)
    return sum(1 for line in _EOL.split(text) if _GAME_LINE.match(line))


def replayed_games(rows: Sequence[dict[str, Any]]) -> int:
    """Games that came out of ``replay --format jsonl``: a new game starts where the game number
    changes or the move number goes back."""
    games, last = 0, None
    for r in rows:
        if last is None or r["game"] != last["game"] or r["move"] < last["move"]:
            games += 1
        last = r
    return games


# ------------------------------------------------------------------------------------------ checks
@dataclass
class Failure:
    invariant: str
    seed: int
    kind: str
    command: str
    detail: str

    def __str__(self) -> str:
        return f"[{self.invariant}] seed {self.seed} ({self.kind}) {self.command}: {self.detail}"


@dataclass
class Outcome:
    """What the commands did with one mutant (or one batch folder)."""

    seed: int
    kind: str
    exits: dict[str, int] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)


class Hang(BaseException):
    """A command ran past its time limit (a BaseException: the CLI's own ``except Exception``
    handlers must not turn it into an error message)."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` in the main thread after ``seconds`` (SIGALRM)."""
    def ring(signum: int, frame: Any) -> None:
        raise Hang(f"still running after {seconds:g} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    crash: str | None


def run_cli(args: Sequence[str], timeout: float) -> Run:
    """``bgreview ARGS`` in-process; ``crash`` is the traceback's last line when one escaped."""
    import traceback

    from typer.testing import CliRunner

    from analyzer.cli import app

    with time_limit(timeout):
        res = CliRunner().invoke(app, list(args))
    crash = None
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        crash = "".join(traceback.format_exception_only(res.exception)).strip()
    return Run(res.exit_code, res.stdout, res.stderr, crash)


_BOX = tuple("┏┃┡│└╭╰┌├━─╇╈┳┗┛┓╷╵")


def error_lines(stderr: str) -> list[str]:
    """The lines of stderr that are not part of a summary table."""
    return [line for line in stderr.splitlines()
            if line.strip() and not line.lstrip().startswith(_BOX) and not line.strip().endswith("summary")]


def bad_locations(stderr: str, path: str) -> list[str]:
    """Error lines that do not start ``error: PATH:LINE``."""
    ok = re.compile(rf"^error: {re.escape(path)}:\d+(:\d+)?: ")
    return [line for line in error_lines(stderr) if not ok.match(line)]


def _common(out: Outcome, name: str, run: Run, path: str, expected: int, done: int) -> None:
    def fail(invariant: str, detail: str) -> None:
        out.failures.append(Failure(invariant, out.seed, out.kind, name, detail))

    out.exits[name] = run.code
    if run.crash or "internal error" in run.stderr or "Traceback" in run.stderr:
        fail("traceback", run.crash or next(x for x in run.stderr.splitlines() if "internal error" in x
                                            or "Traceback" in x))
    if run.code == 0 and (expected == 0 or done < expected):
        fail("exit", f"exit 0 with {done} of {expected} games")
    if run.code != 0 and not error_lines(run.stderr):
        fail("exit", f"exit {run.code} with nothing on stderr")
    if run.code not in (0, 1, 2):
        fail("exit", f"exit code {run.code}")
    bad = bad_locations(run.stderr, path)
    if bad:
        fail("location", bad[0][:200])


_ROW_KEY = ("player", "side", "kind", "dice", "normalised", "position_id", "match_id", "xgid", "score")


def _rows(stdout: str) -> list[dict[str, Any]]:
    rows = []
    for line in stdout.splitlines():
        if line.startswith("{"):
            rows.append(json.loads(line))
    return rows


def check_mutant(m: Mutant, folder: Path, timeout: float = 30.0) -> Outcome:
    """Write mutant ``m`` into ``folder`` and check the invariants of replay (jsonl, table) and
    convert --to mat (and the replay of what it wrote)."""
    out = Outcome(m.seed, m.kind)
    path = str(folder / m.name)
    Path(path).write_bytes(m.data)
    expected = expected_games(m.data, m.suffix)
    commands: list[tuple[str, list[str]]] = [
        ("replay-jsonl", ["replay", path, "--format", "jsonl", "--no-progress"]),
        ("replay-table", ["replay", path, "--format", "table", "--no-progress"]),
        ("convert", ["convert", path, "--to", "mat", "-o", path + ".conv.mat"]),
    ]
    runs: dict[str, Run] = {}
    for name, args in commands:
        try:
            runs[name] = run_cli(args, timeout)
        except Hang as e:
            out.failures.append(Failure("hang", m.seed, m.kind, name, str(e)))
    if "replay-jsonl" not in runs:
        return out
    jl = runs["replay-jsonl"]
    rows = _rows(jl.stdout)
    _common(out, "replay-jsonl", jl, path, expected, replayed_games(rows))
    if "replay-table" in runs:
        tb = runs["replay-table"]
        _common(out, "replay-table", tb, path, expected, replayed_games(rows) if tb.code == jl.code else 0)
        n_table = max(0, len([x for x in tb.stdout.splitlines() if x.strip()]) - 1)
        if (tb.code, error_lines(tb.stderr)[:1], n_table) != (jl.code, error_lines(jl.stderr)[:1], len(rows)):
            out.failures.append(Failure("consistency", m.seed, m.kind, "replay-table",
                                        f"table exit {tb.code}, {n_table} rows; jsonl exit {jl.code}, {len(rows)}"))
    if "convert" in runs:
        cv = runs["convert"]
        written = Path(path + ".conv.mat")
        conv_games = expected_games(written.read_bytes(), ".mat") if written.exists() else 0
        _common(out, "convert", cv, path, expected, conv_games)
        if conv_games:
            _check_converted(out, str(written), rows, timeout)
    return out


def _check_converted(out: Outcome, written: str, rows: list[dict[str, Any]], timeout: float) -> None:
    try:
        again = run_cli(["replay", written, "--format", "jsonl", "--no-progress"], timeout)
    except Hang as e:
        out.failures.append(Failure("hang", out.seed, out.kind, "replay-converted", str(e)))
        return
    out.exits["replay-converted"] = again.code
    if again.crash or again.code != 0:
        first = (error_lines(again.stderr) or [again.crash or ""])[0]
        out.failures.append(Failure("convert", out.seed, out.kind, "replay-converted",
                                    f"exit {again.code}: {first[:200]}"))
        return
    mine = [tuple(r[k] for k in _ROW_KEY) for r in rows]
    theirs = [tuple(r[k] for k in _ROW_KEY) for r in _rows(again.stdout)]
    if mine != theirs:
        at = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
                  min(len(mine), len(theirs)))
        out.failures.append(Failure("convert", out.seed, out.kind, "replay-converted",
                                    f"{len(theirs)} decisions, the kept games had {len(mine)}; first difference at "
                                    f"decision {at}"))


def check_batch(mutants: Sequence[Mutant], folder: Path, replay_exits: dict[int, int],
                timeout: float = 120.0) -> Outcome:
    """``batch --replay-only`` over the mutants written in ``folder``: no traceback, exit 0 only
    when no file failed, every error row names its file and line, every file without error rows
    had all its games replayed, and a file fails exactly when ``replay`` failed it
    (``replay_exits``: seed -> replay's exit code)."""
    import polars as pl

    seed = mutants[0].seed if mutants else -1
    out = Outcome(seed, "batch")
    dest = folder / "batch-out"

    def fail(invariant: str, detail: str) -> None:
        out.failures.append(Failure(invariant, seed, "batch", "batch", detail))

    try:
        run = run_cli(["batch", str(folder), "--out", str(dest), "--replay-only", "--jobs", "1", "--no-progress"],
                      timeout)
    except Hang as e:
        fail("hang", str(e))
        return out
    out.exits["batch"] = run.code
    if run.crash:
        fail("traceback", run.crash)
        return out
    errors = pl.read_parquet(dest / "errors.parquet")
    matches = pl.read_parquet(dest / "matches.parquet")
    if (run.code == 0) != (errors.height == 0):
        fail("exit", f"exit {run.code} with {errors.height} error rows")
    if "internal" in set(errors["kind"].to_list()):
        row = errors.filter(pl.col("kind") == "internal").row(0, named=True)
        fail("traceback", f"{row['file']}: {row['reason']}")
    unlocated = errors.filter(pl.col("file").is_null() | pl.col("line").is_null())
    for row in unlocated.head(3).iter_rows(named=True):
        fail("location", f"{row['file']}: {row['kind']} error without a line: {row['reason']}")
    failed = set(errors["file"].to_list())
    for m in mutants:
        path = str(folder / m.name)
        games = matches.filter(pl.col("file") == path)
        done = int((games["games"] - games["games_failed"]).sum() or 0)
        expected = expected_games(m.data, m.suffix)
        if path not in failed and (expected == 0 or done < expected):
            fail("exit", f"seed {m.seed} ({m.kind}): no error row, {done} of {expected} games")
        if m.seed in replay_exits and (replay_exits[m.seed] == 0) == (path in failed):
            fail("consistency", f"seed {m.seed} ({m.kind}): replay exit {replay_exits[m.seed]}, batch "
                 f"{'an' if path in failed else 'no'} error row")
    return out


# ------------------------------------------------------------------------------------------ writes (issue 55)
WRITE_KINDS = ("hostile_name", "onto_input", "planted_link", "dots_stem", "read_only", "full_disk")
"""The write cases (``--writes N``): hostile names through every writer (``convert --to mat|sgf``,
``analyze --sgf`` and its report), an output that is the input, links planted in ``--out``, match files
named ``...mat``, and write failures: a read-only folder and a 64 KiB tmpfs (both where this process may
mount: root; skipped otherwise, and counted as skipped)."""

WRITE_INVARIANTS = ("traceback", "hang", "exit", "message", "round_trip", "user_data", "outside", "partial")

HOSTILE_NAMES = (
    "evil\n\n 1 point match\n\n Game 1\n x : 0                        y : 0\n  1) 31: 8/5 6/5",
    "a" * 56, "a" * 60, "B" * 200, "ann : 3 x", "x : 0   y : 0", "Smith, John", "a]b", "back\\slash", "\\]",
    '"quoted" name', "</script><script>alert(1)</script>", "\u202eevil", "line\u2028sep", "nul\x00byte",
    "esc\x1b[2J", "tab\there", " padded ", "", "é漢字🙂", '; [Player 1 "x"]', "Game 1", " 3 point match", "..",
    "../../etc/passwd", "-rf", "PB[evil]", "cr\ronly", ":", "0", "{{ jinja }}", "%s%n", "A" * 4100)
_BREAKS = re.compile(r"[\x00-\x08\x0a-\x1f]")
_TINY_SGF = ("(;FF[4]GM[6]CA[UTF-8]AP[fuzz]MI[length:3][game:0][ws:0][bs:0]PW[{a}]PB[{b}]DT[{date}]EV[{ev}]"
             "RU[Crawford]RE[W+1]\n;W[31hefe];B[64aglp];W[double];B[drop])\n"
             "(;FF[4]GM[6]CA[UTF-8]AP[fuzz]MI[length:3][game:1][ws:1][bs:0]PW[{a}]PB[{b}]RU[Crawford]"
             "RE[B+1]\n;B[64aglp];W[31hefe];B[double];W[drop])\n")
_TINY_MAT = (' 3 point match\n\n Game 1\n ann : 0                        bob : 0\n'
             '  1) 31: 8/5 6/5                 64: 24/18 13/9\n  2)  Doubles => 2                Drops\n'
             '      Wins 1 point\n\n Game 2\n ann : 1                        bob : 0\n'
             '  1)                             64: 24/18 13/9\n  2) 31: 8/5 6/5                  Doubles => 2\n'
             '  3)  Drops\n')
_FAST = ("--ply", "0", "--no-confirm", "--no-progress")


def _sgf_value(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


@dataclass(frozen=True)
class WriteCase:
    """One write case: ``kind``, the names (and event, date) its match carries, the input's suffix."""

    seed: int
    kind: str
    names: tuple[str, str]
    event: str
    date: str
    suffix: str

    def data(self) -> bytes:
        if self.suffix == ".sgf":
            a, b, ev, dt = (_sgf_value(x) for x in (*self.names, self.event, self.date))
            return _TINY_SGF.format(a=a, b=b, ev=ev, date=dt).encode("utf-8", "surrogatepass")
        tags = (f'; [Player 1 "{self.names[0]}"]\n; [Player 2 "{self.names[1]}"]\n; [Event "{self.event}"]\n'
                f'; [EventDate "{self.date}"]\n\n')
        return (tags + _TINY_MAT).encode("utf-8")


def make_write_case(seed: int, kind: str | None = None) -> WriteCase:
    """Write case number ``seed``: kind ``WRITE_KINDS[seed % len(WRITE_KINDS)]`` (or ``kind``), hostile names
    drawn by the seed (a .mat input only gets names its tags can hold: no line break)."""
    rng = random.Random(f"write/{seed}")
    kind = kind or WRITE_KINDS[seed % len(WRITE_KINDS)]
    suffix = rng.choice((".sgf", ".sgf", ".mat"))

    def name() -> str:
        pick = rng.choice(HOSTILE_NAMES)
        if rng.random() < 0.3:
            pick += rng.choice(HOSTILE_NAMES)[:30]
        if suffix == ".mat":  # what a .mat input can hold: no line break, lines under 4096 characters
            pick = _BREAKS.sub("", pick)[:3000] or "x"
        return pick

    names = (name(), name()) if kind == "hostile_name" else ("ann", "bob")
    event = name() if kind == "hostile_name" else "fuzz"
    date = rng.choice(("2024]PB[evil", "2024-01-02", "", "\\", "2024.08.04"))
    if suffix == ".mat":
        date = _BREAKS.sub("", date)
    return WriteCase(seed, kind, names, event, date, suffix)


@contextmanager
def mounted(folder: Path, *options: str) -> Iterator[bool]:
    """``folder`` as a small tmpfs (``options`` ``("tmpfs", "size=64k")``) or bound onto itself read-only
    (``("ro",)``); yields whether that worked (root only: never in CI), unmounted at the end."""
    import os
    import subprocess

    def mount(*args: str) -> bool:
        return subprocess.run(["mount", *args], capture_output=True, check=False).returncode == 0

    ok = False
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        if options[0] == "tmpfs":
            ok = mount("-t", "tmpfs", "-o", options[1], "tmpfs", str(folder))
        else:
            ok = mount("--bind", str(folder), str(folder)) and mount("-o", "remount,ro,bind", str(folder))
    try:
        yield ok
    finally:
        if ok:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


_KEEP = ("player", "side", "kind", "dice", "normalised", "position_id", "match_id", "xgid", "score", "game", "move")


def _decisions(path: Path, timeout: float) -> tuple[int, list[tuple[Any, ...]]]:
    run = run_cli(["replay", str(path), "--format", "jsonl", "--no-progress"], timeout)
    return run.code, [tuple(r.get(k) for k in _KEEP) for r in _rows(run.stdout)]


def _one_line(run: Run, under: Path | str) -> str | None:
    """What is wrong with the stderr of a failed write: ``None`` when it is one ``error: PATH: ...`` line,
    PATH inside ``under`` (or ``under`` itself)."""
    lines = error_lines(run.stderr)
    if len(lines) != 1:
        return f"{len(lines)} error lines: {run.stderr[:200]!r}"
    if not lines[0].startswith(f"error: {under}"):
        return f"does not name {under}: {lines[0][:200]!r}"
    return None


def _whole(folder: Path, timeout: float, skip: tuple[str, ...] = ()) -> list[str]:
    """Files under ``folder`` that are cut or temporary (every output must be whole or absent)."""
    import polars as pl

    bad = []
    for p in sorted(folder.rglob("*")):
        if not p.is_file() or p.name in skip or p.is_symlink():
            continue
        if p.name.endswith(".tmp"):
            bad.append(f"temporary file left: {p.name}")
            continue
        data = p.read_bytes()
        try:
            if p.suffix == ".parquet":
                pl.read_parquet(p)
            elif p.suffix == ".json":
                json.loads(data)
            elif p.suffix in (".svg", ".html"):
                assert data.rstrip().endswith((b"</svg>", b"</html>"))
            elif p.suffix == ".png":
                assert data.endswith(b"IEND\xaeB`\x82")
            elif p.suffix in (".mat", ".sgf") and "in." not in p.name:
                assert _decisions(p, timeout)[0] == 0
        except Exception as e:  # noqa: BLE001 (any failure to read is the finding)
            bad.append(f"{p.relative_to(folder)} is not whole: {type(e).__name__}")
    return bad


def check_write_case(case: WriteCase, folder: Path, timeout: float = 60.0) -> Outcome:  # noqa: C901, PLR0912, PLR0915
    """Run write case ``case`` in ``folder`` and check its invariants: no traceback or hang; a write that
    fails is one error line naming the path, exit 2; what is written reads back to the input's decisions; the
    user's files are never replaced or written through; nothing is written outside the output; no cut or
    temporary file is left."""
    import os
    import shutil

    out = Outcome(case.seed, case.kind)

    def fail(invariant: str, command: str, detail: str) -> None:
        out.failures.append(Failure(invariant, case.seed, case.kind, command, detail))

    src = folder / f"in{case.suffix}"
    src.write_bytes(case.data())
    _, want = _decisions(src, timeout)

    def cli(name: str, args: list[str]) -> Run | None:
        return _checked_cli(out, fail, name, args, timeout, internal_error=False)

    if case.kind == "hostile_name":
        refusable = any(_BREAKS.search(n) or len(n) > 4000 for n in (*case.names, case.event, case.date))
        for to in ("mat", "sgf"):
            dest = folder / f"out.{to}"
            run = cli(f"convert-{to}", ["convert", str(src), "--to", to, "-o", str(dest)])
            if run is None:
                continue
            if run.code == 0:
                code, got = _decisions(dest, timeout)
                if code != 0 or got != want:
                    at = next((i for i, (x, y) in enumerate(zip(got, want, strict=False)) if x != y), "-")
                    fail("round_trip", f"convert-{to}", f"exit {code}, {len(got)} decisions for {len(want)}, "
                         f"first difference at {at}")
            elif not (to == "mat" and refusable and run.code == 2):
                fail("exit", f"convert-{to}", f"exit {run.code}: {run.stderr[:200]!r}")
            elif dest.exists():
                fail("partial", f"convert-{to}", "a refused conversion left its output")
        sgf = folder / "review.sgf"
        run = cli("analyze-sgf", ["analyze", str(src), "--out", str(folder / "rev"), "--sgf", str(sgf), *_FAST])
        if run is not None:
            if run.code != 0:
                fail("exit", "analyze-sgf", f"exit {run.code}: {run.stderr[:200]!r}")
            else:
                code, got = _decisions(sgf, timeout)
                if code != 0 or got != want:
                    fail("round_trip", "analyze-sgf", f"exit {code}, {len(got)} of {len(want)} decisions")
    elif case.kind == "onto_input":
        before = src.read_bytes()
        links = {"same": src, "link": folder / "link.mat", "hard": folder / "hard.mat"}
        links["link"].symlink_to(src)
        os.link(src, links["hard"])
        for how, target in links.items():
            for name, args in ((f"convert-{how}", ["convert", str(src), "--to", "mat", "-o", str(target)]),
                               (f"analyze-sgf-{how}", ["analyze", str(src), "--out", str(folder / "rev"), "--sgf",
                                                       str(target), *_FAST])):
                run = cli(name, args)
                if run is not None and run.code != 2:
                    fail("exit", name, f"exit {run.code} writing onto the input")
                elif run is not None and (why := _one_line(run, target)):
                    fail("message", name, why)
                if src.read_bytes() != before:
                    fail("user_data", name, "the input was changed")
                    src.write_bytes(before)
    elif case.kind == "planted_link":
        rev = folder / "rev"
        rev.mkdir()
        victims = {}
        for name in ("report.html", "summary.json", "decisions.csv", "decisions.parquet", "luck.svg", "luck.png"):
            victims[name] = folder / f"victim-{name}"
            victims[name].write_text("precious")
            (rev / name).symlink_to(victims[name])
        run = cli("analyze", ["analyze", str(src), "--out", str(rev), *_FAST])
        if run is not None and run.code != 0:
            fail("exit", "analyze", f"exit {run.code}: {run.stderr[:200]!r}")
        for name, victim in victims.items():
            if victim.read_text() != "precious":
                fail("user_data", "analyze", f"wrote through the link {name}")
        dest = folder / "conv.mat"
        victim = folder / "victim-conv"
        victim.write_text("precious")
        dest.symlink_to(victim)
        cli("convert", ["convert", str(src), "--to", "mat", "-o", str(dest)])
        if victim.read_text() != "precious":
            fail("user_data", "convert", "wrote through the link")
    elif case.kind == "dots_stem":
        work = folder / "work"
        work.mkdir()
        dots = folder / f"...{case.suffix.lstrip('.')}"
        shutil.copyfile(src, dots)
        cwd = Path.cwd()
        os.chdir(work)
        try:
            for name, args in (("analyze-out", ["analyze", str(dots), "--out", "o", *_FAST]),
                               ("analyze-default", ["analyze", str(dots), *_FAST])):
                run = cli(name, args)
                if run is not None and run.code != 0:
                    fail("exit", name, f"exit {run.code}: {run.stderr[:200]!r}")
        finally:
            os.chdir(cwd)
        outside = sorted(p.name for p in work.iterdir() if p.name not in ("o", "reports"))
        outside += sorted(p.name for p in folder.iterdir() if p.name not in (src.name, dots.name, "work"))
        if outside:
            fail("outside", "analyze", f"written outside --out: {outside}")
    elif case.kind in ("read_only", "full_disk"):
        where = folder / "disk"
        where.mkdir()
        options = ("ro",) if case.kind == "read_only" else ("tmpfs", "size=64k")
        with mounted(where, *options) as ok:
            if not ok:
                out.exits["skipped"] = 0
                return out
            if case.kind == "full_disk":
                rng = random.Random(case.seed)
                (where / "filler").write_bytes(b"\0" * rng.randrange(0, 60 * 1024))
                old = where / "old.mat"
                with suppress(OSError):
                    old.write_bytes(src.read_bytes())
            commands = [("convert", ["convert", str(src), "--to", "mat", "-o", str(where / "old.mat")]),
                        ("analyze", ["analyze", str(src), "--out", str(where / "rev"), *_FAST]),
                        ("analyze-sgf", ["analyze", str(src), "--out", str(folder / "rev"), "--no-html", "--sgf",
                                         str(where / "r.sgf"), *_FAST]),
                        ("batch", ["batch", str(src), "--out", str(where / "b"), "--replay-only", "--jobs", "1",
                                   "--no-progress"])]
            for name, args in commands:
                run = cli(name, args)
                if run is None:
                    continue
                if case.kind == "read_only" and run.code != 2:
                    fail("exit", name, f"exit {run.code} writing into a read-only folder")
                if run.code == 2 and (why := _one_line(run, where)):
                    fail("message", name, why)
                if run.code == 1:
                    fail("exit", name, f"exit 1: {run.stderr[:200]!r}")
            for bad in _whole(where, timeout, skip=("filler",)):
                fail("partial", "all", bad)
    else:
        raise ValueError(f"unknown write kind {case.kind!r}")
    return out


def _write_one(args: tuple[int, float]) -> Outcome:
    seed, timeout = args
    with tempfile.TemporaryDirectory(prefix="fuzz-write-") as tmp:
        return check_write_case(make_write_case(seed), Path(tmp), timeout)


# ------------------------------------------------------------------------------------------ special inputs (issue 55)
SPECIAL_KINDS = ("fifo", "dev_zero", "folder_named_mat", "unreadable_folder", "xg_archive")
"""The special-input cases (``--specials N``): a FIFO and ``/dev/zero`` (a link to it) named like a match
file, a folder named ``.mat``, a sub-folder that cannot be listed (a ``PermissionError`` from
``os.scandir``, injected in-process: root reads anything) and multi-entry XG archives (up to 64 entries,
names repeated, sizes declared up to the per-entry cap)."""

SPECIAL_INVARIANTS = ("traceback", "hang", "exit", "message", "memory")
_SPECIAL_SUFFIXES = (".mat", ".txt", ".sgf", ".xg", ".gam")
_XG_NAMES = ("temp.xg", "temp.xgi", "temp.xgr", "temp.xgc", "temp.xg", "TEMP.XG", "", "x" * 255, "../temp.xg")
MEMORY_CEILING = 2 << 30
"""The most a fuzzing process may hold at its peak (its maximum resident size) after a special case."""


@dataclass(frozen=True)
class SpecialCase:
    """One special-input case: ``kind``, the suffix of the special file's name, and what else the seed drew."""

    seed: int
    kind: str
    suffix: str
    detail: str = ""


def make_special_case(seed: int, kind: str | None = None) -> SpecialCase:
    """Special case number ``seed``: kind ``SPECIAL_KINDS[seed % len(SPECIAL_KINDS)]`` (or ``kind``)."""
    rng = random.Random(f"special/{seed}")
    kind = kind or SPECIAL_KINDS[seed % len(SPECIAL_KINDS)]
    suffix = ".xg" if kind == "xg_archive" else rng.choice(_SPECIAL_SUFFIXES)
    return SpecialCase(seed, kind, suffix, rng.choice(("bomb", "entries", "entries", "duplicates"))
                       if kind == "xg_archive" else "")


def xg_archive(seed: int, style: str) -> bytes:
    """An ``.xg`` file (the header of ``tests/data/xg/example.xg``) whose archive holds entries drawn by the
    seed: ``bomb``: up to 64 entries that each declare the per-entry cap (the data stored is small, so the
    sizes lie: a reader must refuse before it inflates); ``entries``/``duplicates``: real zlib entries of up
    to 1 MiB each, names drawn from XG's and odd ones (repeated with ``duplicates``), CRCs valid."""
    import struct
    import zlib

    rng = random.Random(f"xg/{seed}")
    example = (ROOT / "tests" / "data" / "xg" / "example.xg").read_bytes()
    head = example[:8232]
    count = rng.randint(1, 64)
    cap = 256 << 20
    data, registry = b"", b""
    for _ in range(count):
        if style == "bomb":
            name, content = "temp.xg", b"\0" * 2560
            blob = zlib.compress(content)
            osize, crc = rng.choice((cap, cap - 1, cap // 2, len(content))), zlib.crc32(content)
        else:
            name = "temp.xg" if style == "duplicates" else rng.choice(_XG_NAMES)
            content = rng.choice((b"\0" * rng.randrange(0, 1 << 20), rng.randbytes(rng.randrange(0, 9000)),
                                  b"\0" * 2560 * rng.randint(1, 8)))
            blob = zlib.compress(content, 1)
            osize, crc = len(content), zlib.crc32(content)
        entry = bytearray(532)
        raw = name.encode("latin-1")[:255]
        entry[0], entry[1:1 + len(raw)] = len(raw), raw
        struct.pack_into("<iiiIBB", entry, 512, osize, len(blob), len(data), crc, 0, 6)
        registry += bytes(entry)
        data += blob
    packed = zlib.compress(registry)
    trailer = struct.pack("<Iiiiii", zlib.crc32(data + packed), count, 1, len(packed), len(data), 1)
    return head + data + packed + trailer + b"\0" * 12


@contextmanager
def _unlistable(folder: Path) -> Iterator[None]:
    """``os.scandir`` of ``folder`` raises ``PermissionError`` (as for a user without the right) meanwhile."""
    import os

    real = os.scandir

    def scandir(path: Any = ".") -> Any:
        if os.path.abspath(path) == str(folder):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    os.scandir = scandir  # type: ignore[assignment]
    try:
        yield
    finally:
        os.scandir = real


def _peak_rss() -> int:
    """The largest resident size this process, or any child of it that has ended (the pool's workers, once the
    pool is closed), reached."""
    import resource

    peak = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return peak if sys.platform == "darwin" else peak * 1024


def check_special_case(case: SpecialCase, folder: Path, timeout: float = 30.0) -> Outcome:  # noqa: C901, PLR0912, PLR0915
    """Run special case ``case`` in ``folder`` and check its invariants: no traceback or hang; a file that is
    not a regular file (or cannot be read) is refused with one error line naming it, exit 2; in a folder
    walk (``replay``, ``batch``) it is reported and the other files are read (exit 1); an unlistable folder
    is named; no process grows past :data:`MEMORY_CEILING`."""
    import os
    import shutil

    import polars as pl

    out = Outcome(case.seed, case.kind)

    def fail(invariant: str, command: str, detail: str) -> None:
        out.failures.append(Failure(invariant, case.seed, case.kind, command, detail))

    def cli(name: str, args: list[str]) -> Run | None:
        return _checked_cli(out, fail, name, args, timeout, internal_error=True)

    def refused(name: str, args: list[str], target: Path, why: str) -> None:
        run = cli(name, args)
        if run is None:
            return
        if run.code != 2:
            fail("exit", name, f"exit {run.code}, not 2: {run.stderr[:200]!r}")
        lines = error_lines(run.stderr)
        if len(lines) != 1 or not lines[0].startswith(f"error: {target}") or why not in lines[0]:
            fail("message", name, f"{len(lines)} error lines: {run.stderr[:200]!r}")

    walk = folder / "walk"
    walk.mkdir()
    good = walk / "a-good.mat"
    shutil.copyfile(ROOT / "tests" / "data" / "corpus" / "gnubgparser" / "gnubg_roll_then_resign_1p.mat", good)
    special = walk / f"special{case.suffix}"
    if case.kind in ("fifo", "dev_zero", "folder_named_mat"):
        if case.kind == "fifo":
            if not hasattr(os, "mkfifo"):
                out.exits["skipped"] = 0
                return out
            os.mkfifo(special)
            why = "not a regular file (a FIFO)"
        elif case.kind == "dev_zero":
            special.symlink_to("/dev/zero")
            why = "not a regular file (a character device)"
        else:
            special.mkdir()
            why = "not a regular file (a folder)"
        direct: list[tuple[str, list[str]]] = [
            ("analyze", ["analyze", str(special), "--out", str(folder / "rev"), *_FAST]),
            ("convert", ["convert", str(special), "--to", "mat", "-o", str(folder / "c.mat")]),
            ("play-resume", ["play", "--resume", str(special), "--no-review"]),
            ("report-aliases", ["report", str(folder), "--aliases", str(special)]),
        ]
        if case.kind != "folder_named_mat":  # a folder named like a match file is walked by replay
            direct.append(("replay", ["replay", str(special), "--no-progress"]))
        for name, args in direct:
            refused(name, args, special, "not a regular file" if name == "report-aliases" else why)
        if case.kind == "dev_zero":
            refused("moves-batch", ["moves", "--batch", str(special)], special, "line longer than")
        run = cli("replay-walk", ["replay", str(walk), "--format", "jsonl", "--no-progress"])
        expect = 0 if case.kind == "folder_named_mat" else 1  # an (empty) folder in the walk is walked
        if run is not None and run.code != expect:
            fail("exit", "replay-walk", f"exit {run.code}, not {expect}: {run.stderr[:200]!r}")
        if run is not None and not _rows(run.stdout):
            fail("exit", "replay-walk", "the good file beside the special one was not replayed")
        dest = folder / "batch-out"
        run = cli("batch-walk", ["batch", str(walk), "--out", str(dest), "--replay-only", "--jobs", "1",
                                 "--no-progress"])
        if run is not None and run.code == expect and (dest / "errors.parquet").exists():
            errors = pl.read_parquet(dest / "errors.parquet")
            if expect and str(special) not in errors["file"].to_list():
                fail("message", "batch-walk", f"no error row names {special}")
        elif run is not None:
            fail("exit", "batch-walk", f"exit {run.code}, not {expect}: {run.stderr[:200]!r}")
    elif case.kind == "unreadable_folder":
        locked = walk / "locked"
        locked.mkdir()
        shutil.copyfile(good, locked / f"b{case.suffix if case.suffix != '.xg' else '.mat'}")
        with _unlistable(locked):
            run = cli("replay-walk", ["replay", str(walk), "--format", "jsonl", "--no-progress"])
            if run is not None:
                named = [x for x in error_lines(run.stderr) if x.startswith(f"error: {locked}: cannot read the folder")]
                if run.code != 1 or not named:
                    fail("message", "replay-walk", f"exit {run.code}; the folder is not named: {run.stderr[:200]!r}")
            dest = folder / "batch-out"
            run = cli("batch-walk", ["batch", str(walk), "--out", str(dest), "--replay-only", "--jobs", "1",
                                     "--no-progress"])
            if run is not None:
                files = pl.read_parquet(dest / "errors.parquet")["file"].to_list() if run.code == 1 else []
                if str(locked) not in files:
                    fail("message", "batch-walk", f"exit {run.code}; no error row names {locked}")
    elif case.kind == "xg_archive":
        special.write_bytes(xg_archive(case.seed, case.detail))
        for name, args in (("replay", ["replay", str(special), "--no-progress"]),
                           ("analyze", ["analyze", str(special), "--out", str(folder / "rev"), *_FAST]),
                           ("convert", ["convert", str(special), "--to", "mat", "-o", str(folder / "c.mat")]),
                           ("show", ["show", str(special)])):
            # no game file in these archives (the example's holds none): one error line naming the file
            refused(name, args, special, "")
    else:
        raise ValueError(f"unknown special kind {case.kind!r}")
    if _peak_rss() > MEMORY_CEILING:
        fail("memory", "all", f"peak resident size {_peak_rss() >> 20} MiB")
    return out


def _special_one(args: tuple[int, float]) -> Outcome:
    seed, timeout = args
    with tempfile.TemporaryDirectory(prefix="fuzz-special-") as tmp:
        return check_special_case(make_special_case(seed), Path(tmp), timeout)


def report_specials(outcomes: list[Outcome], seconds: float, show: int) -> None:
    """The special cases: how many of each kind, the exit codes of each command, the failures by invariant."""
    ran = [o for o in outcomes if "skipped" not in o.exits]
    kinds = Counter(o.kind for o in ran)
    commands = sum(len(o.exits) for o in ran)
    print(f"\n{len(outcomes)} special cases ({len(ran)} ran, {commands} commands), {seconds:.0f} s, "
          f"peak resident size {_peak_rss() >> 20} MiB")
    print("special cases by kind: " + ", ".join(f"{k} {kinds[k]}" for k in SPECIAL_KINDS))
    _exits_and_failures(ran, "special", SPECIAL_INVARIANTS, show)


# ------------------------------------------------------------------------------------------ driver
def _one(args: tuple[int, float]) -> Outcome:
    seed, timeout = args
    with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
        m = make_mutant(seed, corpus_sources(_CORPUS[0]))
        return check_mutant(m, Path(tmp), timeout)


_CORPUS = [CORPUS]


def _init(corpus: Path) -> None:
    _CORPUS[0] = corpus


def _batch_group(args: tuple[list[int], float]) -> Outcome:
    seeds, timeout = args
    sources = corpus_sources(_CORPUS[0])
    with tempfile.TemporaryDirectory(prefix="fuzz-batch-") as tmp:
        folder = Path(tmp)
        mutants = [make_mutant(s, sources) for s in seeds]
        for m in mutants:
            (folder / m.name).write_bytes(m.data)
        exits = {}
        for m in mutants:
            with suppress(Hang):
                exits[m.seed] = run_cli(["replay", str(folder / m.name), "--format", "jsonl", "--no-progress"],
                                        timeout).code
        return check_batch(mutants, folder, exits, timeout * 4)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mutants", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--batch-every", type=int, default=50, help="mutants per batch folder (0: no batch runs)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds one command may run")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--keep", type=Path, help="write the mutants into this folder")
    ap.add_argument("--show", type=int, default=5, help="seeds shown per invariant and command")
    ap.add_argument("--writes", type=int, default=0, help="write cases (issue 55: WRITE_KINDS, taken in turn)")
    ap.add_argument("--write-seed", type=int, default=1)
    ap.add_argument("--specials", type=int, default=0,
                    help="special-input cases (issue 55: SPECIAL_KINDS, taken in turn)")
    ap.add_argument("--special-seed", type=int, default=1)
    a = ap.parse_args(argv)
    sources = corpus_sources(a.corpus)
    seeds = list(range(a.seed, a.seed + a.mutants))
    if a.keep:
        a.keep.mkdir(parents=True, exist_ok=True)
        for s in seeds:
            m = make_mutant(s, sources)
            (a.keep / m.name).write_bytes(m.data)
            print(f"{a.keep / m.name}: from {m.source}, {m.kind} {m.note}, {expected_games(m.data, m.suffix)} games")
    t0 = time.perf_counter()
    groups = [seeds[i:i + a.batch_every] for i in range(0, len(seeds), a.batch_every)] if a.batch_every else []
    ctx = get_context("spawn")
    with ctx.Pool(a.jobs, initializer=_init, initargs=(a.corpus,)) as pool:
        outcomes = list(pool.imap_unordered(_one, [(s, a.timeout) for s in seeds], chunksize=4))
        batches = list(pool.imap_unordered(_batch_group, [(g, a.timeout) for g in groups]))
        t1 = time.perf_counter()
        writes = list(pool.imap_unordered(_write_one, [(s, a.timeout * 2) for s in
                                                       range(a.write_seed, a.write_seed + a.writes)]))
        t2 = time.perf_counter()
        specials = list(pool.imap_unordered(_special_one, [(s, a.timeout) for s in
                                                           range(a.special_seed, a.special_seed + a.specials)]))
    if seeds:
        report(outcomes, batches, t1 - t0, a.show)
    if writes:
        report_writes(writes, t2 - t1, a.show)
    if specials:
        report_specials(specials, time.perf_counter() - t2, a.show)
    return 1 if any(o.failures for o in [*outcomes, *batches, *writes, *specials]) else 0


def report_writes(outcomes: list[Outcome], seconds: float, show: int) -> None:
    """The write cases: how many of each kind ran (and were skipped: no mount allowed), the exit codes of
    each command, the failures by invariant with a few seeds each."""
    ran = [o for o in outcomes if "skipped" not in o.exits]
    kinds, skipped = Counter(o.kind for o in ran), Counter(o.kind for o in outcomes if "skipped" in o.exits)
    commands = sum(len(o.exits) for o in ran)
    print(f"\n{len(outcomes)} write cases ({len(ran)} ran, {commands} commands), {seconds:.0f} s")
    print("write cases by kind: " + ", ".join(f"{k} {kinds[k]}" + (f" (+{skipped[k]} skipped)" if skipped[k] else "")
                                             for k in WRITE_KINDS))
    _exits_and_failures(ran, "write", WRITE_INVARIANTS, show)


def _checked_cli(out: Outcome, fail: Callable[[str, str, str], None], name: str, args: list[str], timeout: float,
                 *, internal_error: bool) -> Run | None:
    """Run one command of a write or special case: a hang, a traceback (or, with ``internal_error``, an
    "internal error" line) and an exit code outside 0-2 are failures; the exit code is recorded."""
    try:
        run = run_cli(args, timeout)
    except Hang as e:
        fail("hang", name, str(e))
        return None
    out.exits[name] = run.code
    if run.crash or "Traceback" in run.stderr or (internal_error and "internal error" in run.stderr):
        fail("traceback", name, run.crash or run.stderr[-300:])
    if run.code not in (0, 1, 2):
        fail("exit", name, f"exit code {run.code}")
    return run


def _exits_and_failures(ran: list[Outcome], what: str, invariants: Sequence[str], show: int) -> None:
    """Print the exit codes of each kind's commands and the failures by invariant (``what``: special or write)."""
    exits: dict[str, Counter[int]] = {}
    for o in ran:
        for cmd, code in o.exits.items():
            exits.setdefault(f"{o.kind}/{cmd}", Counter())[code] += 1
    for cmd, counter in sorted(exits.items()):
        print(f"exit codes of {cmd}: " + ", ".join(f"{c}: {n}" for c, n in sorted(counter.items())))
    failures = [f for o in ran for f in o.failures]
    by_inv = Counter(f.invariant for f in failures)
    print(f"{what} failures by invariant: " + ", ".join(f"{i} {by_inv[i]}" for i in invariants))
    print(f"{what} cases with a failure: {sum(1 for o in ran if o.failures)}")
    groups: dict[tuple[str, str], list[Failure]] = {}
    for f in sorted(failures, key=lambda f: f.seed):
        groups.setdefault((f.invariant, f.command), []).append(f)
    for (inv, cmd), fs in sorted(groups.items()):
        print(f"\n{inv} / {cmd}: {len(fs)}")
        for f in fs[:show]:
            print(f"  {f}")


def report(outcomes: list[Outcome], batches: list[Outcome], seconds: float, show: int) -> None:
    kinds = Counter(o.kind for o in outcomes)
    print(f"{len(outcomes)} mutants, {len(batches)} batch runs, {seconds:.0f} s")
    print("mutants by kind: " + ", ".join(f"{k} {kinds[k]}" for k in KINDS if kinds[k]))
    exits: dict[str, Counter[int]] = {}
    for o in [*outcomes, *batches]:
        for cmd, code in o.exits.items():
            exits.setdefault(cmd, Counter())[code] += 1
    for cmd, counter in exits.items():
        print(f"exit codes of {cmd}: " + ", ".join(f"{c}: {n}" for c, n in sorted(counter.items())))
    failures = [f for o in [*outcomes, *batches] for f in o.failures]
    by_inv = Counter(f.invariant for f in failures)
    print("failures by invariant: " + ", ".join(f"{i} {by_inv[i]}" for i in INVARIANTS))
    print(f"mutants with a failure: {sum(1 for o in outcomes if o.failures)}; "
          f"batch runs with a failure: {sum(1 for o in batches if o.failures)}")
    groups: dict[tuple[str, str], list[Failure]] = {}
    for f in sorted(failures, key=lambda f: f.seed):
        groups.setdefault((f.invariant, f.command), []).append(f)
    for (inv, cmd), fs in sorted(groups.items()):
        kinds_here = Counter(f.kind for f in fs)
        print(f"\n{inv} / {cmd}: {len(fs)} ({', '.join(f'{k} {n}' for k, n in kinds_here.most_common())})")
        for f in fs[:show]:
            print(f"  {f}")


if __name__ == "__main__":
    sys.exit(main())
