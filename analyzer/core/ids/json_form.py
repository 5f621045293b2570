"""The JSON form of a position, for every variant.

``{"variant": "standard", "mover": [24 counts], "opponent": [24 counts], "mover_bar": 0,
"opponent_bar": 0, "mover_off": 0, "opponent_off": 0}``; points are numbered 1..24 from the
mover's side for both lists. Dutch adds ``mover_reserve``, ``opponent_reserve``,
``mover_can_hit`` and ``opponent_can_hit``; Mahbusa adds ``pinned_mover`` and
``pinned_opponent`` (points, mover's numbering; the counts include pinned checkers; the bars
are always 0) and ``"game_end": true`` when the game ended by a special rule.

>>> position_from_json(position_to_json(Position.start("dutch"))) == Position.start("dutch")
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from analyzer.core.errors import ParseError, PositionError
from analyzer.core.ids.json_text import load_json
from analyzer.core.position import Position, canonical_variant
from analyzer.core.variants import DEFAULT_VARIANT, VariantSpec, variant_spec

__all__ = ["position_from_json", "position_to_json"]

_JSON_COMMON = ("variant", "mover", "opponent", "mover_off", "opponent_off", "mover_bar", "opponent_bar")


def _json_keys(spec: VariantSpec) -> tuple[str, ...]:
    """The keys a JSON position of the variant may have (the bars always, 0 without a bar)."""
    return (_JSON_COMMON + (("mover_reserve", "opponent_reserve") if spec.reserve else ())
            + (("mover_can_hit", "opponent_can_hit") if spec.hit_lock else ())
            + (("pinned_mover", "pinned_opponent") if spec.pins else ()) + (("game_end",) if spec.mother_rule else ()))


def position_to_json(pos: Position) -> dict[str, Any]:
    """The JSON form of a position (a dict ready for :func:`json.dumps`).

    >>> d = position_to_json(Position.start())
    >>> d["mover"][23], d["opponent"][0], d["mover_bar"], sorted(d)[:3]
    (2, 2, 0, ['mover', 'mover_bar', 'mover_off'])
    """
    out: dict[str, Any] = {"variant": pos.variant, "mover": list(pos.mover),
                           "opponent": list(pos.opponent)}
    out["mover_bar"] = pos.mover_bar  # always 0 in Mahbusa
    out["opponent_bar"] = pos.opponent_bar
    out["mover_off"] = pos.mover_off
    out["opponent_off"] = pos.opponent_off
    spec = pos.spec
    if spec.reserve:
        out["mover_reserve"] = pos.mover_reserve
        out["opponent_reserve"] = pos.opponent_reserve
    if spec.hit_lock:
        out["mover_can_hit"] = pos.mover_can_hit
        out["opponent_can_hit"] = pos.opponent_can_hit
    if spec.pins:
        out["pinned_mover"] = list(pos.pinned_mover)
        out["pinned_opponent"] = list(pos.pinned_opponent)
    if spec.mother_rule and pos.game_end_flag:
        out["game_end"] = True
    return out


def _json_int(obj: Mapping[str, Any], key: str, default: int | None) -> int | None:
    if key not in obj:
        return default
    v = obj[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise ParseError(f"JSON position: {key} must be an integer", token=json.dumps(v))
    return int(v)


def _json_bool(obj: Mapping[str, Any], key: str) -> bool | None:
    if key not in obj:
        return None
    v = obj[key]
    if not isinstance(v, bool):
        raise ParseError(f"JSON position: {key} must be true or false", token=json.dumps(v))
    return v


def _json_points(obj: Mapping[str, Any], key: str) -> list[int]:
    v = obj.get(key, [])
    if not isinstance(v, list) or any(isinstance(p, bool) or not isinstance(p, int) for p in v):
        raise ParseError(f"JSON position: {key} must be a list of points", token=json.dumps(v))
    for p in v:
        if not 1 <= p <= 24:
            raise PositionError(f"JSON position: {key} holds a point out of range", token=str(p))
    return list(v)


def position_from_json(obj: Mapping[str, Any] | str, variant: str | None = None) -> Position:
    """Read the JSON form (a dict or its text). Borne-off counts default to what makes 15.

    >>> position_from_json('{"variant": "standard", "mover": [0,0,0,0,0,15] + [0]*18}')
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: JSON position: not valid JSON (Expecting ',' delimiter at column 49): \
'{"variant": "standard", "mover": [0,0,0,0,0,15] + [0]*18}'
    >>> position_from_json({"mover": [0] * 5 + [15] + [0] * 18, "opponent": [0] * 18 + [15] + [0] * 5}).pips()
    (90, 90)
    """
    if isinstance(obj, str):
        loaded = load_json(obj, "JSON position")
        if not isinstance(loaded, dict):
            raise ParseError("JSON position: expected an object", token=obj)
        obj = loaded
    raw_variant = obj.get("variant", variant or DEFAULT_VARIANT)
    if not isinstance(raw_variant, str):
        raise ParseError("JSON position: variant must be a string", token=json.dumps(raw_variant))
    spec = variant_spec(raw_variant)
    var = spec.name
    if variant is not None and canonical_variant(variant) != var:
        raise ParseError(f"JSON position: a {var} position where {variant} was asked", token=raw_variant)
    unknown = sorted(set(obj) - set(_json_keys(spec)))
    if unknown:
        raise ParseError(f"JSON position: unknown key for a {var} position", token=unknown[0])
    counts: dict[str, list[int]] = {}
    for side in ("mover", "opponent"):
        v = obj.get(side)
        if (not isinstance(v, list) or len(v) != 24
                or any(isinstance(n, bool) or not isinstance(n, int) for n in v)):
            raise ParseError(f"JSON position: {side} must be a list of 24 integers", token=json.dumps(v))
        counts[side] = v
    try:
        return Position.from_points(
            counts["mover"], counts["opponent"],
            mover_bar=_json_int(obj, "mover_bar", 0) or 0,
            opponent_bar=_json_int(obj, "opponent_bar", 0) or 0,
            mover_off=_json_int(obj, "mover_off", None), opponent_off=_json_int(obj, "opponent_off", None),
            mover_reserve=_json_int(obj, "mover_reserve", 0) or 0,
            opponent_reserve=_json_int(obj, "opponent_reserve", 0) or 0,
            mover_can_hit=_json_bool(obj, "mover_can_hit"),
            opponent_can_hit=_json_bool(obj, "opponent_can_hit"),
            pinned_mover=_json_points(obj, "pinned_mover"),
            pinned_opponent=_json_points(obj, "pinned_opponent"),
            game_end=bool(_json_bool(obj, "game_end")), variant=var)
    except OverflowError:
        raise PositionError("JSON position: count out of range") from None
