"""Keep numba's on-disk cache of the evaluator kernels in step with the code they call.

numba (``cache=True``) re-validates a cached function against its *own* source file only. Our
evaluator kernels call compiled functions from other modules (the move generator, the input
encoder, the bear-off lookups), so after a change there the cached callers would keep running
the old callee code, or crash when array layouts changed. :func:`refresh` hashes the sources
of those modules and, when the hash differs from the one recorded next to the cache, deletes
the cached kernels of the dependent modules so that they are compiled afresh;
:func:`refresh_module` does the same for one module that calls into them.

>>> isinstance(refresh(), bool)  # cheap when nothing changed
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
# Modules of the evaluator's layers whose compiled functions are called from other modules' cached kernels.
SOURCES = ("core/layout.py", "rules/kernel.py", "eval/bits.py", "eval/features.py", "eval/net.py", "eval/bearoff.py",
           "eval/_bearoff_gen.py", "eval/engine.py")
# Modules of eval holding cached kernels that call into SOURCES. Modules elsewhere (training, benchmarks)
# keep their own caches in step by calling refresh_module(__file__, ...) themselves.
DEPENDENTS = ("eval/net.py", "eval/engine.py")
_done = False


def _name(path: Path) -> str:
    """``path`` relative to ``analyzer/`` when it lies there (``eval/net.py``), else as it is."""
    try:
        return path.relative_to(_ROOT).as_posix()
    except ValueError:
        return path.as_posix()


def _digest(sources: Iterable[str]) -> str:
    """Hash of the files ``sources`` (paths under ``analyzer/``, or absolute; a missing one counts by name)."""
    h = hashlib.sha256()
    for rel in sources:
        p = _ROOT / rel
        h.update(rel.encode())
        if p.exists():
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _renew(stamp: Path, digest: str, modules: Iterable[Path]) -> bool:
    """Unless ``stamp`` holds ``digest``: delete the cached kernels of ``modules`` (source files)
    and write ``digest`` into ``stamp``. True when files were removed."""
    try:
        if stamp.read_text() == digest:
            return False
    except OSError:
        pass
    removed = False
    for src in modules:
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


def refresh() -> bool:
    """Drop stale cached kernels of the dependent modules; True if anything was removed.

    Runs once per process.
    """
    global _done
    if _done:
        return False
    _done = True
    return _renew(_ROOT / "eval" / "__pycache__" / "jit-deps.stamp", _digest(SOURCES),
                  [(_ROOT / rel).resolve() for rel in DEPENDENTS])


def refresh_module(module_file: str, extra: tuple[str, ...] = ()) -> bool:
    """Delete the cached kernels of ``module_file`` when it or a module its kernels call changed.

    The stamp kept beside its cache covers :data:`SOURCES`, ``extra`` (paths under ``analyzer/``,
    such as ``"eval/selfplay.py"``, or absolute paths) and the module itself, which may lie outside
    the package (a benchmark script). Returns True when files were removed.

    >>> refresh_module(__file__)  # this module has no compiled kernels: nothing to remove
    False
    """
    here = Path(module_file).resolve()
    return _renew(here.parent / "__pycache__" / f"{here.stem}-deps.stamp",
                  _digest((*SOURCES, *extra, _name(here))), [here])
