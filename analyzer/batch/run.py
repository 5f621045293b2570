"""Run a batch: walk the inputs, hand the work units to workers, gather, rebuild the tables.

Workers run in this process (``jobs=1``), in a local :class:`~concurrent.futures.ProcessPoolExecutor`
(the default, one worker per core), on an existing Dask distributed cluster (``scheduler``, e.g.
``"tcp://host:8786"``) or on a local Dask cluster started for the run (``scheduler="local"``, ``jobs``
workers). Each worker processes whole files and writes its own part files into the dataset
folder (with Dask that folder must be reachable from the workers under the same path).

``resume=True`` continues an interrupted run in the same folder: units whose marker is in place
for the same input version are skipped, and inside an unfinished unit every match whose part file
is in place is skipped. Without ``resume`` the dataset files of an earlier run are removed first. A run
writes only into a new or empty folder or a dataset (marked by ``.bgreview-dataset``; a dataset from before
the mark is recognised by its manifest and its file names): a folder of other files is refused.

One run at a time writes into a dataset folder: a run holds an OS lock on
``<out>/.bgreview-batch.lock`` (with Dask, the client process holds it) and a second run into the
same folder is refused with a :class:`BatchError` naming the holder. The kernel releases the lock
when its holder dies, so a killed run never blocks the next one or its ``--resume``.

>>> import tempfile
>>> from pathlib import Path
>>> text = " 3 point match\\n Game 1\\n ann : 0      bob : 0\\n  1) 31: 8/5 6/5   42: 8/4 6/4\\n"
>>> with tempfile.TemporaryDirectory() as tmp:
...     src = Path(tmp, "m.mat")
...     _ = src.write_text(text)
...     r = run_batch([str(src)], Path(tmp, "out"), options=BatchOptions(replay_only=True), jobs=1)
...     (r.files, r.matches, r.decisions, r.errors, r.ok)
(1, 1, 2, 0, True)
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib.util
import multiprocessing
import os
import re
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from analyzer._version import ENGINE_NAME, __version__
from analyzer.core.errors import AnalyzerError
from analyzer.eval.engine import DEFAULT_NETS
from analyzer.eval.trials import usable_cores
from analyzer.formats import expand_inputs

from .layout import (
    DECISIONS_DIR,
    ERRORS_TABLE,
    HOLDER_FILE,
    LOCK_FILE,
    MANIFEST,
    MATCHES_TABLE,
    PLAYERS_TABLE,
    UNITS_DIR,
    atomic_write_json,
    check_dataset_folder,
    read_json,
    read_part_meta,
    remove_temporaries,
    write_dataset_mark,
)
from .tables import Tables, rebuild_tables, write_tables
from .units import (
    BatchOptions,
    Unit,
    UnitResult,
    error_row,
    init_pool_worker,
    make_unit,
    prepare_folders,
    process_unit,
    set_engine_threads,
    unit_done,
    worker_threads,
)

__all__ = ["DEFAULT_OUT", "LOCAL_SCHEDULER", "BatchError", "BatchProgress", "BatchResult", "ProgressCallback",
           "run_batch"]

DEFAULT_OUT = Path("reports") / "batch"
MANIFEST_VERSION = 1
MANIFEST_EVERY_S = 5.0
POOL_STARTS = 3
"""How many process pools a run starts at most: a pool breaks when one of its workers dies."""


class BatchError(AnalyzerError, ValueError):
    """A batch that cannot start: a resume with other options, no inputs, ..."""


@dataclass(frozen=True, slots=True)
class BatchProgress:
    """Where a run stands: files (units) and their bytes done of the total, matches finished in
    this run, and the input being worked on (in-process runs) or just finished."""

    files_done: int
    files_total: int
    matches_done: int
    bytes_done: int
    bytes_total: int
    current: str


ProgressCallback = Callable[[BatchProgress], None]


@dataclass(frozen=True)
class BatchResult:
    """The outcome of a run: ``files`` inputs (``files_skipped`` of them already done before a
    resume), the rows of the tables, the match parts written by this run (``written``; the
    others were done before a resume), the number of error rows and of inputs with errors."""

    out: Path
    files: int
    files_skipped: int
    matches: int
    written: int
    decisions: int
    errors: int
    failed_files: int
    seconds: float
    tables: Tables = field(repr=False)

    @property
    def ok(self) -> bool:
        """True when no input failed (the CLI's exit code 0)."""
        return self.errors == 0


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _clear(out: Path) -> None:
    """Remove the dataset files of an earlier run (only files this module writes)."""
    for sub, suffixes in ((DECISIONS_DIR, (".parquet", ".tmp")), (UNITS_DIR, (".json", ".tmp"))):
        folder = out / sub
        if folder.is_dir():
            for p in folder.iterdir():
                if p.is_file() and p.name.endswith(suffixes):
                    p.unlink()
    for name in (MATCHES_TABLE, PLAYERS_TABLE, ERRORS_TABLE):
        for ext in (".parquet", ".csv"):
            (out / f"{name}{ext}").unlink(missing_ok=True)
    (out / MANIFEST).unlink(missing_ok=True)


_PART = re.compile(r"(?P<unit>.+)\.m(?P<index>\d+)\.parquet")


def _prune(out: Path, units: list[Unit]) -> None:
    """Remove the parts and markers that are not part of this dataset: inputs no longer given
    (a resume with fewer paths) and matches beyond the end of an input that got shorter."""
    counts: dict[str, int] = {}
    for u in units:
        marker = read_json(out / UNITS_DIR / f"{u.unit}.json")
        counts[u.unit] = int((marker or {}).get("matches") or 0)
    for p in (out / DECISIONS_DIR).iterdir():
        m = _PART.fullmatch(p.name)
        if m is not None and int(m.group("index")) >= counts.get(m.group("unit"), 0):
            p.unlink()
    for p in (out / UNITS_DIR).iterdir():
        if p.suffix == ".json" and p.stem not in counts:
            p.unlink()


class _Manifest:
    """The manifest: written at the start, every few seconds while running, and at the end."""

    def __init__(self, out: Path, units: list[Unit], options: BatchOptions, started: str) -> None:
        self.path = out / MANIFEST
        self.units = units
        self.status: dict[str, dict[str, Any]] = {u.unit: {"status": "pending"} for u in units}
        self.head: dict[str, Any] = {
            "manifest_version": MANIFEST_VERSION, "tool": "bgreview batch", "version": __version__,
            "engine": ENGINE_NAME, "engine_version": __version__, "evaluator": None,
            "options": options.as_dict(), "seed": options.seed, "started": started, "finished": None,
            "state": "running",
        }
        self.last = 0.0

    def set(self, unit: str, **info: Any) -> None:
        self.status[unit] = info

    def write(self, *, force: bool = False, **head: Any) -> None:
        self.head.update(head)
        now = time.monotonic()
        if not force and now - self.last < MANIFEST_EVERY_S:
            return
        self.last = now
        inputs = [{**u.stamp(), "unit": u.unit, **self.status[u.unit]} for u in self.units]
        atomic_write_json(self.path, {**self.head, "inputs": inputs})


def evaluator_fingerprint(options: BatchOptions) -> str | None:
    """What identifies the evaluator of an analysis run: the SHA-1 of the default nets file
    (``None`` for ``--replay-only``). A resume is refused when it changed."""
    if options.replay_only:
        return None

    try:
        return hashlib.sha1(Path(DEFAULT_NETS).read_bytes()).hexdigest()
    except OSError:
        return None


def _check_resume(out: Path, options: BatchOptions, fingerprint: str | None) -> dict[str, Any] | None:
    old = read_json(out / MANIFEST)
    if old is None:
        return None
    if {**BatchOptions().as_dict(), **(old.get("options") or {})} != options.as_dict():  # older runs: defaults
        raise BatchError(f"cannot resume: {out} was started with options {old.get('options')}, "
                         f"not {options.as_dict()}")
    if old.get("evaluator_fingerprint") != fingerprint:
        raise BatchError(f"cannot resume: the evaluator's nets changed since {out} was started; "
                         "run again without --resume")
    return old


@contextmanager
def _exclusive(out: Path) -> Iterator[None]:
    """Hold the folder's lock for the duration of a run, or raise :class:`BatchError` naming the
    run that holds it. The holder's pid, host and start go to :data:`HOLDER_FILE` for that message."""
    out.mkdir(parents=True, exist_ok=True)
    lock = FileLock(out / LOCK_FILE, timeout=0)
    try:
        lock.acquire()
    except Timeout:
        holder = read_json(out / HOLDER_FILE) or {}
        who = (f" (pid {holder.get('pid')} on {holder.get('host')}, started {holder.get('started')})"
               if holder else "")
        raise BatchError(f"{out}: another bgreview batch run{who} is writing into this folder; wait for it to "
                         "end or choose another --out") from None
    try:
        atomic_write_json(out / HOLDER_FILE, {"pid": os.getpid(), "host": socket.gethostname(), "started": _now()})
        yield
    finally:
        lock.release()


def _inline(units: list[Unit], out: str, options: BatchOptions,
            on_match: Callable[[Unit, int], None]) -> Iterator[tuple[Unit, UnitResult | BaseException]]:
    for u in units:
        def hook(n: int, u: Unit = u) -> None:
            on_match(u, n)
        try:
            yield u, process_unit(u, out, options, hook)
        except Exception as e:  # recorded as a crashed unit, retried by --resume
            yield u, e


def _pool(units: list[Unit], out: str, options: BatchOptions,
          jobs: int) -> Iterator[tuple[Unit, UnitResult | BaseException]]:
    """Units through a spawned process pool. When a worker dies, the pool breaks and every unit
    not finished yet goes to a fresh pool (at most :data:`POOL_STARTS` pools); what is left after
    the last one is reported as crashed."""
    ctx = multiprocessing.get_context("spawn")
    left = list(units)
    for start in range(POOL_STARTS):
        pool = ProcessPoolExecutor(max_workers=min(jobs, len(left)), mp_context=ctx,
                                   initializer=init_pool_worker, initargs=(worker_threads(jobs),))
        broken: list[Unit] = []
        try:
            futures: dict[Future[UnitResult], Unit] = {pool.submit(process_unit, u, out, options): u for u in left}
            for fut in as_completed(futures):
                exc = fut.exception()
                if isinstance(exc, BrokenProcessPool) and start + 1 < POOL_STARTS:
                    broken.append(futures[fut])
                    continue
                yield futures[fut], exc if exc is not None else fut.result()
        except BaseException:  # Ctrl-C, or the caller stopped: end the workers' units now
            _stop_workers(pool)
            raise
        finally:  # interrupted: drop the queued units at once (the finished ones are on disk)
            pool.shutdown(wait=False, cancel_futures=True)
        if not broken:
            return
        left = sorted(broken, key=units.index)


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Terminate the worker processes of ``pool`` (whatever unit they are in: a unit counts as
    done only once its marker is written, so ``--resume`` redoes it). The executor keeps them in
    a private mapping; without it, shutting the pool down still drops the queued units."""
    procs: dict[int, Any] = getattr(pool, "_processes", None) or {}
    for proc in list(procs.values()):
        with suppress(Exception):
            proc.terminate()


def _need_dask() -> None:
    """Raise :class:`BatchError` unless Dask's ``distributed`` is installed (the ``cluster`` extra)."""
    if importlib.util.find_spec("distributed") is None:
        raise BatchError("--scheduler runs on a Dask cluster, and Dask is not installed: "
                         "pip install 'bgreview[cluster]'")


def _dask(units: list[Unit], out: str, options: BatchOptions, scheduler: str,
          jobs: int) -> Iterator[tuple[Unit, UnitResult | BaseException]]:
    """Units on a Dask cluster: the one at ``scheduler``, or with :data:`LOCAL_SCHEDULER` a
    local cluster of ``jobs`` single-threaded worker processes started for this run."""
    from distributed import Client  # an optional extra (cluster): imported only for --scheduler
    from distributed import as_completed as dask_completed

    with ExitStack() as stack:
        if scheduler == LOCAL_SCHEDULER:
            from distributed import LocalCluster

            cluster = stack.enter_context(LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=min(jobs, len(units)), threads_per_worker=1, processes=True, dashboard_address=None,
                host="127.0.0.1"))
            address = cluster.scheduler_address
        else:
            address = scheduler
        client = stack.enter_context(Client(address))  # type: ignore[no-untyped-call]
        if scheduler == LOCAL_SCHEDULER:  # its workers share this machine's cores
            client.run(set_engine_threads, worker_threads(jobs))
        futures = {client.submit(process_unit, u, out, options, pure=False): u for u in units}
        for fut in dask_completed(list(futures)):  # type: ignore[no-untyped-call]
            try:
                res: UnitResult | BaseException = fut.result()
            except Exception as e:  # recorded as a crashed unit, retried by --resume
                res = e
            yield futures[fut], res


LOCAL_SCHEDULER = "local"
"""The ``scheduler`` that starts a local Dask cluster (one worker process per job) for the run."""


def run_batch(paths: Sequence[str], out_dir: str | os.PathLike[str] = DEFAULT_OUT, *,
              options: BatchOptions | None = None, jobs: int | None = None, scheduler: str | None = None,
              resume: bool = False, progress: ProgressCallback | None = None) -> BatchResult:
    """Replay or analyse every match of ``paths`` (files, folders, globs) into the dataset
    folder ``out_dir`` (see the module docstring). ``jobs`` defaults to the number of cores.

    Raises :class:`BatchError` when a resume would mix options, there is nothing to do or another
    run is writing into ``out_dir``, :class:`~analyzer.core.files.OutputError` when ``out_dir`` is a folder
    of other files (not a dataset; see :func:`~analyzer.batch.layout.check_dataset_folder`) or cannot be
    written, and :class:`~analyzer.core.errors.InputError` for a path that names nothing.
    """
    t0 = time.perf_counter()
    if scheduler:
        _need_dask()
    out = Path(out_dir)
    # checked before the folder is made or locked; a folder the walk cannot list becomes an input that
    # fails with a read error (its matches never vanish without a word)
    given = expand_inputs(list(paths), walk_errors=[]) if paths else None
    if given is None and not (resume and (out / MANIFEST).is_file()):
        raise BatchError("no inputs given (and no earlier run to resume)")
    if given == []:
        raise BatchError("no match files found in the inputs")
    check_dataset_folder(out)  # before the lock file is made in it
    with _exclusive(out):
        return _run_locked(given, out, options or BatchOptions(), jobs, scheduler, resume, progress, t0)


def _run_locked(given: list[str] | None, out: Path, opts: BatchOptions, jobs: int | None, scheduler: str | None,
                resume: bool, progress: ProgressCallback | None, t0: float) -> BatchResult:
    fingerprint = evaluator_fingerprint(opts)
    old = _check_resume(out, opts, fingerprint) if resume else None
    if given is None:
        if old is None:
            raise BatchError("no inputs given (and no earlier run to resume)")
        given = expand_inputs([str(i["path"]) for i in old.get("inputs") or []], walk_errors=[])
    inputs = given
    if not inputs:
        raise BatchError("no match files found in the inputs")
    units = list({u.unit: u for u in map(make_unit, inputs)}.values())  # a file named twice is one unit
    check_dataset_folder(out)  # again, under the lock: nothing of the user's is cleared
    write_dataset_mark(out)
    if not resume:
        _clear(out)
    prepare_folders(out)
    for sub in (DECISIONS_DIR, UNITS_DIR):
        remove_temporaries(out / sub)
    remove_temporaries(out)

    manifest = _Manifest(out, units, opts, _now() if old is None else str(old.get("started")))
    manifest.head["evaluator_fingerprint"] = fingerprint
    pending: list[Unit] = []
    for u in units:
        if resume and unit_done(out, u):
            manifest.set(u.unit, status="done")
        else:
            (out / UNITS_DIR / f"{u.unit}.json").unlink(missing_ok=True)
            pending.append(u)
    manifest.write(force=True)

    total_bytes = sum(u.size or 0 for u in units)
    skipped = len(units) - len(pending)
    waiting = {u.unit for u in pending}
    state = {"files": skipped, "matches": 0, "bytes": sum(u.size or 0 for u in units if u.unit not in waiting)}

    def tell(current: str) -> None:
        if progress is not None:
            progress(BatchProgress(state["files"], len(units), state["matches"], state["bytes"], total_bytes,
                                   current))

    def on_match(u: Unit, n: int) -> None:
        state["matches"] += 1
        tell(u.path)

    n_jobs = max(1, jobs if jobs is not None else (os.cpu_count() or 1))
    if scheduler:
        stream = _dask(pending, str(out.resolve()), opts, scheduler, n_jobs)
    elif n_jobs == 1 or len(pending) <= 1:
        stream = _inline(pending, str(out), opts, on_match)
    else:
        # local processes: at most one a core (--jobs 1000000000 must not start processes until the system refuses)
        stream = _pool(pending, str(out), opts, min(n_jobs, len(pending), usable_cores()))
    tell("")
    written = 0
    for u, res in stream:
        state["files"] += 1
        state["bytes"] += u.size or 0
        if isinstance(res, BaseException):
            marker = {"unit": u.unit, "stamp": u.stamp(), "matches": 0, "status": "crashed",
                      "errors": [error_row(res if isinstance(res, Exception) else RuntimeError(repr(res)),
                                           file=u.path, kind="internal")]}
            atomic_write_json(out / UNITS_DIR / f"{u.unit}.json", marker)
            manifest.set(u.unit, status="crashed")
        else:
            written += res.written
            if scheduler or not (n_jobs == 1 or len(pending) <= 1):
                state["matches"] += res.written
            manifest.set(u.unit, status="done")
        manifest.write()
        tell(u.path)

    for sub in (DECISIONS_DIR, UNITS_DIR):  # left by a worker that died while writing
        remove_temporaries(out / sub)
    _prune(out, units)
    tables = rebuild_tables(out, units)
    write_tables(out, tables)
    failed = set(tables.errors["file"].to_list())
    for u in units:
        info = manifest.status[u.unit]
        n_err = tables.errors.filter(tables.errors["file"] == u.path).height if u.path in failed else 0
        n_match = tables.matches.filter(tables.matches["file"] == u.path).height
        status = info["status"] if info["status"] == "crashed" else ("failed" if n_err else "done")
        manifest.set(u.unit, status=status, matches=n_match, errors=n_err)
    evaluator = _evaluator_info(out, tables) if not opts.replay_only else None
    decisions = int(tables.matches["decisions"].sum() or 0)
    totals = {"files": len(units), "matches": tables.matches.height, "decisions": decisions,
              "errors": tables.errors.height, "failed_files": len(failed)}
    manifest.write(force=True, evaluator=evaluator, finished=_now(), state="complete", totals=totals)
    return BatchResult(out, len(units), skipped, tables.matches.height, written, decisions, tables.errors.height,
                       len(failed), time.perf_counter() - t0, tables)


def _evaluator_info(out: Path, tables: Tables) -> dict[str, Any] | None:
    """The analysis metadata (engine, nets, ply, thresholds, MET) of the first analysed match."""
    for part in tables.matches.filter(tables.matches["pr_0"].is_not_null())["part"].head(1).to_list():
        meta = read_part_meta(out / DECISIONS_DIR / part)
        summary = (meta or {}).get("summary") or {}
        md = summary.get("metadata")
        return md if isinstance(md, dict) else None
    return None
