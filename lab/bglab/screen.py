"""The weak-class screen (issue 51): nets' 0-ply against our own rollout labels, by class and seat.

A label file of ``bglab targets --trials N --classes ...`` (our own rollouts, never GNU Backgammon's)
holds the rows; each net's 0-ply equity of a row is compared with the row's rollout equity. The rows are
split by the referee's weak classes (:data:`bglab.classes.WEAK`; a row counts in every class it belongs
to, ``on the bar`` from both seats) and the seat of the side holding more checkers back
(:func:`bglab.classes.seat_code`), as ``bench/referee.py`` splits them. Each cell reports, per net, the
bias (mean of net − rollout: how far the net undervalues the side on roll) and the mean absolute error,
and for every net after the first the paired change of the absolute error against the first net with
its standard error. The rows of one real game are not independent (a back game lasts many moves), so
that standard error treats each source game as one draw (the rows' per-game sums).

>>> import numpy as np
>>> rows = screen_table(np.array([3, 3, 5]), np.array([1, 1, -1]), np.array([0, 1, 2]),
...                     np.array([0.1, 0.0, 0.2]), {"a": np.array([0.0, 0.0, 0.3])}, ("x", "y"))
>>> [(r["class"], r["seat"], r["n"], round(r["nets"]["a"]["mean_abs"], 3)) for r in rows][:3]
[('x', 'back side on roll', 2, 0.05), ('x', 'back side off roll', 1, 0.1), ('x', 'all', 3, 0.067)]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

SEATS = ((1, "back side on roll"), (-1, "back side off roll"), (0, "even"))


def paired_se(diff: NDArray[np.float64], clusters: NDArray[np.int64]) -> float:
    """The standard error of the mean of ``diff`` with the rows of one cluster (source game) drawn
    together: the cluster-robust (sandwich) estimate from the clusters' sums of deviations; nan for
    fewer than two clusters.

    >>> round(paired_se(np.array([1.0, 3.0, 2.0, 2.0]), np.array([0, 1, 2, 3])), 4)
    0.4082
    >>> paired_se(np.array([1.0, 2.0]), np.array([7, 7]))
    nan
    """
    diff = np.asarray(diff, np.float64)
    _, inv = np.unique(np.asarray(clusters), return_inverse=True)
    g = int(inv.max()) + 1 if len(inv) else 0
    if g < 2:
        return float("nan")
    sums = np.bincount(inv.reshape(-1), weights=diff - diff.mean(), minlength=g)
    return float(np.sqrt(g / (g - 1) * np.sum(sums**2)) / len(diff))


def screen_table(masks: NDArray[Any], seats: NDArray[Any], sources: NDArray[Any], labels: NDArray[Any],
                 equities: dict[str, NDArray[Any]], classes: tuple[str, ...]) -> list[dict[str, Any]]:
    """The screen's cells: for each of ``classes`` (bit ``i`` of ``masks``: ``classes[i]``, see
    :func:`class_bits`), each seat with rows and then the class as a whole, and last all the rows:
    ``n``, the number of source ``games``, and per net of ``equities`` (each an equity per row, like
    ``labels``) ``bias`` and ``mean_abs`` of its error, and after the first net ``d_abs`` and
    ``d_abs_se`` (its absolute error minus the first net's, paired: the mean and its standard error,
    :func:`paired_se` with ``sources`` as the clusters)."""
    labels = np.asarray(labels, np.float64)
    names = list(equities)
    errors = {k: np.asarray(v, np.float64) - labels for k, v in equities.items()}
    masks = np.asarray(masks, np.int64)
    seats = np.asarray(seats, np.int64)
    sources = np.asarray(sources, np.int64)

    def cell(cls: str, seat: str, sel: NDArray[np.bool_]) -> dict[str, Any]:
        out: dict[str, Any] = {"class": cls, "seat": seat, "n": int(sel.sum()),
                               "games": int(len(np.unique(sources[sel]))), "nets": {}}
        for k in names:
            e = errors[k][sel]
            st: dict[str, float] = {"bias": float(e.mean()), "mean_abs": float(np.abs(e).mean())}
            if k != names[0]:
                d = np.abs(e) - np.abs(errors[names[0]][sel])
                st["d_abs"] = float(d.mean())
                st["d_abs_se"] = paired_se(d, sources[sel])
            out["nets"][k] = st
        return out

    rows: list[dict[str, Any]] = []
    for i, cls in enumerate(classes):
        inside = (masks & (1 << i)) != 0
        for code, seat in SEATS:
            sel = inside & (seats == code)
            if sel.any():
                rows.append(cell(cls, seat, sel))
        if inside.any():
            rows.append(cell(cls, "all", inside))
    if len(labels):
        rows.append(cell("all", "all", np.ones(len(labels), np.bool_)))
    return rows


def class_bits(masks: NDArray[Any], classes: tuple[str, ...], names: tuple[str, ...]) -> NDArray[np.int64]:
    """``masks`` of :func:`bglab.classes.describe` (bit ``i``: ``names[i]``) re-coded with bit ``j`` for
    ``classes[j]``, the masks :func:`screen_table` reads.

    >>> class_bits(np.array([0b101]), ("c", "a"), ("a", "b", "c")).tolist()
    [3]
    """
    masks = np.asarray(masks, np.int64)
    out = np.zeros(len(masks), np.int64)
    for j, cls in enumerate(classes):
        out |= ((masks >> names.index(cls)) & 1) << j
    return out


def format_screen(rows: list[dict[str, Any]], names: list[str]) -> str:
    """The screen as a text table: a line per cell; per net its bias / mean |error|, and after the first
    net the paired change of |error| against the first with its standard error (source games as draws)."""
    head = f"{'class: back-checker side':32s}{'n':>6s}{'games':>6s}"
    for i in range(len(names)):
        head += f" | {'net ' + str(i + 1) + ': bias / |err|':>20s}"
        if i:
            head += f"{'d|err| vs net 1':>18s}"
    lines = [head]
    for r in rows:
        label = r["class"] if r["seat"] == "all" else f"{r['class']}: {r['seat']}"
        line = f"{label:32s}{r['n']:6d}{r['games']:6d}"
        for i, k in enumerate(names):
            st = r["nets"][k]
            line += f" | {st['bias']:+11.4f} / {st['mean_abs']:.4f}"
            if i:
                line += f"{st['d_abs']:+9.4f} ± {st['d_abs_se']:.4f}"
        lines.append(line)
    lines += [f"net {i + 1}: {k}" for i, k in enumerate(names)]
    return "\n".join(lines)
