"""Review the matches of a file into their folders: what ``bgreview analyze`` does, as a library call.

:func:`review_records` reviews each match (:func:`~analyzer.analysis.analyze.analyze_match` with one
:class:`~analyzer.analysis.settings.ReviewSettings`), writes its files into its folder (the decisions
tables and ``summary.json``: :func:`~analyzer.render.tables.write_tables`; the charts and ``report.html``
unless ``html`` is off) and, when asked, the whole file with its review as gnubg SGF
(:func:`~analyzer.analysis.sgf_export.write_analysis_sgf`); it returns what it reviewed and wrote
(:class:`Review`) and prints nothing: the problems it meets go to ``notice`` as they happen, the
progress to ``progress``.

>>> import tempfile
>>> from analyzer.formats.mat import read_match_text
>>> from analyzer.eval.engine import Engine
>>> text = " 3 point match\\n Game 1\\n ann : 0      bob : 0\\n  1) 31: 8/5 6/5   42: 8/4 6/4\\n"
>>> with tempfile.TemporaryDirectory() as tmp:
...     review = review_records(read_match_text(text), ReviewSettings(ply=0), out=Path(tmp), html=False,
...                             engine=Engine())
...     [p.name for p in review.matches[0].files], review.problems
(['decisions.parquet', 'decisions.csv', 'summary.json'], 0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzer.analysis.analyze import MatchAnalysis, analyze_match
from analyzer.analysis.settings import ReviewSettings
from analyzer.analysis.sgf_export import write_analysis_sgf
from analyzer.core.files import OutputError, check_inside
from analyzer.eval.protocol import Evaluator
from analyzer.formats.records import MatchRecord
from analyzer.render.tables import default_out_dir, write_tables

__all__ = ["MatchReview", "Notice", "Review", "ReviewProgress", "match_folder", "review_records"]

ReviewProgress = Callable[[int, int, int], None]
"""Called as ``progress(match, done, total)`` after each decision of the ``match``-th record valued
(``done`` of ``total``; the confirmation pass's decisions come after the first pass's)."""

Notice = Callable[[str, str], None]
"""Called as ``notice(level, message)`` for a problem met on the way: ``"error"`` for a part of a record
that cannot be reviewed (a line the reader refused, a game that does not replay: the rest is reviewed),
``"warning"`` for a renderer that failed (the charts, the report: the files already written are kept)."""


@dataclass(frozen=True, slots=True)
class MatchReview:
    """The review of one record: its analysis, the folder its files went into, the files written (the
    SGF last, when one was written) and the problems met (the reader's errors, then the games that did
    not replay; each was also given to the ``notice``)."""

    record: MatchRecord
    analysis: MatchAnalysis
    folder: Path
    files: tuple[Path, ...]
    problems: tuple[str, ...]

    def summary(self) -> dict[str, Any]:
        """``summary.json``'s content with the files written (``files``): the JSON the command prints."""
        return {**self.analysis.summary.as_dict(), "files": [str(p) for p in self.files]}


@dataclass(frozen=True, slots=True)
class Review:
    """What :func:`review_records` reviewed and wrote: one :class:`MatchReview` a record, in order, and the
    SGF file (``None``: none asked for)."""

    matches: tuple[MatchReview, ...]
    sgf: Path | None = None

    @property
    def problems(self) -> int:
        """How many problems the records had (the command's exit code 1 when any)."""
        return sum(len(m.problems) for m in self.matches)


def match_folder(out: Path | None, source: str, index: int, count: int) -> Path:
    """The folder of the ``index``-th of ``count`` records read from ``source``: ``out`` itself for the one
    record of a file, else a folder named after the file (its stem made safe,
    :func:`~analyzer.render.tables.default_out_dir`) inside ``out`` (``reports`` when ``out`` is ``None``).
    Raises :class:`~analyzer.core.files.OutputError` for a folder that would lie outside.

    >>> match_folder(Path("o"), "a/m.mat", 0, 1).as_posix(), match_folder(Path("o"), "a/m.mat", 1, 2).as_posix()
    ('o', 'o/m-2')
    >>> match_folder(None, "a/...mat", 0, 1).as_posix()
    'reports/match'
    """
    if out is not None and count == 1:
        return out
    folder = default_out_dir(source, index)
    if out is not None:
        folder = out / folder.name
    check_inside(out if out is not None else Path("reports"), folder)
    return folder


def _extra_writers(analysis: MatchAnalysis, out_dir: Path, warn: Callable[[str], None]) -> list[Path]:
    """Charts and the HTML report (each chart drawn once, for its files and the report). A renderer that
    fails is reported and the files already written (the decision tables, the summary) are kept; a file that
    cannot be written (an ``OSError``: a full disk, a read-only folder) is an error, passed on."""
    # here, not at the top: matplotlib and jinja2, 0.6-0.7 s of CPU that `position` and `--no-html` spare
    from analyzer.render.charts import render_charts, write_charts
    from analyzer.render.html import write_html_report

    written: list[Path] = []
    svgs: dict[str, str] | None = None
    try:
        rendered = render_charts(analysis)
        written.extend(write_charts(analysis, out_dir, rendered=rendered))
        svgs = {name: files["svg"].decode("utf-8") for name, files in rendered.items()}
    except OSError:
        raise
    except Exception as e:  # the charts must not lose the tables already written
        warn(f"the charts failed: {type(e).__name__}: {e}")
    try:
        written.append(write_html_report(analysis, out_dir, chart_svgs=svgs, charts=svgs is not None))
    except OSError:
        raise
    except Exception as e:  # nor the report
        warn(f"the HTML report failed: {type(e).__name__}: {e}")
    return written


def review_records(records: Sequence[MatchRecord], settings: ReviewSettings, *, out: Path | None = None,
                   html: bool = True, sgf: Path | None = None, engine: Evaluator | None = None,
                   progress: ReviewProgress | None = None, notice: Notice | None = None) -> Review:
    """Review every record (see the module docstring) into its folder (:func:`match_folder`), with the
    charts and the HTML report when ``html``, and write them all with their review into ``sgf`` when given.

    ``settings`` as checked for the records' engines (:meth:`ReviewSettings.for_engines`); ``engine``: the
    standard evaluator (``None``: loaded when a game needs it, :func:`analyze_match`). Raises
    :class:`~analyzer.analysis.variants.NoEvaluatorError` for a variant without an evaluator and
    :class:`~analyzer.core.files.OutputError` naming the file or folder that cannot be written (each file
    is whole or not there; the SGF file, when it cannot be written, is left as it was).
    """
    def tell(level: str, message: str) -> None:
        if notice is not None:
            notice(level, message)

    done: list[tuple[MatchRecord, MatchAnalysis, Path, list[Path], tuple[str, ...]]] = []
    for i, record in enumerate(records):
        problems = [str(p) for p in record.errors]
        for problem in problems:
            tell("error", problem)

        def tick(n: int, total: int, _i: int = i) -> None:
            if progress is not None:
                progress(_i, n, total)

        analysis = analyze_match(record, settings, engine=engine, progress=tick)
        for message in analysis.summary.match.errors:
            problems.append(message)
            tell("error", message)
        folder: Path | None = None
        try:  # a file that cannot be written: an OutputError naming it (each file is whole or not there)
            folder = match_folder(out, record.source, i, len(records))
            written = write_tables(analysis, folder)
            if html:
                written += _extra_writers(analysis, folder, lambda m: tell("warning", m))
        except OSError as e:
            raise OutputError(str(e.strerror or e), file=e.filename or folder or out) from e
        done.append((record, analysis, folder, written, tuple(problems)))
    if sgf is not None:  # the rows as dicts only for the SGF writer
        try:
            write_analysis_sgf([(record, analysis.decisions.to_dicts()) for record, analysis, *_ in done], sgf,
                               engine=engine, ply=0 if settings.rollout is not None else settings.ply,
                               thresholds=settings.thresholds)
        except OSError as e:  # the file is left as it was
            raise OutputError(e.strerror or "cannot write the file", file=e.filename or sgf) from e
    extra = () if sgf is None else (sgf,)
    return Review(tuple(MatchReview(record, analysis, folder, (*written, *extra), problems)
                        for record, analysis, folder, written, problems in done), sgf)
