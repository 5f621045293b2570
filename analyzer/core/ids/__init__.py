"""Text identifiers of positions and match states: gnubg IDs, XGIDs, JSON and our own key.

The formats know the values (:class:`~analyzer.core.position.Position`,
:class:`~analyzer.core.match.MatchState`); the values know none of them. One module per format:

* :mod:`~analyzer.core.ids.position_id`: the gnubg Position ID (``docs/formats.md`` §3.1);
* :mod:`~analyzer.core.ids.match_id`: the gnubg Match ID (§3.2), to and from a match state;
* :mod:`~analyzer.core.ids.xgid`: the XGID (§3.3), to and from a position and a match state;
* :mod:`~analyzer.core.ids.json_form`: the JSON form of a position (every variant), read through
  :mod:`~analyzer.core.ids.json_text` (JSON text read safely);
* :mod:`~analyzer.core.ids.key`: our position key (every variant);
* :mod:`~analyzer.core.ids.spec`: :func:`parse_position_spec`, which reads any of them.

Their public names are importable from here.

>>> from analyzer.core.position import Position
>>> encode_position_id(Position.start())
'4HPwATDgc/ABMA'
>>> encode_key(Position.start("dutch"))
'D.AAAA_v8AAAD8_wE'
>>> decode_key(encode_key(Position.start("mahbusa"))) == Position.start("mahbusa")
True
>>> decode_match_id("cAkAAAAAAAAA").on_roll
1
"""

from __future__ import annotations

from analyzer.core.ids.json_form import position_from_json, position_to_json
from analyzer.core.ids.json_text import MAX_JSON_DEPTH, load_json
from analyzer.core.ids.key import decode_key, encode_key
from analyzer.core.ids.match_id import GameState, MatchID, decode_match_id, encode_match_id, match_id_from_state
from analyzer.core.ids.position_id import decode_position_id, encode_position_id
from analyzer.core.ids.spec import PositionSpec, parse_position_spec
from analyzer.core.ids.xgid import XGID, decode_xgid, encode_xgid, xgid_fields, xgid_from_position, xgid_position

__all__ = [
    "MAX_JSON_DEPTH", "XGID", "GameState", "MatchID", "PositionSpec", "decode_key", "decode_match_id",
    "decode_position_id", "decode_xgid", "encode_key", "encode_match_id", "encode_position_id",
    "encode_xgid", "load_json", "match_id_from_state", "parse_position_spec", "position_from_json",
    "position_to_json", "xgid_fields", "xgid_from_position", "xgid_position",
]
