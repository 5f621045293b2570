"""Writing files safely: every output of bgreview goes through here.

* :func:`atomic_write` (and :func:`atomic_writer`, :func:`atomic_write_with`) writes a temporary file
  in the target's own folder, flushes it to disk and renames it onto the target, so that the target is
  either the old file or the whole new one: a full disk, a crash or Ctrl-C never leaves a cut file, a
  symbolic link planted at the target is replaced (its target is not written through) and a file
  being read is never truncated under its reader. A failure removes the temporary file and raises
  :class:`OutputError` naming the target.
* :func:`check_inside` refuses a path that does not lie inside the output folder (a name like ``..``).
* :func:`safe_stem` makes a file or folder name out of untrusted text (a match file's stem).
* :func:`refuse_same_file` refuses an output that is one of the inputs.

A single-file output the user named (``convert -o``, ``analyze --sgf``, ``play --save``) may be a
character device or a FIFO (``-o /dev/stdout``, ``-o /dev/null``, a pipe): ``special_ok=True`` writes
into it directly, as there is nothing to replace. Inside an output folder, nothing is written through.

>>> import tempfile
>>> from pathlib import Path
>>> with tempfile.TemporaryDirectory() as tmp:
...     p = atomic_write(Path(tmp, "a.txt"), "one\\n")
...     with atomic_writer(p) as fh:
...         _ = fh.write("two\\n")
...     (p.read_text(), sorted(q.name for q in Path(tmp).iterdir()))
('two\\n', ['a.txt'])
>>> safe_stem(".."), safe_stem("Ann / Bob\\n7pt"), safe_stem("...mat")
('match', 'Ann _ Bob_7pt', 'mat')
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, cast

from analyzer.core.errors import AnalyzerError, printable

__all__ = ["TMP_SUFFIX", "OutputError", "atomic_write", "atomic_write_with", "atomic_writer", "check_inside",
           "ensure_folder", "refuse_same_file", "safe_stem", "temporary_name"]

TMP_SUFFIX = ".tmp"
"""Temporary files are ``.<name>.<pid>.<random>.tmp`` beside their target."""

StrPath = str | os.PathLike[str]


class OutputError(AnalyzerError, OSError):
    """A file or folder that cannot be written where it was asked for: ``file`` names it, the message
    says why. The command line prints it as one line, exit code 2.

    It is an :class:`OSError` too (``filename``, ``strerror``), so code that reports an ``OSError`` by its
    file name and reason reports this one the same way.

    >>> str(OutputError("No space left on device", file="out/report.html"))
    'out/report.html: No space left on device'
    """

    def __init__(self, message: str, *, file: StrPath | None = None, code: int | None = None) -> None:
        super().__init__(code or 0, message)
        self.message = message
        self.strerror = message
        self.filename = os.fspath(file) if file is not None else None

    def __str__(self) -> str:
        where = f"{self.filename}: " if self.filename is not None else ""
        return printable(f"{where}{self.message}")

    def __reduce__(self) -> tuple[object, ...]:  # picklable across worker processes
        return (_rebuild, (self.message, self.filename, self.errno))


def _rebuild(message: str, file: str | None, code: int | None) -> OutputError:
    return OutputError(message, file=file, code=code)


def _reason(err: OSError) -> str:
    return err.strerror or str(err) or type(err).__name__


def output_error(err: OSError, path: StrPath) -> OutputError:
    """``err`` as an :class:`OutputError` naming ``path`` (an :class:`OutputError` is kept as it is).

    >>> str(output_error(PermissionError(13, "Permission denied"), "x/y.csv"))
    'x/y.csv: Permission denied'
    """
    if isinstance(err, OutputError):
        return err
    return OutputError(_reason(err), file=path, code=err.errno)


_OS_ERROR = re.compile(r"os error (\d+)")


def _io_failure(err: BaseException, path: StrPath) -> OutputError | None:
    """An :class:`OutputError` for a writer's exception that is an I/O failure without being an ``OSError``
    (polars and pyarrow report a full disk as ``... (os error 28)``), else ``None``.

    >>> str(_io_failure(RuntimeError("parquet: underlying IO error: No space left (os error 28)"), "d.parquet"))
    'd.parquet: No space left on device'
    >>> _io_failure(ValueError("bad column"), "d.parquet") is None
    True
    """
    if isinstance(err, OSError):
        return output_error(err, path)
    m = _OS_ERROR.search(str(err))
    if m is None:
        return None
    code = int(m.group(1))
    return OutputError(os.strerror(code), file=path, code=code)


def temporary_name(path: StrPath) -> Path:
    """A fresh temporary name beside ``path`` (hidden, ends with :data:`TMP_SUFFIX`).

    >>> n = temporary_name("out/report.html")
    >>> (n.parent.as_posix(), n.name.startswith(".report.html."), n.suffix)
    ('out', True, '.tmp')
    """
    p = Path(path)
    return p.with_name(f".{p.name[:100]}.{os.getpid()}.{secrets.token_hex(4)}{TMP_SUFFIX}")


def _special(path: Path) -> bool:
    """Whether ``path`` (its links followed) is a character device or a FIFO."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def _check_target(path: Path) -> None:
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as e:
        raise output_error(e, path) from None
    if stat.S_ISDIR(mode):
        raise OutputError("is a folder, not a file", file=path, code=errno.EISDIR)
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise OutputError("is not a regular file; refusing to replace it", file=path)


def atomic_write_with(path: StrPath, write: Callable[[Path], object], *, inside: StrPath | None = None,
                      special_ok: bool = False) -> Path:
    """Have ``write(tmp)`` write the file at the temporary path ``tmp`` beside ``path``, then rename it onto
    ``path`` (for writers that take a path: Parquet, CSV, matplotlib). ``inside``: the folder ``path`` must
    lie in (:func:`check_inside`). Returns ``path``; raises :class:`OutputError` naming ``path``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = atomic_write_with(Path(tmp, "b.bin"), lambda t: t.write_bytes(b"xy"), inside=tmp)
    ...     p.read_bytes()
    b'xy'
    """
    target = Path(path)
    if inside is not None:
        check_inside(inside, target)
    if special_ok and _special(target):
        try:
            write(target)
        except Exception as e:
            failure = _io_failure(e, target)
            if failure is not None:
                raise failure from None
            raise
        return target
    _check_target(target)
    tmp = temporary_name(target)
    try:
        write(tmp)
        fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        failure = _io_failure(e, target) if isinstance(e, Exception) else None
        if failure is not None:
            raise failure from None
        raise
    return target


class _Handle:
    """A text handle whose write errors name the file the caller asked for (not the temporary one)."""

    def __init__(self, fh: IO[str], target: Path) -> None:
        self._fh = fh
        self._target = target

    def write(self, text: str) -> int:
        try:
            return self._fh.write(text)
        except OSError as e:
            raise output_error(e, self._target) from None

    def __getattr__(self, name: str) -> object:
        return getattr(self._fh, name)


@contextlib.contextmanager
def atomic_writer(path: StrPath, *, inside: StrPath | None = None, special_ok: bool = False) -> Iterator[IO[str]]:
    """A text handle (UTF-8, ``\\n`` line ends) on a temporary file beside ``path``, renamed onto ``path``
    when the block ends without an exception (removed, and the exception passed on, when it raises). For
    writers that stream. Its write errors, and those of the rename, raise :class:`OutputError` naming
    ``path``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     try:
    ...         with atomic_writer(Path(tmp, "c.txt")) as fh:
    ...             _ = fh.write("half")
    ...             raise KeyboardInterrupt
    ...     except KeyboardInterrupt:
    ...         pass
    ...     sorted(Path(tmp).iterdir())
    []
    """
    target = Path(path)
    if inside is not None:
        check_inside(inside, target)
    special = special_ok and _special(target)
    if not special:
        _check_target(target)
    tmp = target if special else temporary_name(target)
    try:
        opened: str | int = (os.fspath(target) if special
                             else os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                                          0o666))
        fh = open(opened, "w", encoding="utf-8", newline="\n")  # noqa: SIM115 (closed below)
    except OSError as e:
        raise output_error(e, target) from None
    done = False
    try:
        yield cast(IO[str], _Handle(fh, target))
        try:
            fh.flush()
            if not special:
                os.fsync(fh.fileno())
            fh.close()
            if not special:
                os.replace(tmp, target)
        except OSError as e:
            raise output_error(e, target) from None
        done = True
    finally:
        with contextlib.suppress(OSError):
            fh.close()
        if not done and not special:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def atomic_write(path: StrPath, data: str | bytes, *, inside: StrPath | None = None,
                 special_ok: bool = False) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` atomically (see the module docstring); returns ``path``.
    Raises :class:`OutputError` naming ``path``."""
    payload = data.encode("utf-8") if isinstance(data, str) else data

    def write(tmp: Path) -> None:
        if tmp == Path(path):  # a device or FIFO, written through
            with open(tmp, "wb") as fh:
                fh.write(payload)
            return
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
        with open(fd, "wb") as fh:
            fh.write(payload)

    return atomic_write_with(path, write, inside=inside, special_ok=special_ok)


def ensure_folder(folder: StrPath) -> Path:
    """Create ``folder`` (and its parents) when missing; raises :class:`OutputError` naming it when it cannot
    be made or is not a folder.

    >>> ensure_folder("README.md")
    Traceback (most recent call last):
    analyzer.core.files.OutputError: README.md: exists and is not a folder
    """
    p = Path(folder)
    if p.exists() and not p.is_dir():
        raise OutputError("exists and is not a folder", file=p, code=errno.ENOTDIR)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError("exists and is not a folder", file=p, code=errno.ENOTDIR) from None
    except OSError as e:
        raise output_error(e, p) from None
    return p


def check_inside(folder: StrPath, path: StrPath) -> Path:
    """Return ``path`` when it lies inside ``folder`` (after resolving ``..`` and the links of its folder),
    else raise :class:`OutputError`. The last component itself is not followed: a link there is replaced by
    an atomic write, not written through.

    >>> check_inside("reports", "reports/x/summary.json").as_posix()
    'reports/x/summary.json'
    >>> check_inside("reports/x", "reports/x/../y.csv")
    Traceback (most recent call last):
    analyzer.core.files.OutputError: reports/x/../y.csv: would be written outside the output folder reports/x
    """
    p = Path(path)
    root = Path(folder).resolve()
    if p.name in ("", ".", ".."):
        raise OutputError(f"would be written outside the output folder {folder}", file=p)
    where = p.parent.resolve() / p.name
    if where != root and root not in where.parents:
        raise OutputError(f"would be written outside the output folder {folder}", file=p)
    return p


_UNSAFE = re.compile(r'[/\\:*?"<>|]|[^\S ]|[^\w\s\x21-\x7e]')


def safe_stem(name: str, default: str = "match", limit: int = 100) -> str:
    """A file or folder name made from untrusted text (a match file's stem, a player's name): path separators,
    control and other invisible characters and ``:*?"<>|`` become ``_``; no leading dot, dash or space (never
    ``.`` or ``..``, never hidden, never an option), at most ``limit`` characters; ``default`` when nothing is
    left. Letters of every script, digits, spaces and the other punctuation stay.

    >>> safe_stem("Ann - Bob 7pt"), safe_stem("../../etc"), safe_stem("-rf"), safe_stem("\\x00")
    ('Ann - Bob 7pt', '_.._etc', 'rf', 'match')
    >>> safe_stem("Zoë\\u2028\\u202eevil")
    'Zoë__evil'
    """
    text = _UNSAFE.sub("_", name)[:limit].lstrip(" .-").rstrip(" .")
    return text if text.strip("._ ") else default


def refuse_same_file(output: StrPath, *inputs: StrPath) -> None:
    """Raise :class:`OutputError` when ``output`` is one of ``inputs`` (the same file under any name: a link,
    a relative path), so that a writer never replaces what it is reading.

    >>> refuse_same_file("README.md", "./README.md")
    Traceback (most recent call last):
    analyzer.core.files.OutputError: README.md: is the input file; write the output to another file
    """
    for src in inputs:
        try:
            same = os.path.samefile(output, src)
        except OSError:
            same = os.path.realpath(output) == os.path.realpath(src)
        if same:
            raise OutputError("is the input file; write the output to another file", file=output)
