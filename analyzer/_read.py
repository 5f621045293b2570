"""Bounded reads of the user's files: regular files only, every read and every line of limited size.

A FIFO, a device (``/dev/zero``), a socket or a folder given where a file is expected would make a
plain ``open(...).read()`` hang or eat the memory; the helpers here refuse them with an
:class:`~analyzer.core.errors.InputError` naming the file, and turn the operating system's refusals
(no such file, permission denied) into one too, so that a command prints one line and exits 2.

This module imports only :mod:`analyzer.core.errors`: every layer above ``core`` may use it.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "a.txt")
>>> _ = open(path, "w").write("one\\ntwo\\n")
>>> read_limited(path, 100, what="alias file")
b'one\\ntwo\\n'
>>> with open_regular(path) as fh:
...     list(bounded_lines(fh, 10, name=path))
[b'one', b'two']
>>> try:
...     open_regular(folder)
... except ReadError as e:
...     print(str(e).replace(folder, "DIR"))
DIR: not a regular file (a folder)
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from typing import BinaryIO

from analyzer.core.errors import InputError

__all__ = ["MAX_LINE", "ReadError", "bounded_lines", "check_regular", "open_regular", "read_limited"]

MAX_LINE = 64 << 10
"""The longest line a line-by-line input (``moves --batch``, an alias file) may have (64 KiB)."""

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class ReadError(InputError):
    """A file that cannot be read: missing, not a regular file, unreadable or too large."""


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a file"


def _os_error(err: OSError, name: str) -> ReadError:
    if isinstance(err, FileNotFoundError):
        return ReadError("no such file", file=name)
    if isinstance(err, PermissionError):
        return ReadError("permission denied: the file cannot be read", file=name)
    if isinstance(err, IsADirectoryError):
        return ReadError("not a regular file (a folder)", file=name)
    return ReadError(f"cannot read the file ({err.strerror or type(err).__name__})", file=name)


def check_regular(path: str | os.PathLike[str]) -> None:
    """Raise :class:`ReadError` unless ``path`` names a regular file (symbolic links followed) that exists.

    >>> check_regular("/dev/null")
    Traceback (most recent call last):
    ...
    analyzer._read.ReadError: /dev/null: not a regular file (a character device)
    """
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except OSError as err:
        raise _os_error(err, name) from None
    if not stat.S_ISREG(st.st_mode):
        raise ReadError(f"not a regular file ({_kind(st.st_mode)})", file=name)


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for binary reading, when it is a regular file; else :class:`ReadError`.

    The file is opened without blocking (a FIFO with no writer would block a plain ``open``) and
    checked on the open descriptor, so that a file swapped between a check and the open is caught too.
    """
    name = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(name, flags)
    except OSError as err:
        raise _os_error(err, name) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ReadError(f"not a regular file ({_kind(st.st_mode)})", file=name)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_limited(path: str | os.PathLike[str], limit: int, *, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``; :class:`ReadError` when it is larger than ``limit``
    bytes (or not a regular file, or unreadable)."""
    name = os.fspath(path)
    with open_regular(name) as fh:
        try:
            data = fh.read(limit + 1)
        except OSError as err:
            raise _os_error(err, name) from None
    if len(data) > limit:
        raise ReadError(f"{what} larger than {_size(limit)}", file=name)
    return data


def bounded_lines(fh: BinaryIO, limit: int = MAX_LINE, *, name: str = "<stdin>",
                  max_lines: int | None = None) -> Iterator[bytes]:
    """The lines of a binary handle, without their line ends, each read with at most ``limit``
    bytes in memory: a longer line (``/dev/zero`` has one endless line) raises :class:`ReadError`
    naming the line, and so does a line beyond ``max_lines``.

    >>> import io
    >>> list(bounded_lines(io.BytesIO(b"a\\r\\nbb\\n\\nc")))
    [b'a', b'bb', b'', b'c']
    >>> list(bounded_lines(io.BytesIO(b"abcdef\\n"), 4, name="in.txt"))
    Traceback (most recent call last):
    ...
    analyzer._read.ReadError: in.txt:1: line longer than 4 bytes
    """
    number = 0
    while True:
        line = fh.readline(limit + 1)
        if not line:
            return
        number += 1
        if max_lines is not None and number > max_lines:
            raise ReadError(f"more than {max_lines:,} lines", file=name, line=number)
        if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
            raise ReadError(f"line longer than {_size(limit)}", file=name, line=number)
        yield line.rstrip(b"\r\n") if line.endswith(b"\n") else line


def _size(n: int) -> str:
    """``n`` bytes in words: ``4 bytes``, ``64 KiB``, ``16 MiB``."""
    for shift, unit in ((20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift:,} {unit}"
    return f"{n:,} bytes"
