"""The variant registry: one place per variant, and the layers that ask it accept a new one.

The toy variant is Nackgammon: standard rules (it reuses :class:`Standard` and the standard move
generator) from another start, under a new name, alias and key letter. It walks the steps of
``docs/adding-a-variant.md`` that need no kernel or net: its facts, its rules class, its
registration. Nothing else in the code names it, so each check fails if a layer still compares
variant names instead of asking the registry.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.cli.common import variant_help
from analyzer.cli.engines import check_ply
from analyzer.core.errors import ParseError
from analyzer.core.ids import decode_key, encode_key, parse_position_spec, position_from_json, position_to_json
from analyzer.core.layout import VAR_STANDARD
from analyzer.core.position import Position
from analyzer.core.variants import VariantSpec, all_specs, find_spec, has_cube, title_of, variant_choices
from analyzer.formats.mat import read_match_text
from analyzer.formats.mat_writer import format_match
from analyzer.formats.records import GameRecord, MatchRecord, Roll, Win, variant_of
from analyzer.render.board_ascii import draw_board
from analyzer.render.board_svg import board_svg
from analyzer.rules import Standard, find_variant
from analyzer.rules.registry import register_variant, rules_class, unregister_variant

NACK_START = ((24, 2), (23, 2), (13, 4), (8, 3), (6, 4))


class Nackgammon(Standard):
    """Standard rules from the Nackgammon start."""

    spec = VariantSpec(
        name="nack", letter="N", code=VAR_STANDARD, title="Nackgammon", board_title="Nackgammon (toy)",
        record_name="Nackgammon", aliases=("nackgammon",), start=NACK_START, has_cube=True, opener_rerolls=False,
        max_points=3, two_points="gammon 2, backgammon 3")


@pytest.fixture
def nack() -> Iterator[type[Nackgammon]]:
    register_variant(Nackgammon)
    try:
        yield Nackgammon
    finally:
        unregister_variant("nack")


def test_names_aliases_and_choices(nack: type[Nackgammon]) -> None:
    assert find_spec("NackGammon") is nack.spec
    assert rules_class("nackgammon") is nack
    assert find_variant("nack").name == "nack"
    assert variant_choices() == "standard, dutch, mahbusa, nack, plakoto or nackgammon"
    assert [s.letter for s in all_specs()] == ["S", "D", "M", "N"]


def test_positions_of_the_new_variant(nack: type[Nackgammon]) -> None:
    pos = Position.start("nackgammon")
    assert pos.variant == "nack"
    assert pos.mover[22] == 2 and pos.opponent[1] == 2 and pos.pips() == (194, 194)
    assert pos.to_notation() == "P 24:2 23:2 13:4 8:3 6:4 | O 19:4 17:3 12:4 2:2 1:2"
    assert Position.from_notation(pos.to_notation(), "nack") == pos
    assert pos.mover_can_hit and pos.spec is nack.spec
    assert find_variant("nack").start() == pos


def test_rules_play_the_new_variant(nack: type[Nackgammon]) -> None:
    rules = find_variant("nack")
    pos = rules.start()
    plays = rules.legal_plays(pos, (3, 1))
    assert plays and all(p.result.variant == "nack" for p in plays)
    assert {p.result for p in plays} == {p.result for p in rules.reference_plays(pos, (3, 1))}
    assert "24/23 13/10" in [p.text for p in plays]  # a play the standard start does not have
    with pytest.raises(ParseError):
        rules.legal_plays(Position.start(), (3, 1))  # a standard position given to the nack rules


def test_cli_variant_option_reads_it(nack: type[Nackgammon]) -> None:
    # every --variant of the CLI goes through parse_position_spec (IDs without a variant) ...
    spec = parse_position_spec("4HPwATDgc/ABMA", variant="nackgammon")
    assert spec.position.variant == "nack"
    check_ply(2, "nack")  # ... and check_ply: a game with the cube is searched by the standard evaluator
    assert "nack" in variant_help("{names}")


def test_keys_and_json_carry_it(nack: type[Nackgammon]) -> None:
    pos = Position.start("nack")
    key = encode_key(pos)
    assert key.startswith("N.") and decode_key(key) == pos
    assert parse_position_spec(key).position == pos
    assert position_from_json(position_to_json(pos)) == pos


def test_cli_moves_of_the_new_variant(nack: type[Nackgammon]) -> None:
    res = CliRunner().invoke(app, ["moves", "4HPwATDgc/ABMA", "--dice", "31", "--variant", "nackgammon",
                                   "--format", "json"])
    assert res.exit_code == 0, res.output
    plays = json.loads(res.stdout)["plays"]
    assert plays and all(p["key"].startswith("N.") and p["result"]["variant"] == "nack" for p in plays)


def test_records_read_and_write_it(nack: type[Nackgammon]) -> None:
    assert variant_of("Nackgammon") == "nack"
    game = GameRecord(1, 0, (0, 0), (Roll(0, (3, 1), "24/23 13/10"), Win(0, 1)))
    text = format_match(MatchRecord(players=("ann", "bob"), length=3, games=(game,), variation="nackgammon"))
    assert '; [Variation "Nackgammon"]' in text
    [back] = read_match_text(text)
    assert back.variant == "nack"


def test_boards_and_layers_ask_the_registry(nack: type[Nackgammon]) -> None:
    pos = Position.start("nack")
    assert "Nackgammon (toy)" in draw_board(pos).splitlines()[0]
    assert "Nackgammon (toy) position" in board_svg(pos)
    assert has_cube("nack") and title_of("nack") == "nack"


def test_unregistered_again(nack: type[Nackgammon]) -> None:
    unregister_variant("nack")
    assert find_spec("nackgammon") is None
    with pytest.raises(ParseError):
        Position.start("nack")
    with pytest.raises(ParseError, match="S., D. or M."):
        decode_key("N.4HPwATDgc_ABMA")
    register_variant(Nackgammon)  # for the fixture to take out


def test_registration_refuses_clashes() -> None:
    class Clash(Standard):
        spec = VariantSpec(name="clash", letter="S", code=VAR_STANDARD, title="Clash", board_title="Clash",
                           record_name="Clash")

    with pytest.raises(ValueError, match="letter"):
        register_variant(Clash)
    assert find_spec("clash") is None

    class NoSpec(Standard):
        pass

    with pytest.raises(ValueError, match="sets no spec"):
        register_variant(NoSpec)


@pytest.mark.parametrize("spec", all_specs(), ids=lambda s: s.name)
def test_builtin_facts_agree_with_keys_and_rules(spec: VariantSpec) -> None:
    """The registry's key letter is the one the keys carry, its class is the rules' class."""
    pos = Position.start(spec.name)
    assert encode_key(pos).startswith(spec.letter + ".")
    assert find_variant(spec.name).spec is spec
    assert find_variant(spec.name).has_cube is spec.has_cube


def test_sgf_names_the_rules_of_a_game_whose_variation_is_an_alias() -> None:
    import dataclasses
    import re

    from analyzer._resources import data_dir
    from analyzer.formats import read_any
    from analyzer.formats.sgf_writer import format_sgf

    record = next(read_any(data_dir() / "samples" / "mahbusa-selfplay-3p.mat"))
    # games that name their variant themselves, by its record name, as a converted Plakoto match does
    named = dataclasses.replace(record, games=[dataclasses.replace(g, variation="Plakoto") for g in record.games])
    for rec in (record, named):
        rules = re.findall(r"RU\[([^\]]*)\]", format_sgf(rec))
        assert len(rules) == len(record.games) and all("Plakoto" in r.split(":") for r in rules)
