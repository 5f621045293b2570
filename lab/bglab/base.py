"""What the trainers share: checkpoint files, the learning curve, minibatch epochs and the run loop.

A checkpoint is one ``.npz`` written atomically (:func:`analyzer.eval.net.save_npz_atomic`): the
weights and optimiser moments as arrays plus ``state_json``, the JSON of the counters and the
config. The learning curve is ``<checkpoint stem>_curve.jsonl`` next to it, one JSON object a line;
on resume the lines written after the checkpoint are dropped so the curve matches the weights.

>>> import tempfile
>>> p = Path(tempfile.mkdtemp()) / "run" / "ck.npz"
>>> write_checkpoint(p, {"w": np.ones(2, np.float32)}, {"games": 4})
>>> arrays, doc = read_checkpoint(p)
>>> arrays["w"].tolist(), doc
([1.0, 1.0], {'games': 4})
>>> curve_path_of(p).name
'ck_curve.jsonl'
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

from analyzer.eval.net import save_npz_atomic
from bglab.optim import Adam


def read_checkpoint(path: Path | str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The arrays of a checkpoint and its decoded ``state_json``."""
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    doc: dict[str, Any] = json.loads(bytes(arrays["state_json"]).decode())
    return arrays, doc


def write_checkpoint(path: Path, arrays: dict[str, Any], doc: dict[str, Any]) -> None:
    """Write ``arrays`` plus ``doc`` (as ``state_json``, stored last) to ``path`` atomically,
    creating its folder."""
    arrays["state_json"] = np.frombuffer(json.dumps(doc).encode(), dtype=np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_npz_atomic(path, arrays)


def curve_path_of(path: Path) -> Path:
    """The learning-curve file of checkpoint ``path``."""
    return path.with_name(path.stem + "_curve.jsonl")


def utc_stamp() -> str:
    """The time for a curve line, e.g. ``2026-11-29T22:36:00Z``."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def train_epochs(opt: Adam, x: NDArray[np.float32], t: NDArray[np.float32], batch: int, rng: np.random.Generator,
                 epochs: int = 1, sort: bool = False) -> float:
    """``epochs`` passes of Adam minibatches over (``x``, ``t``), each in a fresh ``rng`` order
    (with ``sort``, each minibatch's rows in ascending order); returns the mean minibatch loss.

    >>> from analyzer.eval.net import Net
    >>> rng = np.random.default_rng(0)
    >>> net = Net.initial(4, 3, rng)
    >>> x = rng.random((10, 4)).astype(np.float32)
    >>> t = np.full((10, 6), 1 / 6, np.float32)
    >>> opt = Adam(net)
    >>> loss = train_epochs(opt, x, t, 4, rng, epochs=2)
    >>> opt.t, bool(loss > 0)
    (6, True)
    """
    tot = 0.0
    nb = 0
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for s in range(0, len(x), batch):
            idx = order[s:s + batch]
            if sort:
                idx = np.sort(idx)
            tot += opt.step(x[idx], t[idx])
            nb += 1
    return tot / max(nb, 1)


def fold_average(avg: dict[str, NDArray[np.float32]] | None, current: dict[str, NDArray[np.float32]],
                 games_per_iter: int, ema_games: int) -> dict[str, NDArray[np.float32]] | None:
    """The moving average of the weights ``current`` over about ``ema_games`` games, after one
    iteration of ``games_per_iter`` games: None when no average is kept (``ema_games`` <= 0), a
    copy of ``current`` the first time, else ``avg`` updated in place.

    >>> w = {"w": np.ones(2, np.float32)}
    >>> a = fold_average(None, w, 2, 4)
    >>> fold_average(a, {"w": np.zeros(2, np.float32)}, 2, 4)["w"].tolist()
    [0.5, 0.5]
    """
    if ema_games <= 0:
        return None
    if avg is None:
        return {name: a.copy() for name, a in current.items()}
    keep = np.float32(max(0.0, 1.0 - games_per_iter / ema_games))
    for name, a in avg.items():
        a *= keep
        a += (np.float32(1.0) - keep) * current[name]
    return avg


C = TypeVar("C")


class Trainer(Generic[C]):
    """Base of the resumable trainers: the checkpoint ``path``, its learning curve, the run's
    settings ``cfg`` (a dataclass stored in the checkpoint), the counters ``positions`` and
    ``elapsed`` (seconds spent training), and :meth:`_loop`, the run loop.

    Subclasses define :meth:`iteration` (one unit of training; returns its loss), :meth:`save`,
    and :meth:`_curve_entry`, which turns the losses since the last curve line into the next line
    (or None: no line this time).
    """

    def __init__(self, path: Path | str, cfg: C) -> None:
        self.path = Path(path)
        self.cfg = cfg
        self.curve_path = curve_path_of(self.path)
        self.positions = 0
        self.elapsed = 0.0

    def iteration(self) -> Any:
        raise NotImplementedError

    def optimisers(self) -> list[Adam]:
        """The optimisers of the nets being trained (a resumed run may get a new learning rate)."""
        raise NotImplementedError

    def progress(self) -> str:
        """Where the run stands, for the log (e.g. ``1200 games``)."""
        raise NotImplementedError

    def save(self) -> None:
        raise NotImplementedError

    def _curve_entry(self, losses: list[Any]) -> dict[str, Any] | None:
        raise NotImplementedError

    def _restore(self, doc: dict[str, Any], *counters: str) -> None:
        """Set ``positions``, ``elapsed`` and the integer ``counters`` from a checkpoint's state."""
        for name in ("positions", *counters):
            setattr(self, name, int(doc[name]))
        self.elapsed = float(doc["elapsed"])

    def _trim_curve(self, key: str, upto: int) -> None:
        """Drop the learning-curve lines whose ``key`` is past ``upto`` (written after the checkpoint
        by a run that stopped between saves)."""
        if not self.curve_path.exists():
            return
        keep = [ln for ln in self.curve_path.read_text().splitlines()
                if ln.strip() and json.loads(ln)[key] <= upto]
        self.curve_path.write_text("".join(ln + "\n" for ln in keep))

    def _loop(self, more: Callable[[], bool], checkpoint_every_s: float,
              should_stop: Callable[[], bool] | None) -> None:
        """Run :meth:`iteration` while ``more()`` (and not ``should_stop()``): time it, append the
        curve line :meth:`_curve_entry` makes of the losses, save every ``checkpoint_every_s``
        seconds (0: after every iteration) and once more at the end."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        last_save = time.time()
        losses: list[Any] = []
        while more():
            if should_stop is not None and should_stop():
                break
            start = time.time()
            losses.append(self.iteration())
            self.elapsed += time.time() - start
            rec = self._curve_entry(losses)
            if rec is not None:
                losses = []
                with self.curve_path.open("a") as fh:
                    fh.write(json.dumps(rec) + "\n")
            if time.time() - last_save >= checkpoint_every_s:
                self.save()
                last_save = time.time()
        self.save()
