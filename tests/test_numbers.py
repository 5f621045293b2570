"""No negative zero in the tables (issue 52: "-0.0%"): a value that rounds to zero prints as zero."""

from __future__ import annotations

import pytest

from analyzer.core.position import Position
from analyzer.eval.engine import RankedPlay
from analyzer.eval.probabilities import Probabilities
from analyzer.render.html import fmt_emg, fmt_equity, fmt_pct, fmt_result, fmt_signed_pct
from analyzer.render.numbers import fixed
from analyzer.render.terminal import hint_table, render_text


@pytest.mark.parametrize(("got", "want"), [
    (fmt_signed_pct(-0.00004), "+0.0%"), (fmt_signed_pct(-0.0006), "-0.1%"), (fmt_pct(-1e-9), "0.0%"),
    (fmt_equity(-0.0004), "+0.000"), (fmt_emg(-1e-7), "0.000"), (fmt_result(-0.0002, "mwc"), "+0.0% MWC"),
    (fmt_result(-0.0002, "points"), "+0.000 points"), (fixed(0.0 * -100.0, ".2f"), "0.00"),
    (fixed(-1e-12, "+.1f"), "+0.0"), (fixed(-0.05, ".1f"), "-0.1"), (fixed(float("nan"), ".1f"), "nan"),
])
def test_no_negative_zero(got: str, want: str) -> None:
    assert got == want


def test_hint_table_has_no_negative_zero() -> None:
    p = Probabilities(0.5, 0.1, 0.0, 0.1, 0.0)
    plays = [RankedPlay("8/5 6/5", Position.start(), -0.0001, p, 0),
             RankedPlay("13/10 6/5", Position.start(), -0.0003, p, 0)]
    text = render_text(hint_table(plays, (3, 1), width=100), width=100)
    assert "-0.000" not in text and text.count("+0.000") == 3
