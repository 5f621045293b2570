"""Write ``tests/data/referee/``: a tiny referee set whose referee is stood in (no gnubg).

The layout is the real one (``tools/gnubg_referee.py``: ``selection.json.gz``,
``positions.jsonl.gz``, ``decisions.jsonl.gz``) with real Position IDs, but every value that gnubg
would give is made up here, so that ``tests/test_referee.py`` knows the figures by construction:

* three positions whose "rollout" chances are given, and gnubg's 0/1/2-ply chances the rollout's
  with a known shift (0-ply: +0.02 win; 1-ply: +0.01 win gammon; 2-ply: the rollout's);
* one checker play with three candidates (the test's stand-in chooser picks among them) valued
  0.10, 0.05 and 0.00 by the "rollout"; gnubg's choice at each ply the first, second, first;
* one double with "rollout" ND 0.50 and DT 0.60 (double, take), gnubg's 0-ply ND 0.70 (no double),
  its 1- and 2-ply the rollout's values, and the answer "pass".

Run: ``python tools/make_referee_fixture.py`` (deterministic).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "referee"

POSITIONS = [  # (id, class, labels, Position ID, rollout chances)
    ("p00000", "race", ["race"], "280XAADDAAAAAA", [0.90, 0.07, 0.0, 0.0, 0.0]),
    ("p00001", "on the bar", ["blitz", "on the bar"], "73YAAODcNgMACA", [0.04, 0.0, 0.0, 0.08, 0.0]),
    ("p00002", "holding / ace-point", ["holding / ace-point"], "bDeDwQCaPWAAPA", [0.18, 0.03, 0.0, 0.42, 0.05]),
]
CHECKER_PID = "4HPwATDgc/ABMA"
CANDIDATES = ["cand-a", "cand-b", "cand-c"]  # stand-in Position IDs after each candidate
STATE = {"length": 7, "score": [2, 3], "cube": 1, "cube_owner": None, "crawford": False, "post_crawford": False,
         "jacoby": False, "beavers": False}


def _gz(rows: list[dict[str, object]]) -> bytes:
    text = "".join(json.dumps(r, separators=(",", ":"), sort_keys=True) + "\n" for r in rows)
    return gzip.compress(text.encode("utf-8"), mtime=0)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    sel = {"positions": [{"id": i, "class": c, "labels": lab, "pid": pid} for i, c, lab, pid, _ in POSITIONS],
           "decisions": [{"id": "d00000", "kind": "checker", "pid": CHECKER_PID, "dice": [3, 1], "side": 0,
                          "state": STATE},
                         {"id": "d00001", "kind": "cube", "pid": CHECKER_PID, "side": 1, "state": STATE,
                          "answer": "pass"}]}
    (OUT / "selection.json.gz").write_bytes(gzip.compress(json.dumps(sel, sort_keys=True).encode("utf-8"), mtime=0))
    rows = []
    for i, c, _, pid, probs in POSITIONS:
        g0 = [probs[0] + 0.02, *probs[1:]]
        g1 = [probs[0], probs[1] + 0.01, *probs[2:]]
        eq = 2 * probs[0] - 1 + probs[1] + probs[2] - probs[3] - probs[4]
        rows.append({"id": i, "class": c, "pid": pid, "gnubg_ply": [g0, g1, list(probs)],
                     "rollout": {"trials": 648, "probs": probs, "probs_se": [0.001] * 5, "equity": eq,
                                 "equity_se": 0.002}, "seconds": 1.0})
    (OUT / "positions.jsonl.gz").write_bytes(_gz(rows))
    moves = [[[8, 5], [6, 5]], [[13, 10], [24, 23]], [[24, 21], [21, 20]]]
    checker = {"id": "d00000", "kind": "checker", "pid": CHECKER_PID, "emg": [0.0, 1.0],
               "candidates": [[m, p] for m, p in zip(moves, CANDIDATES, strict=True)],
               "choice": {"0": "cand-a", "1": "cand-b", "2": "cand-a"},
               "plies": {"2": {"imove": 2, "moves": [{"move": m, "score": 0.0} for m in moves]}},
               "after": {"moves": [{"type": "rollout", "move": m, "cubeful-eq": v}
                                   for m, v in zip(moves, (0.10, 0.05, 0.0), strict=True)]}}
    cube = {"id": "d00001", "kind": "cube", "pid": CHECKER_PID, "emg": [0.0, 1.0],
            "plies": {"0": {"nd-cubeful-eq": 0.70, "dt-cubeful-eq": 0.60},
                      "1": {"nd-cubeful-eq": 0.50, "dt-cubeful-eq": 0.60},
                      "2": {"nd-cubeful-eq": 0.50, "dt-cubeful-eq": 0.60}},
            "after": {"nd-cubeful-eq": 0.50, "dt-cubeful-eq": 0.60}}
    (OUT / "decisions.jsonl.gz").write_bytes(_gz([checker, cube]))


if __name__ == "__main__":
    main()
