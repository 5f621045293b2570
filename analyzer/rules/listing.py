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

from analyzer.core.errors import InputError, ParseError
from analyzer.core.ids import encode_key, encode_position_id, parse_position_spec, position_to_json
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
        if pos.variant == "standard":
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
    digits = [c for c in text if c.isdigit()]
    rest = [c for c in text if not c.isdigit() and c not in " -,/"]
    if len(digits) != 2 or rest:
        raise ParseError("dice must be two digits 1-6, e.g. 31", token=text)
    return check_dice((int(digits[0]), int(digits[1])))


def moves_batch_line(line: str, variant: str | None = None) -> dict[str, Any]:
    """Answer one ``--batch`` input line ``{"position": P, "dice": [a, b]}``.

    ``P`` is any position text (ID, XGID, key) or the JSON form as an object. An optional
    ``"variant"`` names the variant of IDs that do not carry one. Bad input gives
    ``{"error": "..."}`` instead of raising.

    >>> plays = moves_batch_line('{"position": "4HPwATDgc/ABMA", "dice": [6, 6]}')["plays"]
    >>> "24/18(2) 13/7(2)" in [p["play"] for p in plays]
    True
    >>> moves_batch_line('{"position": "nonsense", "dice": [1, 2]}')["error"][:12]
    'not a positi'
    """
    try:
        obj = json.loads(line)
        if not isinstance(obj, dict):
            raise ParseError("each batch line must be a JSON object", token=line.strip()[:60])
        var = obj.get("variant", variant)
        if var is not None and not isinstance(var, str):
            raise ParseError("variant must be a string", token=str(var))
        p = obj.get("position")
        if isinstance(p, dict):
            spec_text = json.dumps(p)
        elif isinstance(p, str):
            spec_text = p
        else:
            raise ParseError("missing or bad 'position'", token=str(p)[:60])
        pos = parse_position_spec(spec_text, variant=var).position
        dice = obj.get("dice")
        if isinstance(dice, str):
            d = parse_dice_text(dice)
        elif isinstance(dice, list) and len(dice) == 2 and all(isinstance(x, int) for x in dice):
            d = check_dice((dice[0], dice[1]))
        else:
            raise ParseError("missing or bad 'dice' (expected [a, b])", token=str(dice)[:60])
        return {"plays": legal_play_rows(pos, d)}
    except json.JSONDecodeError as e:
        return {"error": f"not JSON: {e.msg} at column {e.colno}"}
    except InputError as e:
        return {"error": str(e)}
