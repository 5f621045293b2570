"""Match-file readers and writers: JellyFish ``.mat`` (all dialects of our corpus), gnubg ``.sgf``
and eXtreme Gammon's binary ``.xg`` (read only).

:func:`read_any` picks the reader from the file name, or from the first characters of the file.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator

from analyzer._read import open_regular
from analyzer.core.errors import InputError
from analyzer.formats.mat import read_matches, stream_matches
from analyzer.formats.records import MatchRecord, MatchStream
from analyzer.formats.sgf import read_sgf
from analyzer.formats.xg import read_xg, stream_xg

__all__ = ["MATCH_SUFFIXES", "expand_inputs", "read_any", "read_matches", "read_sgf", "read_xg",
           "stream_any"]

MATCH_SUFFIXES = (".mat", ".txt", ".sgf", ".gam", ".xg")


def read_any(path: str | os.PathLike[str]) -> Iterator[MatchRecord]:
    """Read the matches of a file: as XG's binary match when it starts with ``RGMH``, as SGF
    when it is named ``*.sgf`` or starts with ``(;``, otherwise as .mat text."""
    name = os.fspath(path)
    if _is_xg(name):
        return read_xg(name)
    if _is_sgf(name):
        return read_sgf(name)
    return read_matches(name)


def stream_any(path: str | os.PathLike[str]) -> Iterator[MatchStream]:
    """The matches of a file as :class:`~analyzer.formats.records.MatchStream` values, one game at
    a time (.mat text is streamed game by game; an SGF match, a tree, is read whole)."""
    name = os.fspath(path)
    if _is_xg(name):
        return stream_xg(name)
    if _is_sgf(name):
        return (MatchStream.of(r) for r in read_sgf(name))
    return stream_matches(name)


def _is_xg(name: str) -> bool:
    if name.lower().endswith(".xg"):
        return True
    with open_regular(name) as fh:
        return fh.read(4) == b"RGMH"


def _is_sgf(name: str) -> bool:
    if name.lower().endswith(".sgf"):
        return True
    with open_regular(name) as fh:
        head = fh.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"(;")


def expand_inputs(args: list[str], *, walk_errors: list[InputError] | None = None) -> list[str]:
    """The match files named by ``args``: files as given, directories walked (files ending in
    one of :data:`MATCH_SUFFIXES`, sorted), glob patterns expanded (sorted, ``**`` allowed).

    Raises :class:`~analyzer.core.errors.InputError` for an argument that names nothing. A folder
    met in a walk that cannot be read (no permission) is never skipped silently: with
    ``walk_errors`` given, an error naming it is appended there and the folder is put in the list
    in place of its files (reading it fails and says so); without, the error is raised.
    """
    out: list[str] = []
    for arg in args:
        if os.path.isdir(arg):
            found: list[str] = []
            unreadable: list[OSError] = []
            for root, dirs, files in os.walk(arg, onerror=unreadable.append):
                dirs.sort()
                found.extend(os.path.join(root, f) for f in files if f.lower().endswith(MATCH_SUFFIXES))
            for err in unreadable:
                where = str(err.filename) if err.filename is not None else arg
                problem = InputError(f"cannot read the folder ({err.strerror or type(err).__name__}): "
                                     "its match files are left out", file=where)
                if walk_errors is None:
                    raise problem
                walk_errors.append(problem)
                found.append(where)
            out.extend(sorted(found))
        elif os.path.exists(arg):
            out.append(arg)
        elif any(c in arg for c in "*?["):
            # every hit but folders: a FIFO or a device matched is read, and refused by name, not dropped
            hits = sorted(p for p in glob.glob(arg, recursive=True) if not os.path.isdir(p))
            if not hits:
                raise InputError("no file matches the pattern", token=arg)
            out.extend(hits)
        else:
            raise InputError("no such file or directory", token=arg)
    return out
