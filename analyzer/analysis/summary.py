"""The analysis summary as typed records: what ``summary.json`` holds, field by field.

:class:`AnalysisSummary` is :attr:`MatchAnalysis.summary <analyzer.analysis.analyze.MatchAnalysis.summary>`:
its :class:`AnalysisMetadata` (engine and nets, ply or rollouts, filters, seed, thresholds, MET,
equity basis), its :class:`MatchInfo` (the record's header, the games, how each ended, the
confirmation counts) and one :class:`PlayerStats` per side (:func:`analyzer.analysis.stats.player_stats`).

Every record writes its JSON form with :meth:`~_Record.as_dict` (the keys of ``summary.json`` in
their order; tuples become lists) and reads it back with :meth:`~_Record.from_json`. Reading is
tolerant, for the summaries older versions wrote (and the batch part files keep): a key that is
not there takes the field's default and is remembered in ``missing``, a key the record does not
know is kept in ``extra`` (metadata), so that ``from_json(d).as_dict() == d`` for every summary
that was ever written (the keys in the order of the fields).

>>> p = PlayerStats.from_json({"name": "ann", "side": 0, "decisions": 3, "unforced": 2, "luck": 0.5})
>>> p.name, p.unforced, p.mean_error, sorted(p.as_dict())
('ann', 2, None, ['decisions', 'luck', 'name', 'side', 'unforced'])
>>> PlayerStats.from_json(p.as_dict()) == p
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, Field, dataclass, field, fields
from typing import Any, ClassVar, Self, TypeVar

__all__ = ["AnalysisMetadata", "AnalysisSummary", "ConfirmRecord", "ConfirmedCounts", "EngineInfo", "FilterRecord",
           "GameResult", "MatchInfo", "PlayerStats", "RolloutRecord"]

_R = TypeVar("_R", bound="_Record")

_READ = "read"
"""Field metadata: how to turn the JSON value into the field's value (default: as it is)."""
_OMIT_NONE = "omit_none"
"""Field metadata: the key is left out of the JSON form when the value is ``None``."""
_FLAT = "flat"
"""Field metadata: a record whose keys sit in the parent's JSON object, not under a key of its own."""


def _plain(value: Any) -> Any:
    """The JSON form of a field's value: records as objects, tuples as lists, mappings copied."""
    if isinstance(value, _Record):
        return value.as_dict()
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _opt(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``read`` for a value that may be ``None``."""
    return lambda v: None if v is None else read(v)


def _strs(v: Any) -> tuple[str, ...]:
    return tuple(str(x) for x in v)


def _ints(v: Any) -> tuple[int, ...]:
    return tuple(int(x) for x in v)


def _counts(v: Any) -> dict[str, int]:
    return {str(k): int(n) for k, n in v.items()}


def _nested(cls: type[_R]) -> Callable[[Any], _R]:
    return cls.from_json


class _Record:
    """A summary record: JSON out in field order, JSON in tolerant of missing and unknown keys."""

    __slots__ = ()
    _EXTRA: ClassVar[bool] = False
    """Whether unknown keys are kept (in the ``extra`` field) instead of ignored."""

    def _emit(self, name: str) -> bool:
        """Whether field ``name`` is written (a record may make one key depend on another)."""
        return True

    def _writes(self, f: Field[Any]) -> bool:
        """Whether the JSON form has a key for field ``f`` whatever was read."""
        if f.name in ("missing", "extra") or not self._emit(f.name):
            return False
        return not (f.metadata.get(_OMIT_NONE) and getattr(self, f.name) is None)

    def as_dict(self) -> dict[str, Any]:
        """The record's JSON form: the keys in field order (those read as missing left out)."""
        out: dict[str, Any] = {}
        missing: frozenset[str] = getattr(self, "missing", frozenset())
        for f in fields(self):  # type: ignore[arg-type]
            if f.name in missing or not self._writes(f):
                continue
            value = getattr(self, f.name)
            if f.metadata.get(_FLAT):
                out.update(value.as_dict())
            else:
                out[f.name] = _plain(value)
        if self._EXTRA:
            out.update(_plain(getattr(self, "extra", {})))
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """The record from its JSON form (:meth:`as_dict`); a key that is not there takes the
        field's default and is remembered as missing (unless the record would not write it)."""
        kwargs: dict[str, Any] = {}
        missing: set[str] = set()
        known: set[str] = set()
        for f in fields(cls):  # type: ignore[arg-type]
            if f.name in ("missing", "extra"):
                continue
            if f.metadata.get(_FLAT):
                kwargs[f.name] = f.metadata[_READ](data)
                known.update(x.name for x in fields(f.metadata[_FLAT]))
                continue
            known.add(f.name)
            if f.name in data:
                read = f.metadata.get(_READ)
                kwargs[f.name] = data[f.name] if read is None else read(data[f.name])
            elif f.default is not MISSING or f.default_factory is not MISSING:
                missing.add(f.name)
            else:
                raise ValueError(f"{cls.__name__}: no {f.name!r} in {sorted(data)!r}")
        if cls._EXTRA:
            kwargs["extra"] = {k: v for k, v in data.items() if k not in known}
        record = cls(**kwargs)
        absent = frozenset(f.name for f in fields(record) if f.name in missing and record._writes(f))  # type: ignore[arg-type]
        if not absent:
            return record
        kwargs["missing"] = absent
        return cls(**kwargs)


def _read(fn: Callable[[Any], Any], **more: Any) -> dict[str, Any]:
    return {_READ: fn, **more}


@dataclass(frozen=True, slots=True)
class EngineInfo(_Record):
    """What an analysis records of an evaluator: the program and its version, the evaluator's class,
    its nets' version and feature version and whether it uses the bear-off databases (``None``
    each: no evaluator was needed)."""

    engine: str = ""
    engine_version: str = ""
    evaluator: str | None = None
    nets: str | Sequence[str] | None = None
    nets_feature_version: int | None = None
    bearoff: bool | None = None
    missing: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class RolloutRecord(_Record):
    """The rollout settings of an analysis valued by rollouts (``variants``: how the Dutch and
    Mahbusa games were rolled out, when there were any)."""

    trials: int
    truncate: int | None
    workers: int
    plays: int
    threshold: float
    playing_ply: int = 0
    variance_reduction: bool = True
    seed: int = 0
    variants: str | None = field(default=None, metadata={_OMIT_NONE: True})
    missing: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ConfirmRecord(_Record):
    """The settings of the confirmation pass as recorded
    (:meth:`~analyzer.analysis.confirm.ConfirmSettings.as_dict` writes them, and says what they
    mean); ``None``: not recorded, or (``truncate``, ``cube_truncate``, ``ply``) none."""

    method: str
    threshold: float | None = None
    margin: float | None = None
    trials: int | None = None
    max_trials: int | None = None
    truncate: int | None = None
    cube_truncate: int | None = None
    cube_play: bool | None = None
    ply: int | None = None
    plays: int | None = None
    workers: int | None = None
    variance_reduction: bool | None = None
    playing_ply: int | None = None
    limit: int | None = None
    tolerance: float | None = None
    low_tolerance: float | None = None
    cube_doubt: float | None = None
    blunders: bool | None = None
    futility: float | None = None
    cube_futility: float | None = None
    rank_max_trials: int | None = None
    cube_race_stop: bool | None = None
    missing: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class FilterRecord(_Record):
    """A move filter as recorded: the plays kept and the equity window."""

    count: int
    threshold: float
    missing: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class AnalysisMetadata(_Record):
    """How an analysis was made (``summary.json``'s ``metadata``).

    ``engine`` describes the standard evaluator (its keys sit at the top of the JSON object);
    ``variant_engines`` the Dutch and Mahbusa ones (left out of the JSON without such games, and
    ``variant_ply`` with it); ``ply`` is ``None`` when rollouts valued the decisions
    (``rollout``); ``thresholds`` is the JSON form of the
    :class:`~analyzer.analysis.thresholds.Thresholds` used; ``extra`` holds the keys of an older
    or newer summary that this version does not know.
    """

    _EXTRA: ClassVar[bool] = True

    engine: EngineInfo = field(default_factory=EngineInfo, metadata=_read(_nested(EngineInfo), **{_FLAT: EngineInfo}))
    variant_engines: Mapping[str, EngineInfo] | None = field(
        default=None, metadata=_read(_opt(lambda v: {str(k): EngineInfo.from_json(e) for k, e in v.items()}),
                                     **{_OMIT_NONE: True}))
    ply: int | None = None
    rollout: RolloutRecord | None = field(default=None, metadata=_read(_opt(_nested(RolloutRecord))))
    variant_ply: int | None = None
    luck_ply: int = 0
    confirm: ConfirmRecord | None = field(default=None, metadata=_read(_opt(_nested(ConfirmRecord))))
    move_filter: FilterRecord | None = field(default=None, metadata=_read(_opt(_nested(FilterRecord))))
    deep_filter: FilterRecord | None = field(default=None, metadata=_read(_opt(_nested(FilterRecord))))
    seed: int = 0
    thresholds: Mapping[str, Any] | None = None
    met: str | None = None
    equity: str | None = None
    cube_model: str | None = None
    schema_version: int | None = None
    missing: frozenset[str] = frozenset()
    extra: Mapping[str, Any] = field(default_factory=dict)

    def _emit(self, name: str) -> bool:
        return name != "variant_ply" or self.variant_engines is not None


@dataclass(frozen=True, slots=True)
class GameResult(_Record):
    """How one replayed game ended: ``end`` (``bearoff``, ``mother``, ``draw``, ``drop``,
    ``resign``, ``unfinished``), the winner's side and name and the points (cube included)."""

    game: int
    variant: str = "standard"
    end: str = "unfinished"
    winner: int | None = None
    winner_name: str | None = None
    points: int = 0
    missing: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ConfirmedCounts(_Record):
    """How many decisions the confirmation pass valued again, by kind and by method, how many of
    them changed error class (``downgraded``: to a smaller one, ``upgraded``: to a bigger one), and
    how many it would have valued again without its limit (``wanted``; ``None``: not recorded)."""

    decisions: int
    by_kind: Mapping[str, int] = field(default_factory=dict, metadata=_read(_counts))
    by_method: Mapping[str, int] = field(default_factory=dict, metadata=_read(_counts))
    downgraded: int = 0
    upgraded: int = 0
    wanted: int | None = None
    missing: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class MatchInfo(_Record):
    """The match (``summary.json``'s ``match``): the record's header, how many games there were and
    were analysed, the final score, the errors of the games that did not replay, the variant,
    whether the games had a cube, how each game ended and what the confirmation pass changed."""

    file: str | None = None
    players: tuple[str, ...] = field(default=(), metadata=_read(_strs))
    length: int = 0
    event: str | None = None
    round: str | None = None
    date: str | None = None
    site: str | None = None
    games: int | None = None
    games_analysed: int | None = None
    score_final: tuple[int, ...] | None = field(default=None, metadata=_read(_opt(_ints)))
    errors: tuple[str, ...] = field(default=(), metadata=_read(_strs))
    variant: str = "standard"
    cube: bool = True
    results: tuple[GameResult, ...] = field(
        default=(), metadata=_read(lambda v: tuple(GameResult.from_json(r) for r in v)))
    confirmed: ConfirmedCounts | None = field(default=None, metadata=_read(_opt(_nested(ConfirmedCounts))))
    missing: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class PlayerStats(_Record):
    """One player's statistics (:func:`analyzer.analysis.stats.player_stats` defines them all):
    decisions, error counts by class (``checker``, ``cube``) and by cube error kind
    (``cube_errors``), equity lost, mean errors and PR (``pr_raw``; PR is 500 times it), the XG and
    gnubg rating names, luck, the actual and luck-adjusted results in ``result_unit`` (``"mwc"``
    or ``"points"``). A ``None`` of the counts added after the first summaries
    (``checker_unforced``, ``cube_decisions``, ``checker_error``, ``cube_error``) means a summary
    that did not record them."""

    name: str
    side: int
    decisions: int = 0
    unforced: int = 0
    checker_unforced: int | None = None
    cube_decisions: int | None = None
    checker: Mapping[str, int] = field(default_factory=dict, metadata=_read(_counts))
    cube: Mapping[str, int] = field(default_factory=dict, metadata=_read(_counts))
    cube_errors: Mapping[str, int] = field(default_factory=dict, metadata=_read(_counts))
    total_error: float = 0.0
    checker_error: float | None = None
    cube_error: float | None = None
    total_mwc_loss: float | None = None
    mean_error: float | None = None
    checker_mean_error: float | None = None
    cube_mean_error: float | None = None
    pr_raw: float | None = None
    rating_xg: str | None = None
    rating_xg_approximate: bool = False
    rating_gnubg: str | None = None
    rolls: int | None = None
    luck: float = 0.0
    luck_rate: float | None = None
    luck_gnubg_emg: float | None = None
    luck_mwc: float | None = None
    luck_points: float | None = None
    actual_result: float | None = None
    luck_adjusted_result: float | None = None
    result_unit: str | None = None
    missing: frozenset[str] = frozenset()

    @property
    def errors(self) -> int:
        """The checker and cube errors of every class.

        >>> PlayerStats("ann", 0, checker={"error": 2, "blunder": 1}, cube={"error": 1}).errors
        4
        """
        return sum(self.checker.values()) + sum(self.cube.values())


@dataclass(frozen=True, slots=True)
class AnalysisSummary(_Record):
    """The analysis of one match in short (``summary.json``): how it was made, the match and the
    players' statistics (side 0 then side 1).

    >>> s = AnalysisSummary.from_json({"metadata": {"engine": "bgreview", "engine_version": "1", "ply": 2},
    ...                                "match": {"players": ["ann", "bob"], "length": 5},
    ...                                "players": [{"name": "ann", "side": 0}, {"name": "bob", "side": 1}]})
    >>> s.metadata.ply, s.match.players, [p.name for p in s.players], list(s.as_dict()["metadata"])
    (2, ('ann', 'bob'), ['ann', 'bob'], ['engine', 'engine_version', 'ply'])
    """

    metadata: AnalysisMetadata = field(default_factory=AnalysisMetadata, metadata=_read(_nested(AnalysisMetadata)))
    match: MatchInfo = field(default_factory=MatchInfo, metadata=_read(_nested(MatchInfo)))
    players: tuple[PlayerStats, ...] = field(
        default=(), metadata=_read(lambda v: tuple(PlayerStats.from_json(p) for p in v)))
    missing: frozenset[str] = frozenset()
