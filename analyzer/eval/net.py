"""The evaluation networks: one-hidden-layer MLPs with a 6-way softmax over game outcomes.

Each net maps the inputs of :mod:`analyzer.eval.features` through ``hidden`` sigmoid units to
six logits, the mutually exclusive outcomes of the side on roll (index: 0 win single, 1 win
gammon, 2 win backgammon, 3 lose single, 4 lose gammon, 5 lose backgammon). A softmax makes
the cumulative probabilities (win, win gammon, ...) consistent by construction.

A :class:`NetSet` holds one net per position class (contact, crashed, race), stored float32 in
one ``.npz`` file next to a small JSON manifest.

>>> import numpy as np
>>> nets = NetSet.initial(hidden=8, seed=1)
>>> from analyzer.core.position import Position
>>> b = np.frombuffer(Position.start().board, dtype=np.int8)
>>> p = evaluate_boards(nets, b[None, :])
>>> p.shape, bool(abs(p.sum() - 1.0) < 1e-5)
((1, 6), True)
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from analyzer.eval import features as F
from analyzer.eval import jitcache
from analyzer.eval.bits import f64_from_bits

NOUT = 6
CLASS_KEYS = ("contact", "crashed", "race")
OUTCOME_POINTS = np.array([1.0, 2.0, 3.0, -1.0, -2.0, -3.0], dtype=np.float64)

FloatArray = NDArray[np.float32]

jitcache.refresh()


def aligned(a: NDArray[Any]) -> FloatArray:
    """A C-contiguous float32 copy of ``a`` starting on a 64-byte boundary: a 128-unit row of hidden
    weights then fills 8 cache lines, not 9 (the forward pass gathers rows; the same numbers).

    >>> w = aligned(np.arange(6.0).reshape(2, 3))
    >>> w.ctypes.data % 64, w.dtype.name, w.tolist()
    (0, 'float32', [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    """
    src = np.asarray(a, dtype=np.float32)
    buf = np.empty(src.size + 16, np.float32)
    off = (-buf.ctypes.data % 64) // 4
    out: FloatArray = buf[off:off + src.size].reshape(src.shape)
    out[...] = src
    return out


@dataclass
class Net:
    """One MLP: ``w1`` (inputs x hidden), ``b1``, ``w2`` (hidden x 6), ``b2``; float32."""

    w1: FloatArray
    b1: FloatArray
    w2: FloatArray
    b2: FloatArray

    @property
    def n_inputs(self) -> int:
        return int(self.w1.shape[0])

    @property
    def hidden(self) -> int:
        return int(self.w1.shape[1])

    @classmethod
    def initial(cls, n_inputs: int, hidden: int, rng: np.random.Generator) -> Net:
        """Small random weights (Glorot-style uniform), zero biases."""
        a1 = math.sqrt(6.0 / (n_inputs + hidden))
        a2 = math.sqrt(6.0 / (hidden + NOUT))
        return cls(
            rng.uniform(-a1, a1, size=(n_inputs, hidden)).astype(np.float32),
            np.zeros(hidden, np.float32),
            rng.uniform(-a2, a2, size=(hidden, NOUT)).astype(np.float32),
            np.zeros(NOUT, np.float32),
        )

    def copy(self) -> Net:
        return Net(aligned(self.w1), aligned(self.b1), aligned(self.w2), aligned(self.b2))

    def forward(self, x: FloatArray) -> FloatArray:
        """Outcome probabilities for a batch of inputs ``x`` (n x inputs) -> (n x 6)."""
        h = _sigmoid(x @ self.w1 + self.b1)
        z = h @ self.w2 + self.b2
        return softmax(z)


def weights_fingerprint(*nets: Net) -> str:
    """A short hash of the weights of ``nets`` (in order): results or files made with other
    weights are never mixed in.

    >>> n = Net.initial(4, 3, np.random.default_rng(0))
    >>> weights_fingerprint(n) == weights_fingerprint(n.copy()) != weights_fingerprint(n, n)
    True
    """
    h = hashlib.sha256()
    for net in nets:
        for a in (net.w1, net.b1, net.w2, net.b2):
            h.update(np.ascontiguousarray(a, dtype=np.float32).tobytes())
    return h.hexdigest()[:12]


def save_npz_atomic(path: Path, arrays: dict[str, Any]) -> None:
    """Write ``arrays`` to ``path`` (.npz) through a temporary file renamed over it, so that a
    reader never sees a half-written file.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "a.npz"
    >>> save_npz_atomic(p, {"x": np.arange(3)})
    >>> np.load(p)["x"].tolist(), sorted(q.name for q in p.parent.iterdir())
    ([0, 1, 2], ['a.npz'])
    """
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)


def _sigmoid(z: FloatArray) -> FloatArray:
    out: FloatArray = 0.5 * (1.0 + np.tanh(0.5 * z))
    return out


def softmax(z: FloatArray) -> FloatArray:
    """Row-wise softmax.

    >>> [round(float(v), 3) for v in softmax(np.zeros((1, 6), np.float32))[0]]
    [0.167, 0.167, 0.167, 0.167, 0.167, 0.167]
    """
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: FloatArray = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


@dataclass
class NetSet:
    """The three nets of the standard evaluator plus metadata."""

    contact: Net
    crashed: Net
    race: Net
    meta: dict[str, Any] = field(default_factory=dict)
    prune: Net | None = None

    @classmethod
    def initial(cls, hidden: int = 128, race_hidden: int = 64, seed: int = 0,
                contact_inputs: int = F.N_CONTACT) -> NetSet:
        """Random initial nets (the start of TD training); ``contact_inputs=F.N_CONTACT_EXT`` for
        contact and crashed nets reading the extended encoding."""
        rng = np.random.default_rng(seed)
        return cls(Net.initial(contact_inputs, hidden, rng), Net.initial(contact_inputs, hidden, rng),
                   Net.initial(F.N_RACE, race_hidden, rng),
                   {"feature_version": F.FEATURE_VERSION})

    def nets(self) -> dict[str, Net]:
        return {"contact": self.contact, "crashed": self.crashed, "race": self.race}

    def copy(self) -> NetSet:
        return NetSet(self.contact.copy(), self.crashed.copy(), self.race.copy(), dict(self.meta),
                      self.prune.copy() if self.prune is not None else None)

    def widened(self) -> NetSet:
        """A copy whose contact and crashed nets read the extended encoding: the extra inputs get
        zero weights, so it evaluates exactly as this one until trained.

        >>> nets = NetSet.initial(hidden=4, race_hidden=4)
        >>> w = nets.widened()
        >>> w.contact.n_inputs == F.N_CONTACT_EXT, bool((w.contact.w1[:F.N_CONTACT] == nets.contact.w1).all())
        (True, True)
        """
        out = self.copy()
        for n in (out.contact, out.crashed):
            if n.n_inputs < F.N_CONTACT_EXT:
                grown = np.zeros((F.N_CONTACT_EXT, n.hidden), np.float32)
                grown[: n.n_inputs] = n.w1
                n.w1 = grown
        return out

    def prune_args(self) -> tuple[FloatArray, ...]:
        """The pruning net's arrays for the kernels (``w1``, ``b1``, ``w2`` transposed, ``b2``);
        a 1-unit dummy when there is none."""
        n = self.prune
        if n is None:
            n = Net(np.zeros((F.N_RAW, 1), np.float32), np.zeros(1, np.float32), np.zeros((1, NOUT), np.float32),
                    np.zeros(NOUT, np.float32))
        return (np.ascontiguousarray(n.w1), np.ascontiguousarray(n.b1), aligned(n.w2.T), np.ascontiguousarray(n.b2))

    def kernel_args(self) -> tuple[FloatArray, ...]:
        """The 12 weight arrays in the order the compiled kernels expect (per net: ``w1``,
        ``b1``, ``w2`` transposed to 6 x hidden, ``b2``)."""
        out: list[FloatArray] = []
        for n in (self.contact, self.crashed, self.race):
            out += [np.ascontiguousarray(n.w1), np.ascontiguousarray(n.b1), aligned(n.w2.T),
                    np.ascontiguousarray(n.b2)]
        return tuple(out)

    def save(self, path: Path | str, manifest: dict[str, Any] | None = None) -> None:
        """Write ``path`` (.npz) and, when ``manifest`` is given, ``path`` with ``.json``."""
        path = Path(path)
        arrays: dict[str, FloatArray] = {}
        for key, n in self.nets().items():
            arrays[f"{key}_w1"] = n.w1
            arrays[f"{key}_b1"] = n.b1
            arrays[f"{key}_w2"] = n.w2
            arrays[f"{key}_b2"] = n.b2
        if self.prune is not None:
            for k in ("w1", "b1", "w2", "b2"):
                arrays[f"prune_{k}"] = getattr(self.prune, k)
        save_npz_atomic(path, arrays)
        if manifest is not None:
            doc = dict(manifest)
            doc.setdefault("feature_version", F.FEATURE_VERSION)
            doc["inputs"] = {k: n.n_inputs for k, n in self.nets().items()}
            doc["hidden"] = {k: n.hidden for k, n in self.nets().items()}
            if self.prune is not None:
                doc["inputs"]["prune"] = F.N_RAW
                doc["hidden"]["prune"] = self.prune.hidden
            path.with_suffix(".json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")

    @classmethod
    def load(cls, path: Path | str) -> NetSet:
        """Read a net set written by :meth:`save`."""
        path = Path(path)
        with np.load(path) as z:
            nets = {}
            for key in CLASS_KEYS:
                nets[key] = Net(*(aligned(z[f"{key}_{s}"]) for s in ("w1", "b1", "w2", "b2")))
            prune = None
            if "prune_w1" in z.files:
                prune = Net(*(aligned(z[f"prune_{s}"]) for s in ("w1", "b1", "w2", "b2")))
        meta: dict[str, Any] = {}
        mpath = path.with_suffix(".json")
        if mpath.exists():
            meta = json.loads(mpath.read_text())
        return cls(nets["contact"], nets["crashed"], nets["race"], meta, prune)


# ---------------------------------------------------------------------------------------- kernels
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 in two parts: _LN2_HI has 11 trailing zero bits, so k * _LN2_HI is
_LN2_LO = 1.90821492927058770002e-10  # exact for |k| < 2048 and x - k ln 2 keeps its bits


@njit(cache=True, error_model="numpy", fastmath={"contract"}, inline="always")
def exp64(x: float) -> float:
    """e ** x for x in -708..709 (clamped to them), in float64 with a relative error under 1e-12,
    written so that a loop of it vectorises: x = k ln 2 + r with |r| <= ln 2 / 2, e ** r by its Taylor
    polynomial of degree 10 (truncation error below 3e-13), 2 ** k built from its exponent bits. No
    call and no branch (numba's ``math.exp`` is a call to libm per element).

    >>> abs(exp64(1.0) / math.e - 1.0) < 1e-12, exp64(0.0), exp64(-1000.0) > 0.0
    (True, 1.0, True)
    """
    x = max(x, -708.0)
    x = min(x, 709.0)
    k = np.floor(x * _LOG2E + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    return float(p * f64_from_bits((int(k) + 1023) << 52))


@njit(cache=True, error_model="numpy", fastmath={"contract"})
def sigmoid_into(h: np.ndarray, n: int) -> None:
    """``h[j] = 1 / (1 + e ** -h[j])`` for the first ``n`` entries of the float32 array ``h``: the hidden
    layer's sigmoid, vectorised (:func:`exp64`; the numpy error model, so that the division raises
    nothing and the loop has no branch). As the libm version it replaces: e ** -h rounded to float32
    (so that it overflows to infinity and gives 0 where that did), the rest in float64, the result
    rounded to float32; the two differ only where libm's ``expf`` and the exact value round apart,
    by one unit in the last place (about 3 in 10,000 values).

    >>> h = np.array([0.0, 2.0, -100.0, 100.0], np.float32)
    >>> sigmoid_into(h, 4)
    >>> [round(float(v), 6) for v in h]
    [0.5, 0.880797, 0.0, 1.0]
    """
    for j in range(n):
        e = np.float32(exp64(-np.float64(h[j])))
        h[j] = 1.0 / (1.0 + np.float64(e))


@njit(cache=True, fastmath=True)
def forward_one(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2t: np.ndarray, b2: np.ndarray,
                hid: np.ndarray, out: np.ndarray) -> None:
    """Softmax probabilities of one input vector ``x`` into ``out``, one per row of ``w2t``, the
    output layer transposed (outputs x hidden: 6 for the standard nets, 4 or 5 for the variant
    nets); skips zero inputs. The net reads the first ``w1.shape[0]`` entries of ``x``. ``hid``
    is scratch space of at least the hidden size. (:func:`forward_into` with its index space.)"""
    forward_into(x, w1, b1, w2t, b2, hid, out, np.empty(w1.shape[0], np.int64))


@njit(cache=True, fastmath=True)
def forward_into(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2t: np.ndarray, b2: np.ndarray,
                 hid: np.ndarray, out: np.ndarray, nz: np.ndarray) -> None:
    """:func:`forward_one` with the indices of the non-zero inputs gathered into ``nz`` (int64, at
    least ``w1.shape[0]`` entries): nothing allocated, for the hot loops that keep one."""
    nh = w1.shape[1]
    nout = w2t.shape[0]
    nin = w1.shape[0]
    # the non-zero inputs first, without a branch (a test per input mispredicts on sparse inputs);
    # then the same sums in the same order, four input rows at a time (each hidden unit's sum stays
    # in a register across the four: the same additions, a quarter of the loads and stores)
    m = 0
    for i in range(nin):
        nz[m] = i
        m += x[i] != 0.0
    for j in range(nh):
        hid[j] = b1[j]
    k = 0
    while k + 4 <= m:
        i0, i1, i2, i3 = nz[k], nz[k + 1], nz[k + 2], nz[k + 3]
        v0, v1, v2, v3 = x[i0], x[i1], x[i2], x[i3]
        r0, r1, r2, r3 = w1[i0], w1[i1], w1[i2], w1[i3]
        for j in range(nh):
            h = hid[j]
            h += v0 * r0[j]
            h += v1 * r1[j]
            h += v2 * r2[j]
            h += v3 * r3[j]
            hid[j] = h
        k += 4
    while k < m:
        i = nz[k]
        v = x[i]
        row = w1[i]
        for j in range(nh):
            hid[j] += v * row[j]
        k += 1
    sigmoid_into(hid, nh)
    zmax = -1e30
    for k in range(nout):
        s = b2[k]
        row2 = w2t[k]
        for j in range(nh):
            s += hid[j] * row2[j]
        out[k] = s
        if s > zmax:
            zmax = s
    tot = 0.0
    for k in range(nout):
        e = math.exp(out[k] - zmax)
        out[k] = e
        tot += e
    for k in range(nout):
        out[k] /= tot


EVAL_INTS = F.N_CONTACT_EXT + F.ENCODE_INTS
"""The integer work space of :func:`eval_board_into`: the non-zero inputs' indices (as many as the
widest net's inputs), then the encoders' (:data:`analyzer.eval.features.ENCODE_INTS`)."""


@njit(cache=True)
def eval_board(b: np.ndarray, W: tuple, xc: np.ndarray, xr: np.ndarray, hid: np.ndarray,  # type: ignore[type-arg]
               out: np.ndarray) -> int:
    """Outcome probabilities of board ``b`` for its side on roll; returns the board's class.

    ``W`` is :meth:`NetSet.kernel_args`; ``xc``/``xr``/``hid`` are scratch buffers
    (``N_CONTACT_EXT``, ``N_RACE`` and at least the largest hidden size). A contact or crashed
    net with more than ``N_CONTACT`` inputs reads the extended encoding.
    (:func:`eval_board_into` with its integer space.)
    """
    return eval_board_into(b, W, xc, xr, hid, out, np.empty(EVAL_INTS, np.int64))


@njit(cache=True, inline="always")
def eval_board_into(b: np.ndarray, W: tuple, xc: np.ndarray, xr: np.ndarray,  # type: ignore[type-arg]
                    hid: np.ndarray, out: np.ndarray, iw: np.ndarray) -> int:
    """:func:`eval_board` with its integer work space ``iw`` given (at least :data:`EVAL_INTS`
    int64): nothing allocated, for the hot loops that keep one."""
    return eval_class_into(b, F.classify(b), W, xc, xr, hid, out, iw)


@njit(cache=True, inline="always")
def eval_class_into(b: np.ndarray, c: int, W: tuple, xc: np.ndarray, xr: np.ndarray,  # type: ignore[type-arg]
                    hid: np.ndarray, out: np.ndarray, iw: np.ndarray) -> int:
    """:func:`eval_board_into` of a board whose class ``c`` (:func:`analyzer.eval.features.classify`)
    the caller knows."""
    enc = iw[F.N_CONTACT_EXT:]
    if c == F.CLASS_OVER:
        k = F.game_over_outcome(b)
        for i in range(NOUT):
            out[i] = 0.0
        out[k] = 1.0
    elif c == F.CLASS_RACE:
        F.encode_race_into(b, xr, enc)
        forward_into(xr, W[8], W[9], W[10], W[11], hid, out, iw)
    elif c == F.CLASS_CRASHED:
        F.encode_contact_into(b, xc, F.N_CONTACT_EXT if W[4].shape[0] > F.N_CONTACT else F.N_CONTACT, enc)
        forward_into(xc, W[4], W[5], W[6], W[7], hid, out, iw)
    else:
        F.encode_contact_into(b, xc, F.N_CONTACT_EXT if W[0].shape[0] > F.N_CONTACT else F.N_CONTACT, enc)
        forward_into(xc, W[0], W[1], W[2], W[3], hid, out, iw)
    return c


@njit(cache=True)
def swap_outcomes(p: np.ndarray, out: np.ndarray) -> None:
    """The same outcome distribution seen from the other side."""
    for k in range(3):
        a = p[k]
        out[k] = p[k + 3]
        out[k + 3] = a


@njit(cache=True)
def equity6(p: np.ndarray) -> float:
    """Cubeless money equity of an outcome distribution."""
    return float(p[0] + 2.0 * p[1] + 3.0 * p[2] - p[3] - 2.0 * p[4] - 3.0 * p[5])


@njit(cache=True)
def eval_boards_kernel(boards: np.ndarray, W: tuple, out: np.ndarray) -> None:  # type: ignore[type-arg]
    """Probabilities of many boards, each for its own side on roll."""
    xc = np.zeros(F.N_CONTACT_EXT, np.float32)
    xr = np.zeros(F.N_RACE, np.float32)
    nh = max(W[0].shape[1], W[4].shape[1], W[8].shape[1])
    hid = np.zeros(nh, np.float32)
    for i in range(boards.shape[0]):
        eval_board(boards[i], W, xc, xr, hid, out[i])


def evaluate_boards(nets: NetSet, boards: NDArray[np.int8]) -> NDArray[np.float32]:
    """Outcome probabilities (n x 6) of ``boards`` (n x 64), each for its own side on roll."""
    out = np.zeros((boards.shape[0], NOUT), np.float32)
    eval_boards_kernel(np.ascontiguousarray(boards), nets.kernel_args(), out)
    return out
