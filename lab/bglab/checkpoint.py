"""Read any of our weight files: a shipped net set, a TD checkpoint or a supervised checkpoint.

>>> import tempfile, pathlib
>>> from analyzer.eval.net import NetSet
>>> p = pathlib.Path(tempfile.mkdtemp()) / "n.npz"
>>> NetSet.initial(hidden=4, race_hidden=4).save(p)
>>> load_nets(p).contact.hidden
4
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.eval.net import NetSet
from bglab.optim import PARAMS


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
        from bglab.supervised import SupervisedTrainer

        st = SupervisedTrainer.load(path)
        return st.nets, {"kind": "supervised", "rounds": st.rounds, "positions": st.positions,
                         "config": vars(st.cfg), "source": st.source}
    from bglab.td import TDTrainer

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


def average_net_sets(sets: Sequence[NetSet]) -> NetSet:
    """The element-wise mean of the contact, crashed and race weights of ``sets`` (a "soup").

    Meant for fits from the same starting nets that differ only in their seed: their weights
    stay close, and the mean removes most of the fit-to-fit scatter. The result has no pruning
    net (the mean of pruning nets is not the pruning net of the mean: run ``prune`` on it).
    ValueError when ``sets`` is empty or two nets differ in shape.

    >>> a = NetSet.initial(hidden=4, race_hidden=4, seed=1)
    >>> b = NetSet.initial(hidden=4, race_hidden=4, seed=2)
    >>> m = average_net_sets([a, b])
    >>> bool(np.allclose(m.contact.w1, (a.contact.w1 + b.contact.w1) / 2)), m.prune is None
    (True, True)
    >>> average_net_sets([a, NetSet.initial(hidden=5, race_hidden=4)])
    Traceback (most recent call last):
    ...
    ValueError: net set 2: contact w1 is 242x5, net set 1's is 242x4
    """
    if not sets:
        raise ValueError("no net sets to average")
    out = sets[0].copy()
    out.prune = None
    for key, net in out.nets().items():
        for part in PARAMS:
            arrays = [getattr(s.nets()[key], part) for s in sets]
            shapes = ["x".join(map(str, a.shape)) for a in arrays]
            for i, shape in enumerate(shapes[1:], start=2):
                if shape != shapes[0]:
                    raise ValueError(f"net set {i}: {key} {part} is {shape}, net set 1's is {shapes[0]}")
            mean = np.mean(np.stack(arrays).astype(np.float64), axis=0).astype(np.float32)
            setattr(net, part, np.ascontiguousarray(mean))
    return out


def average_manifest(paths: Sequence[str | Path], sets: Sequence[NetSet]) -> dict[str, Any]:
    """The manifest of :func:`average_net_sets`' result: each input's file, sha256 and fit
    (``fit`` of its manifest, with the data list given once when every input shares it)."""
    fits = [s.meta.get("fit") for s in sets]
    datas = [f.get("data") if isinstance(f, dict) else None for f in fits]
    shared = datas[0] if datas and all(d == datas[0] for d in datas) else None
    inputs = []
    for p, f in zip(paths, fits, strict=True):
        entry: dict[str, Any] = {"file": str(p), "sha256": hashlib.sha256(Path(p).read_bytes()).hexdigest()}
        if isinstance(f, dict):
            entry["fit"] = {k: v for k, v in f.items() if not (k == "data" and shared is not None)}
        inputs.append(entry)
    doc: dict[str, Any] = {k: v for k, v in sets[0].meta.items() if k not in ("fit", "prune_net", "average")}
    doc["average"] = {"inputs": inputs, "how": "element-wise mean of the contact, crashed and race weights"}
    if shared is not None:
        doc["average"]["data"] = shared
    return doc
