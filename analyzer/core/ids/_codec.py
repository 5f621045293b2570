"""What the identifiers share: base64 text, bits packed into bytes, and errors that quote the whole identifier.

Bits are packed as in the gnubg IDs: bit k lives in byte k // 8 at bit k % 8 (little-endian).

>>> w = BitWriter()
>>> w.unary(2)
>>> w.bit(1)
>>> b64(w.to_bytes())
'Cw'
>>> r = BitReader(unb64("Cw", "an ID"), "an ID", "Cw")
>>> r.unary(15), r.bit(), r.rest_is_zero()
(2, 1, True)
"""

from __future__ import annotations

import base64

from analyzer.core import layout as L
from analyzer.core.errors import InputError, ParseError, PositionError
from analyzer.core.position import Position
from analyzer.core.variants import all_specs

STD_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
URL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def excerpt(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters (and ``...``) for an error message.

    >>> excerpt("abcdef", 3)
    'abc...'
    """
    return text if len(text) <= limit else text[:limit] + "..."


def relocate(err: InputError, token: str) -> InputError:
    """The same kind of error, quoting the whole identifier."""
    return type(err)(err.message, token=token)


def require_gnubg_board(pos: Position, what: str) -> None:
    """Refuse a position of a variant that gnubg's identifiers (``what``) cannot hold."""
    if not pos.spec.gnubg_ids:
        names = " and ".join(s.name for s in all_specs() if s.gnubg_ids)
        raise PositionError(f"{what} holds {names} positions only", token=pos.variant)


def b64(data: bytes, url: bool = False) -> str:
    """``data`` in base64 without padding (the URL-safe alphabet with ``url``)."""
    enc = base64.urlsafe_b64encode(data) if url else base64.b64encode(data)
    return enc.decode("ascii").rstrip("=")


def unb64(text: str, what: str, url: bool = False) -> bytes:
    """The bytes of unpadded base64 written by :func:`b64`; anything else is a :class:`ParseError`
    that starts with ``what`` (stray bits after the data included, so each text is the only one of
    its bytes)."""
    alphabet = URL_ALPHABET if url else STD_ALPHABET
    for ch in text:
        if ch not in alphabet:
            raise ParseError(f"{what}: character {ch!r} is not base64", token=text)
    if len(text) % 4 == 1:
        raise ParseError(f"{what}: impossible base64 length {len(text)}", token=text)
    padded = text + "=" * (-len(text) % 4)
    data = base64.urlsafe_b64decode(padded) if url else base64.b64decode(padded, validate=True)
    if b64(data, url) != text:
        raise ParseError(f"{what}: stray bits after the data", token=text)
    return data


class BitReader:
    """Reads bits in order from ``data``; errors start with ``what`` and quote ``token``."""

    def __init__(self, data: bytes, what: str, token: str) -> None:
        self.value = int.from_bytes(data, "little")
        self.nbits = 8 * len(data)
        self.pos = 0
        self.what = what
        self.token = token

    def bit(self) -> int:
        """The next bit."""
        if self.pos >= self.nbits:
            raise ParseError(f"{self.what}: the data ends too early", token=self.token)
        b = (self.value >> self.pos) & 1
        self.pos += 1
        return b

    def unary(self, limit: int) -> int:
        """A count written as that many ``1`` bits and a ``0``; more than ``limit`` is too many checkers."""
        x = self.value >> self.pos
        n = (x ^ (x + 1)).bit_length() - 1  # the run of 1 bits (the data holds no bit beyond its end)
        if n > limit:
            raise PositionError(f"{self.what}: more than {L.CHECKERS} checkers for one side",
                                token=self.token)
        if self.pos + n >= self.nbits:
            raise ParseError(f"{self.what}: the data ends too early", token=self.token)
        self.pos += n + 1
        return n

    def rest_is_zero(self) -> bool:
        """True when no bit after the ones read is set."""
        return self.value >> self.pos == 0


class BitWriter:
    """Collects bits in order, for :meth:`to_bytes`."""

    def __init__(self) -> None:
        self.value = 0
        self.nbits = 0

    def bit(self, b: int | bool) -> None:
        """Append one bit."""
        if b:
            self.value |= 1 << self.nbits
        self.nbits += 1

    def unary(self, n: int) -> None:
        """Append ``n`` as ``n`` ``1`` bits and a ``0``.

        >>> w = BitWriter()
        >>> w.unary(3); w.unary(0); w.unary(2)
        >>> w.nbits, format(w.value, "b")
        (8, '1100111')
        """
        if n > 0:
            self.value |= ((1 << n) - 1) << self.nbits
            self.nbits += n
        self.nbits += 1

    def to_bytes(self, nbytes: int | None = None) -> bytes:
        """The bits so far, zero-padded to ``nbytes`` (default: the fewest bytes that hold them)."""
        size = (self.nbits + 7) // 8 if nbytes is None else nbytes
        return self.value.to_bytes(size, "little")
