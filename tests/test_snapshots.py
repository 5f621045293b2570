"""Snapshot tests of the review outputs for a small, hand-made match analysis.

The analysis comes from ``tests/render_sample.py`` (fixed numbers, no evaluator), so the snapshots
change only when the rendering changes. They guard the terminal summary, the structure of
``summary.json`` and the structure of ``report.html`` against unintended changes. After an
intended change, refresh them with ``BGREVIEW_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py``
and review the diff.
"""

from __future__ import annotations

import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from render_sample import make_analysis, make_summary

from analyzer.analysis.analyze import MatchAnalysis
from analyzer.analysis.summary import AnalysisSummary
from analyzer.render.html import render_html_report
from analyzer.render.terminal import analysis_view, render_text

SNAPSHOTS = Path(__file__).parent / "snapshots"


def updating() -> bool:
    """Whether this run writes the snapshots (``BGREVIEW_UPDATE_SNAPSHOTS=1``) instead of checking them."""
    return os.environ.get("BGREVIEW_UPDATE_SNAPSHOTS", "") not in ("", "0")


def check_snapshot(name: str, text: str, folder: Path = SNAPSHOTS) -> None:
    """``text`` equals the stored snapshot ``folder/name``. A missing snapshot fails; only an explicit
    ``BGREVIEW_UPDATE_SNAPSHOTS=1`` writes (or rewrites) it."""
    path = folder / name
    if updating():
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{name}: no snapshot stored; write it with BGREVIEW_UPDATE_SNAPSHOTS=1 and review it"
    assert text == path.read_text(encoding="utf-8"), f"{name} changed; see the module docstring"


class _Skeleton(HTMLParser):
    """The nesting of the elements and their classes, without text and without SVG internals."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.depth = 0
        self.svg = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "meta", "col", "img", "hr", "link"):
            return
        if self.svg == 0:
            cls = dict(attrs).get("class")
            self.lines.append("  " * self.depth + tag + (f".{cls}" if cls else ""))
        if tag == "svg" or self.svg:
            self.svg += 1
        self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("br", "meta", "col", "img", "hr", "link"):
            return
        self.depth -= 1
        if self.svg:
            self.svg -= 1


def html_skeleton(html: str) -> str:
    parser = _Skeleton()
    parser.feed(html)
    # collapse runs of identical sibling lines (table rows) into one line with a count
    out: list[str] = []
    for line in parser.lines:
        if out and re.sub(r" x\d+$", "", out[-1]) == line:
            m = re.search(r" x(\d+)$", out[-1])
            out[-1] = f"{line} x{int(m.group(1)) + 1 if m else 2}"
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def shape(value: Any) -> Any:
    """The keys and value types of a JSON document (numbers become their type name)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [shape(v) for v in value[:2]]
    return type(value).__name__


def sample() -> MatchAnalysis:
    s = make_analysis()
    return MatchAnalysis(s.decisions, s.summary)


def test_terminal_summary_snapshot() -> None:
    check_snapshot("terminal_summary.txt", render_text(analysis_view(sample()), width=120))


def test_summary_json_structure_snapshot() -> None:
    """The hand-made summary document read into the typed summary and written again."""
    written = AnalysisSummary.from_json(make_summary()).as_dict()
    check_snapshot("summary_structure.json", json.dumps(shape(written), indent=1) + "\n")


def test_html_structure_snapshot() -> None:
    check_snapshot("report_structure.txt", html_skeleton(render_html_report(sample(), charts=False)))


def test_a_missing_snapshot_fails_and_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BGREVIEW_UPDATE_SNAPSHOTS", raising=False)
    with pytest.raises(AssertionError, match="no snapshot stored"):
        check_snapshot("new.txt", "text\n", folder=tmp_path)
    assert not (tmp_path / "new.txt").exists()
    monkeypatch.setenv("BGREVIEW_UPDATE_SNAPSHOTS", "0")  # "0" is no opt-in
    with pytest.raises(AssertionError, match="no snapshot stored"):
        check_snapshot("new.txt", "text\n", folder=tmp_path)


def test_a_changed_text_fails_and_the_opt_in_rewrites_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BGREVIEW_UPDATE_SNAPSHOTS", raising=False)
    (tmp_path / "s.txt").write_text("old\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="changed"):
        check_snapshot("s.txt", "new\n", folder=tmp_path)
    assert (tmp_path / "s.txt").read_text(encoding="utf-8") == "old\n"
    monkeypatch.setenv("BGREVIEW_UPDATE_SNAPSHOTS", "1")
    check_snapshot("s.txt", "new\n", folder=tmp_path)
    check_snapshot("t.txt", "fresh\n", folder=tmp_path)
    assert (tmp_path / "s.txt").read_text(encoding="utf-8") == "new\n"
    assert (tmp_path / "t.txt").read_text(encoding="utf-8") == "fresh\n"
