"""Read any of our weight files: a shipped net set, a TD checkpoint or a supervised checkpoint.

>>> import tempfile, pathlib
>>> from analyzer.eval.net import NetSet
>>> p = pathlib.Path(tempfile.mkdtemp()) / "n.npz"
>>> NetSet.initial(hidden=4, race_hidden=4).save(p)
>>> load_nets(p).contact.hidden
4
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.eval.net import NetSet


def load_nets_and_info(path: str | Path, ema: bool = False) -> tuple[NetSet, dict[str, Any]]:
    """The nets in ``path`` and a description of where they come from; with ``ema`` the
    moving-average weights of a TD checkpoint (``td --ema-games``; ValueError for any other file)."""
    with np.load(path) as z:
        doc = json.loads(bytes(z["state_json"]).decode()) if "state_json" in z.files else None
    if ema and (doc is None or doc.get("kind") == "supervised"):
        raise ValueError(f"{path} keeps no moving average (a td run with --ema-games N)")
    if doc is None:
        nets = NetSet.load(path)
        return nets, {"kind": "nets", "meta": nets.meta}
    if doc.get("kind") == "supervised":
        from analyzer.train.supervised import SupervisedTrainer

        st = SupervisedTrainer.load(path)
        return st.nets, {"kind": "supervised", "rounds": st.rounds, "positions": st.positions,
                         "config": vars(st.cfg), "source": st.source}
    from analyzer.train.td import TDTrainer

    tr = TDTrainer.load(path)
    info: dict[str, Any] = {"kind": "td", "games": tr.games, "positions": tr.positions, "config": vars(tr.cfg)}
    if not ema:
        return tr.nets, info
    if tr.ema is None:
        raise ValueError(f"{path} keeps no moving average (a td run with --ema-games N)")
    info["weights"] = f"moving average over about {tr.cfg.ema_games} games"
    return tr.ema_nets(), info


def load_nets(path: str | Path) -> NetSet:
    """The nets in ``path`` (net set or checkpoint)."""
    return load_nets_and_info(path)[0]
