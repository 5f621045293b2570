"""Match-file readers and writers: JellyFish ``.mat`` (all dialects of our corpus) and gnubg ``.sgf``.

:func:`read_any` picks the reader from the file name, or from the first characters of the file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from analyzer.formats.mat import read_matches
from analyzer.formats.records import MatchRecord
from analyzer.formats.sgf import read_sgf

__all__ = ["MATCH_SUFFIXES", "read_any", "read_matches", "read_sgf"]

MATCH_SUFFIXES = (".mat", ".txt", ".sgf", ".gam")


def read_any(path: str | os.PathLike[str]) -> Iterator[MatchRecord]:
    """Read the matches of a file, as SGF when it is named ``*.sgf`` or starts with ``(;``,
    otherwise as .mat text."""
    name = os.fspath(path)
    if name.lower().endswith(".sgf"):
        return read_sgf(name)
    with open(name, "rb") as fh:
        head = fh.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"(;"):
        return read_sgf(name)
    return read_matches(name)
