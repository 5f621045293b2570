"""Exceptions raised by bgreview.

Every error that comes from bad input subclasses :class:`ValueError` and carries, where it is
known, the file, line, column and the offending token, so that a message can point the user at
the exact place.

>>> err = ParseError("not a move", file="m.mat", line=12, column=7, token="13/x")
>>> str(err)
"m.mat:12:7: not a move: '13/x'"
"""

from __future__ import annotations


class AnalyzerError(Exception):
    """Base class of every bgreview error."""


class InputError(AnalyzerError, ValueError):
    """Bad input: carries an optional location and the offending token."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        token: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.token = token

    def located(
        self, *, file: str | None = None, line: int | None = None, column: int | None = None
    ) -> InputError:
        """Fill in location fields that are still unknown and return ``self``."""
        if self.file is None:
            self.file = file
        if self.line is None:
            self.line = line
        if self.column is None:
            self.column = column
        return self

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = shorten(self.file, FILE_SHOWN)
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        elif self.line is not None:
            where = f"line {self.line}: "
        tail = f": {_cut(self.token)}" if self.token is not None else ""
        return printable(f"{where}{self.message}") + tail


TOKEN_SHOWN = 80
"""The most characters of an offending token an error line echoes (a 100 kB argument is cut)."""
FILE_SHOWN = 300
"""The most characters of a file name an error line shows (a name given that names nothing may be long)."""


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis and its length, for an error line.

    >>> shorten("m.mat", 300)
    'm.mat'
    >>> shorten("x" * 5000, 10)
    'xxxxxxxxxx… (5,000 characters)'
    """
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def _cut(token: str) -> str:
    """The token as an error line shows it: quoted, cut to :data:`TOKEN_SHOWN` characters with its length.

    >>> _cut("13/x")
    "'13/x'"
    >>> _cut("x" * 100_000)[-40:]
    "xxxxxxxxxxxxxxx'... (100,000 characters)"
    """
    if len(token) <= TOKEN_SHOWN:
        return repr(token)
    return f"{token[:TOKEN_SHOWN]!r}... ({len(token):,} characters)"


def printable(text: str) -> str:
    """``text`` with every non-printable character escaped (``\\r``, ``\\x1b``, ``\\u2028``), so that
    a name or a file name from an input file cannot break or forge an error line.

    >>> printable("bob\\r; evil\\x1b[2J")
    'bob\\\\r; evil\\\\x1b[2J'
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class ParseError(InputError):
    """Text that cannot be read (an ID, a move, a line of a match file)."""


class PositionError(InputError):
    """A position that breaks the rules of its variant (too many checkers, ...)."""


class IllegalPlayError(InputError):
    """A recorded play that no legal play of the roll matches."""


class AmbiguousPlayError(InputError):
    """A recorded play that more than one legal play matches."""


class RulesError(InputError):
    """An action that the rules forbid (a double in the Crawford game, ...)."""


class SettingsError(AnalyzerError, ValueError):
    """Settings that cannot be honoured: a value out of its range, or one that an engine cannot do
    (a ply deeper than it searches). ``setting`` names the setting as the library calls it
    (``"ply"``, ``"confirm.futility"``), ``detail`` says what it must be; the message is the two
    together, one line. The command line shows the option's name in place of the setting's.

    >>> err = SettingsError("must be 0..2 for dutch", setting="ply")
    >>> str(err), err.setting, err.detail
    ('ply must be 0..2 for dutch', 'ply', 'must be 0..2 for dutch')
    """

    def __init__(self, detail: str, *, setting: str) -> None:
        super().__init__(f"{setting} {detail}")
        self.setting = setting
        self.detail = detail

    def __reduce__(self) -> tuple[object, ...]:  # keyword-only arguments: pickled for worker processes
        return (_settings_error, (self.detail, self.setting))


def _settings_error(detail: str, setting: str) -> SettingsError:
    return SettingsError(detail, setting=setting)
