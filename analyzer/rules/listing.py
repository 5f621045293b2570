"""Legal-play listings as plain data, for the ``moves`` command and its ``--batch`` mode.

>>> from analyzer.core.position import Position
>>> rows = legal_play_rows(Position.start(), (6, 5))
>>> [r["play"] for r in rows]
['13/2', '13/7 8/3', '13/8 13/7', '24/13', '24/18 13/8', '24/18 8/3', '8/3 8/2']
>>> rows[3]["position_id"]
'4HPwAyDgc/ABMA'
"""

from __future__ import annotations

import json
from typing import Any

from analyzer.core.dice import dice_from_data
from analyzer.core.errors import InputError, ParseError
from analyzer.core.ids import encode_key, encode_position_id, load_json, parse_position_spec, position_to_json
from analyzer.core.position import Position
from analyzer.rules import find_variant
from analyzer.rules.base import Variant, check_dice


def rules_for(pos: Position, rules: Variant | None = None) -> Variant:
    """The rules object for ``pos`` (``rules`` when given and of the right variant)."""
    if rules is not None and rules.name == pos.variant:
        return rules
    return find_variant(pos.variant)


def legal_play_rows(pos: Position, dice: tuple[int, int], rules: Variant | None = None, *,
                    compiled: bool = True) -> list[dict[str, Any]]:
    """Every legal play as a dict: ``play`` (canonical text), ``result`` (JSON form, still seen from
    the mover), ``key`` (our position key of the result with the opponent on roll) and, for
    standard positions, ``position_id`` (gnubg Position ID of the result, opponent on roll).

    An unplayable roll gives an empty list. ``compiled=False`` uses the plain-Python reference
    generator (same plays; no compiler to load for a single query).
    """
    v = rules_for(pos, rules)
    d = check_dice(dice)
    plays = v.legal_plays(pos, d) if compiled else v.reference_plays(pos, d)
    rows: list[dict[str, Any]] = []
    for p in plays:
        if not p.hops:
            continue
        nxt = p.result.flip()
        row: dict[str, Any] = {"play": p.text, "result": position_to_json(p.result)}
        if pos.spec.gnubg_ids:
            row["position_id"] = encode_position_id(nxt)
        row["key"] = encode_key(nxt)
        outcome = v.outcome(p.result)
        if outcome is not None:
            row["outcome"] = {"winner": "mover" if outcome.winner == 0 else "opponent",
                              "points": outcome.points, "kind": outcome.kind}
        rows.append(row)
    return rows


def parse_dice_text(text: str) -> tuple[int, int]:
    """Read dice written ``31``, ``3-1``, ``3,1`` or ``3 1``.

    >>> parse_dice_text("6-5")
    (6, 5)
    """
    digits = [c for c in text if c in "0123456789"]
    rest = [c for c in text if c not in "0123456789 -,/"]
    if len(digits) != 2 or rest:
        raise ParseError("dice must be two digits 1-6, e.g. 31", token=text)
    return check_dice((int(digits[0]), int(digits[1])))


def batch_object(raw: bytes | str, line: int) -> dict[str, Any]:
    """Read one line of a JSON-lines batch as a JSON object; a :class:`ParseError` naming the
    line says why it is not one (not UTF-8, blank, not JSON, nested too deep, not an object).

    Batches are read as bytes (a file opened ``"rb"``, ``sys.stdin.buffer``): lines end at
    ``\\n`` only, so a ``\\r`` or another line separator inside a line keeps it whole, and a
    line that is not UTF-8 fails alone. Every input line, blank ones too, gets one answer.

    >>> batch_object(b'{"dice": [3, 1]}\\r\\n', 1)
    {'dice': [3, 1]}
    >>> batch_object(b"  \\n", 4)
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: line 4: blank line (expected a JSON object)
    >>> batch_object(b'{"a": "\\xff"}', 2)
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: line 2: not UTF-8: byte 0xff at column 8
    """
    if isinstance(raw, bytes):
        if line == 1 and raw.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte order mark
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ParseError(f"not UTF-8: byte 0x{raw[e.start]:02x} at column {e.start + 1}", line=line) from None
    else:
        text = raw
    if not text.strip():
        raise ParseError("blank line (expected a JSON object)", line=line)
    try:
        obj = load_json(text, "batch line")
    except ParseError as e:
        raise e.located(line=line) from None
    if not isinstance(obj, dict):
        raise ParseError("each batch line must be a JSON object", line=line, token=text.strip()[:60])
    return obj


def batch_error(err: InputError, line: int) -> dict[str, Any]:
    """The output object of a batch line that failed: ``{"error": "line N: ...", "line": N}``.

    >>> batch_error(ParseError("blank line"), 3)
    {'error': 'line 3: blank line', 'line': 3}
    """
    return {"error": str(err.located(line=line)), "line": line}


def moves_batch_line(line: bytes | str, variant: str | None = None, number: int = 1) -> dict[str, Any]:
    """Answer one ``--batch`` input line ``{"position": P, "dice": [a, b]}`` (line ``number``).

    ``P`` is any position text (ID, XGID, key) or the JSON form as an object; a finished game
    is no position to play. ``dice`` is a list of two whole numbers 1 to 6 or the text of a
    roll (``"31"``). An optional ``"variant"`` names the variant of IDs that do not carry one.
    Bad input gives ``{"error": "line N: ...", "line": N}`` instead of raising.

    >>> plays = moves_batch_line('{"position": "4HPwATDgc/ABMA", "dice": [6, 6]}')["plays"]
    >>> "24/18(2) 13/7(2)" in [p["play"] for p in plays]
    True
    >>> moves_batch_line('{"position": "nonsense", "dice": [1, 2]}', number=7)["error"][:20]
    'line 7: not a positi'
    """
    try:
        obj = batch_object(line, number)
        var = obj.get("variant", variant)
        if var is not None and not isinstance(var, str):
            raise ParseError("variant must be a string", token=json.dumps(var)[:60])
        p = obj.get("position")
        if isinstance(p, dict):
            p = json.dumps(p)
        if isinstance(p, str):
            pos = parse_position_spec(p, variant=var).position
        else:
            raise ParseError("missing or bad 'position' (a text or a JSON position object)",
                             token=json.dumps(p)[:60])
        dice = obj.get("dice")
        d = parse_dice_text(dice) if isinstance(dice, str) else dice_from_data(dice)
        return {"plays": legal_play_rows(pos, d)}
    except InputError as e:
        return batch_error(e, number)
