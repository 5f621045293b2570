"""What every variant is, written once: its names, key letter, board, opening, scoring and titles.

This table is the data half of the variant registry (``docs/adding-a-variant.md``): plain,
immutable facts, no behaviour and no imports beyond core. The positions of :mod:`analyzer.core`
read it to build, check and print boards; :mod:`analyzer.rules.registry` pairs each entry with
its rules class, and every layer above asks that registry (``spec.has_cube``, ``spec.draws``,
...) instead of comparing variant names.

>>> variant_spec("Plakoto").name
'mahbusa'
>>> [s.letter for s in all_specs()]
['S', 'D', 'M']
>>> variant_spec("dutch").has_cube, variant_spec("backgammon").has_cube
(False, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from analyzer.core import layout as L
from analyzer.core.errors import ParseError


@dataclass(frozen=True, slots=True)
class VariantSpec:
    """The facts of one variant that the layers ask about.

    ``start`` gives the mover's starting checkers as ``(point, count)`` pairs (the opponent's
    mirror them) and ``start_reserve`` the checkers each side starts with in a reserve.
    """

    name: str
    """The canonical name, stored in every :class:`~analyzer.core.position.Position`."""
    letter: str
    """The first letter of the variant's position keys (:mod:`analyzer.core.ids`)."""
    code: int
    """The compiled kernels' variant code (:mod:`analyzer.core.layout`)."""
    title: str
    """The name shown in prose: ``"Dutch backgammon"``."""
    board_title: str
    """The name shown above a drawn board: ``"Mahbusa (Plakoto)"``."""
    record_name: str
    """The ``Variation`` written to a ``.mat`` file (``"Plakoto"``)."""
    aliases: tuple[str, ...] = ()
    """Other names the user may give, listed in help and error messages."""
    quiet_aliases: tuple[str, ...] = ()
    """Other names accepted but not listed (``backgammon`` for standard)."""
    variation_prefixes: tuple[str, ...] = ()
    """A record's ``Variation`` that starts with one of these names this variant
    (``"Dutch backgammon"``)."""
    sgf_rules: str | None = None
    """The token this variant adds to an SGF game's ``RU`` property, if any."""
    start: tuple[tuple[int, int], ...] = ()
    start_reserve: int = 0
    bar: bool = True
    """Hit checkers go to a bar (not in Mahbusa)."""
    reserve: bool = False
    """Checkers start outside the board and enter as from a bar (Dutch)."""
    hit_lock: bool = False
    """A side may not hit before one of its checkers has reached its home board (Dutch)."""
    pins: bool = False
    """A lone checker is pinned under the one that lands on it instead of hit (Mahbusa)."""
    mother_rule: bool = False
    """A game may end by the mother rule (Mahbusa): the board's game-end flag."""
    gnubg_ids: bool = False
    """Positions have gnubg Position IDs and XGIDs."""
    has_cube: bool = False
    """The doubling cube is played; such a variant is reviewed by the cubeful standard evaluator
    (match equity, the cube model, the XG and gnubg rating scales). One without a cube is valued
    in cubeless points of a game by its own net (:mod:`analyzer.eval.variants`)."""
    opener_rerolls: bool = True
    """A double on the opening roll is rolled again."""
    winner_opens_next: bool = False
    """The winner of a game opens the next one with both dice (Mahbusa)."""
    max_points: int = 2
    """The most a game is worth before the cube (3: backgammons)."""
    draws: bool = False
    """Games can end drawn (Mahbusa's double mother)."""
    two_points: str = "mars 2"
    """How the values above one point are told in a note: ``"mars 2"``."""

    @property
    def names(self) -> tuple[str, ...]:
        """Every name this variant answers to (lower case).

        >>> variant_spec("mahbusa").names
        ('mahbusa', 'plakoto')
        """
        return (self.name, *self.aliases, *self.quiet_aliases)

    def reads_variation(self, variation: str) -> bool:
        """Whether a record's lower-cased ``Variation`` value names this variant.

        >>> variant_spec("dutch").reads_variation("dutch backgammon")
        True
        """
        return variation in self.names or variation.startswith(self.variation_prefixes)


_SPECS: dict[str, VariantSpec] = {}


def register_spec(spec: VariantSpec) -> None:
    """Add a variant's facts (its names and key letter must be new); the rules registry
    (:func:`analyzer.rules.registry.register_variant`) calls this."""
    taken = {n for s in _SPECS.values() for n in s.names}
    if taken & set(spec.names):
        raise ValueError(f"variant names already taken: {sorted(taken & set(spec.names))}")
    if any(s.letter == spec.letter for s in _SPECS.values()):
        raise ValueError(f"variant key letter {spec.letter!r} already taken")
    _SPECS[spec.name] = spec


def unregister_spec(name: str) -> None:
    """Remove a variant added by :func:`register_spec` (tests of a toy variant)."""
    del _SPECS[name]


def all_specs() -> tuple[VariantSpec, ...]:
    """Every variant, in registration order (standard first)."""
    return tuple(_SPECS.values())


def variant_names() -> tuple[str, ...]:
    """The canonical names, in registration order.

    >>> variant_names()
    ('standard', 'dutch', 'mahbusa')
    """
    return tuple(_SPECS)


def find_spec(name: object) -> VariantSpec | None:
    """The variant a name or alias (any case) names, or ``None`` (also for a non-string, as read
    from a summary row).

    >>> find_spec("PLAKOTO").name, find_spec("tavla"), find_spec(None)
    ('mahbusa', None, None)
    """
    if not isinstance(name, str):
        return None
    key = name.strip().lower()
    spec = _SPECS.get(key)
    if spec is not None:
        return spec
    return next((s for s in _SPECS.values() if key in s.names), None)


def spec_by_name(name: object) -> VariantSpec | None:
    """The variant of a canonical name exactly as stored (no alias, no case folding), or ``None``.

    >>> spec_by_name("dutch").title, spec_by_name("plakoto"), spec_by_name("Dutch")
    ('Dutch backgammon', None, None)
    """
    return _SPECS.get(name) if isinstance(name, str) else None


def cubeless_only(names: Iterable[object]) -> bool:
    """Whether a collection of variant names (as read from a table) holds some variant and none
    with a cube (canonical names, as stored); unknown names count as cubeless.

    >>> cubeless_only({"dutch", "mahbusa"}), cubeless_only({"dutch", "standard"}), cubeless_only(())
    (True, False, False)
    """
    found = [spec_by_name(n) for n in names]
    return bool(found) and not any(s is not None and s.has_cube for s in found)


def has_cube(name: object) -> bool:
    """Whether the variant of a stored name plays the doubling cube (``False`` for an unknown one).

    >>> has_cube("standard"), has_cube("dutch"), has_cube("nackgammon")
    (True, False, False)
    """
    spec = spec_by_name(name)
    return spec is not None and spec.has_cube


def draws(name: object) -> bool:
    """Whether games of the variant of a stored name can end drawn (``False`` for an unknown one).

    >>> draws("mahbusa"), draws("dutch")
    (True, False)
    """
    spec = spec_by_name(name)
    return spec is not None and spec.draws


def title_of(name: object) -> str:
    """The prose title of a cubeless variant (``"Dutch backgammon"``); a name with a cube, or an
    unknown one, is given back as it is.

    >>> title_of("dutch"), title_of("standard"), title_of("tavla")
    ('Dutch backgammon', 'standard', 'tavla')
    """
    spec = spec_by_name(name)
    return spec.title if spec is not None and not spec.has_cube else str(name)


def variant_choices() -> str:
    """The names a user may give, for help and error texts.

    >>> variant_choices()
    'standard, dutch, mahbusa or plakoto'
    """
    listed = [s.name for s in _SPECS.values()] + [a for s in _SPECS.values() for a in s.aliases]
    return ", ".join(listed[:-1]) + " or " + listed[-1] if len(listed) > 1 else "".join(listed)


def variant_spec(name: str) -> VariantSpec:
    """The variant a name or alias (any case) names; :class:`ParseError` when none.

    >>> variant_spec("tavla")
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: unknown variant (use standard, dutch, mahbusa or plakoto): 'tavla'
    """
    spec = find_spec(name)
    if spec is None:
        raise ParseError(f"unknown variant (use {variant_choices()})", token=name)
    return spec


def canonical_variant(name: str) -> str:
    """Return the canonical variant name for ``name`` (``plakoto`` -> ``mahbusa``).

    >>> canonical_variant("Plakoto")
    'mahbusa'
    """
    return variant_spec(name).name


DEFAULT_VARIANT = "standard"
"""The variant of a position or record that names none."""

register_spec(VariantSpec(
    name="standard", letter="S", code=L.VAR_STANDARD, title="Backgammon", board_title="Backgammon",
    record_name="Backgammon", quiet_aliases=("backgammon",), start=((24, 2), (13, 5), (8, 3), (6, 5)),
    gnubg_ids=True, has_cube=True, opener_rerolls=False, max_points=3, two_points="gammon 2, backgammon 3"))
register_spec(VariantSpec(
    name="dutch", letter="D", code=L.VAR_DUTCH, title="Dutch backgammon", board_title="Dutch backgammon",
    record_name="Dutch", variation_prefixes=("dutch",), sgf_rules="Dutch", start_reserve=L.CHECKERS,
    reserve=True, hit_lock=True))
register_spec(VariantSpec(
    name="mahbusa", letter="M", code=L.VAR_MAHBUSA, title="Mahbusa", board_title="Mahbusa (Plakoto)",
    record_name="Plakoto", aliases=("plakoto",), sgf_rules="Plakoto", start=((24, 15),), bar=False, pins=True,
    mother_rule=True, winner_opens_next=True, draws=True, two_points="mars or mother win 2, double-mother draw 0"))
