"""The files bgreview ships: the nets, the match equity tables and the sample matches.

They live in the repository's top-level ``data/`` folder (``data/nets``, ``data/met``, ``data/samples``,
``data/bearoff``). A wheel or an sdist carries them inside the package as ``analyzer/_data/...``:
``pyproject.toml`` maps the package ``analyzer._data`` onto ``data/`` and names the shipped files
(the lab, with the training code, checkpoints and records, is the top-level ``lab/`` folder, outside the
package). Every installation reads them as that package through :mod:`importlib.resources`: an editable install maps
``analyzer._data`` onto the checkout's ``data/`` (which has an ``__init__.py`` for that), a wheel carries it.

This module imports nothing else of ``analyzer``: every layer may use it.

>>> data_path("nets", "standard.npz").name
'standard.npz'
>>> "boardlord-llabba-7p.mat" in sample_names()
True
"""

from __future__ import annotations

import os
import shutil
from functools import cache
from importlib.resources import files
from pathlib import Path

__all__ = ["cache_root", "copy_sample", "data_dir", "data_path", "sample_names", "sample_path"]


def cache_root() -> Path:
    """The folder of what bgreview builds once and keeps between runs (the bear-off databases, the compiled
    report templates): ``$BGREVIEW_CACHE``, else ``~/.cache/bgreview``. It may not exist yet.

    >>> cache_root().name in ("bgreview", os.path.basename(os.environ.get("BGREVIEW_CACHE", "")))
    True
    """
    env = os.environ.get("BGREVIEW_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "bgreview"

@cache
def data_dir() -> Path:
    """The folder holding the shipped data: the package ``analyzer._data`` (a wheel's
    ``analyzer/_data``; in an editable install the checkout's ``data/``, mapped by the install).

    An installation that is not a plain folder (a zip archive) has no path to give: the packaged
    location is returned all the same, and reading a file there fails naming it.

    >>> (data_dir() / "met" / "kazaross-xg2.json").is_file()
    True
    """
    packaged = files("analyzer._data")
    return packaged if isinstance(packaged, Path) else Path(str(packaged))


def data_path(*parts: str) -> Path:
    """The path of a shipped file, ``parts`` below the data folder (``"nets", "standard.npz"``).

    Whether the file exists is not checked: the reader of the file says which one is missing.

    >>> data_path("met", "kazaross-xg2.json").relative_to(data_dir()).as_posix()
    'met/kazaross-xg2.json'
    """
    return data_dir().joinpath(*parts)


def sample_names() -> list[str]:
    """The file names of the sample matches shipped with bgreview, sorted.

    >>> sample_names()[:1]
    ['boardlord-llabba-7p.mat']
    """
    folder = data_path("samples")
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.suffix == ".mat" and p.is_file())


def sample_path(name: str) -> Path:
    """The path of the shipped sample ``name`` (its file name, with or without ``.mat``).

    Raises :class:`FileNotFoundError` naming the samples there are when there is no such sample.

    >>> sample_path("dutch-selfplay-3p").name
    'dutch-selfplay-3p.mat'
    >>> sample_path("nonesuch")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    FileNotFoundError: no sample called 'nonesuch' (samples: boardlord-llabba-7p.mat, ...)
    """
    names = sample_names()
    wanted = name if name.endswith(".mat") else name + ".mat"
    if wanted not in names:
        raise FileNotFoundError(f"no sample called {name!r} (samples: {', '.join(names) or 'none'})")
    return data_path("samples", wanted)


def copy_sample(name: str, dest: str | Path) -> Path:
    """Copy the shipped sample ``name`` into the folder ``dest`` (made if missing); returns the copy's path.

    An existing file of that name in ``dest`` is replaced, whole: the copy goes into a temporary file beside it
    first and is renamed into place (this module imports nothing of ``analyzer``, so it does it itself rather
    than through :mod:`analyzer.core.files`).

    >>> import tempfile
    >>> copy = copy_sample("boardlord-llabba-7p", tempfile.mkdtemp())
    >>> copy.name, copy.read_bytes() == sample_path("boardlord-llabba-7p").read_bytes()
    ('boardlord-llabba-7p.mat', True)
    """
    source = sample_path(name)
    folder = Path(dest)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / source.name
    tmp = folder / f".{source.name}.{os.getpid()}.tmp"
    try:
        shutil.copyfile(source, tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target
