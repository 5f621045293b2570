"""Keep numba's on-disk cache of the evaluator kernels in step with the code they call.

numba (``cache=True``) re-validates a cached function against its *own* source file only. Our
evaluator kernels call compiled functions from other modules (the move generator, the input
encoder, the bear-off lookups), so after a change there the cached callers would keep running
the old callee code, or crash when array layouts changed. :func:`refresh` hashes the sources
of those modules and, when the hash differs from the one recorded next to the cache, deletes
the cached kernels of the dependent modules so that they are compiled afresh.

>>> isinstance(refresh(), bool)  # cheap when nothing changed
True
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
# Modules whose compiled functions are called from other modules' cached kernels.
SOURCES = ("core/layout.py", "rules/kernel.py", "eval/features.py", "eval/net.py", "eval/bearoff.py",
           "eval/_bearoff_gen.py", "eval/engine.py", "train/selfplay.py")
# Modules holding cached kernels that call into SOURCES.
DEPENDENTS = ("eval/net.py", "eval/engine.py", "train/selfplay.py", "../bench/strength.py")
_done = False


def _digest() -> str:
    h = hashlib.sha256()
    for rel in SOURCES:
        p = _ROOT / rel
        h.update(rel.encode())
        if p.exists():
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def refresh() -> bool:
    """Drop stale cached kernels of the dependent modules; True if anything was removed.

    Runs once per process.
    """
    global _done
    if _done:
        return False
    _done = True
    stamp = _ROOT / "eval" / "__pycache__" / "jit-deps.stamp"
    digest = _digest()
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    removed = False
    for rel in DEPENDENTS:
        src = (_ROOT / rel).resolve()
        cache = src.parent / "__pycache__"
        if not cache.is_dir():
            continue
        for f in cache.glob(src.stem + ".*.nb[ic]"):
            try:
                f.unlink()
                removed = True
            except OSError:
                pass
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass
    return removed
