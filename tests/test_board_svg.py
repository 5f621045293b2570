"""SVG boards: valid standalone XML, checkers drawn as the position says (points, bar, trays,
Dutch reserves, Mahbusa pins), the mirrored home side, dice, cube and escaped names."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from analyzer.core.position import Position
from analyzer.render.board_svg import board_svg

NS = "{http://www.w3.org/2000/svg}"

POSITIONS = [
    Position.start(),
    Position.start("dutch"),
    Position.start("mahbusa"),
    Position.from_notation("P 24:2 13:7 8:3 6:1 | O 19:5 17:3 12:5 1:1 | bar P1 O1"),
    Position.from_notation("P 6:9 5:6 | O 19:2 20:7 | bar O6"),
    Position.from_notation("P 3:2 1:1 | O 24:3 | off P12 O12"),
    Position.from_notation("P 20:3 5:1 | O 3:2 | res P11 O13", "dutch"),
    Position.from_notation("P 2:4 1:2 | O 23:1 | off P9 O14 | res P0 O0 | unlocked", "dutch"),
    Position.from_notation("P 14:1 10:1+o 1:12 | O 21:6+p 16:8", "mahbusa"),
    Position.from_notation("P 24:8 10:7+o | O 1:14", "mahbusa"),
]


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return root


def classes(e: ET.Element) -> set[str]:
    return set((e.get("class") or "").split())


def checkers(group: ET.Element, side: str) -> list[ET.Element]:
    return [c for c in group.iter(NS + "circle") if {"checker", side} <= classes(c)]


def count_label(group: ET.Element) -> int | None:
    labels = [t for t in group.iter(NS + "text") if "count" in classes(t)]
    assert len(labels) <= 1
    return int(labels[0].text or "") if labels else None


def drawn_counts(group: ET.Element) -> tuple[int, int]:
    """(X, O) checkers that a reader of the drawing counts on one point or the bar."""
    xs, os_ = checkers(group, "x"), checkers(group, "o")
    label = count_label(group)
    pinned = [c for c in xs + os_ if "pinned" in classes(c)]
    assert len(pinned) <= 1
    out = []
    for side, circles in (("x", xs), ("o", os_)):
        free = [c for c in circles if "pinned" not in classes(c)]
        n = len(circles) - len(free)
        if free:
            n += label if label is not None else len(free)
        out.append(n)
        assert side in ("x", "o")
    return out[0], out[1]


def point_groups(root: ET.Element) -> dict[int, ET.Element]:
    return {int(g.get("data-point", "0")): g for g in root.iter(NS + "g") if "point" in classes(g)}


def one_group(root: ET.Element, cls: str) -> ET.Element:
    found = [g for g in root.iter(NS + "g") if cls in classes(g)]
    assert len(found) == 1, cls
    return found[0]


@pytest.mark.parametrize("pos", POSITIONS, ids=lambda p: f"{p.variant}:{p.to_notation()}")
def test_valid_standalone_svg(pos: Position) -> None:
    svg = board_svg(pos, dice=(6, 5), cube=2, cube_owner=1)
    root = parse(svg)
    assert root.get("viewBox") and root.get("width") == "480"
    # no external resources and nothing active
    for bad in ("<image", "<script", "href=", "url(", "<foreignObject", "@import"):
        assert bad not in svg
    assert root.find(NS + "title") is not None


@pytest.mark.parametrize("pos", POSITIONS, ids=lambda p: f"{p.variant}:{p.to_notation()}")
def test_checkers_match_the_position(pos: Position) -> None:
    root = parse(board_svg(pos))
    groups = point_groups(root)
    assert sorted(groups) == list(range(1, 25))
    for p, g in groups.items():
        assert drawn_counts(g) == (pos.mover[p - 1], pos.opponent[p - 1]), p
        assert (int(g.get("data-x", "-1")), int(g.get("data-o", "-1"))) == (pos.mover[p - 1],
                                                                             pos.opponent[p - 1])
        assert len(list(g.iter(NS + "circle"))) - len([c for c in g.iter(NS + "circle")
                                                       if "pin-mark" in classes(c)]) <= 5
    bar = one_group(root, "bar-checkers")
    assert drawn_counts(bar) == (pos.mover_bar, pos.opponent_bar)
    off = one_group(root, "off-tray")
    assert [len([r for r in off.iter(NS + "rect") if {"off", s} <= classes(r)]) for s in "xo"] == [
        pos.mover_off, pos.opponent_off]
    reserve = [r for r in root.iter(NS + "rect") if "reserve" in classes(r)]
    assert len([r for r in reserve if "x" in classes(r)]) == pos.mover_reserve
    assert len([r for r in reserve if "o" in classes(r)]) == pos.opponent_reserve
    pinned = [c for c in root.iter(NS + "circle") if "pinned" in classes(c)]
    assert len(pinned) == len(pos.pinned_mover) + len(pos.pinned_opponent)


def test_tall_stack_shows_its_count_on_the_fifth_checker() -> None:
    pos = Position.from_notation("P 6:9 5:6 | O 19:2 20:7 | bar O6")
    groups = point_groups(parse(board_svg(pos)))
    six = groups[6]
    assert len(checkers(six, "x")) == 5 and count_label(six) == 9
    assert count_label(groups[19]) is None and len(checkers(groups[19], "o")) == 2
    # the label sits on the innermost (fifth) checker
    label = next(t for t in six.iter(NS + "text") if "count" in classes(t))
    ys = [float(c.get("cy", "0")) for c in checkers(six, "x")]
    assert abs(float(label.get("y", "0")) - 4.5 - min(ys)) < 1e-6  # bottom row: innermost is highest


def test_layout_follows_the_ascii_board() -> None:
    """X at the bottom with its home board bottom right: point 1 bottom right, 24 top right,
    12 bottom left, 13 top left."""
    pos = Position.from_points({1: 1, 12: 1, 13: 1, 24: 12}, {})
    root = parse(board_svg(pos))
    groups = point_groups(root)

    def centre(p: int) -> tuple[float, float]:
        c = checkers(groups[p], "x")[0]
        return float(c.get("cx", "0")), float(c.get("cy", "0"))

    (x1, y1), (x12, y12), (x13, y13), (x24, y24) = centre(1), centre(12), centre(13), centre(24)
    assert x1 > x12 and x24 > x13 and abs(x1 - x24) < 1e-6 and abs(x12 - x13) < 1e-6
    assert y1 > y24 and y12 > y13
    full = Position.from_points({**{p: 1 for p in range(1, 13)}, 24: 3},
                                {**{p: 1 for p in range(13, 23)}, 23: 5})
    fg = point_groups(parse(board_svg(full)))

    def any_x(p: int) -> float:
        return float(next(iter(fg[p].iter(NS + "circle"))).get("cx", "0"))

    bottom = [any_x(p) for p in range(1, 13)]
    top = [any_x(p) for p in range(13, 24)]
    assert bottom == sorted(bottom, reverse=True) and top == sorted(top)  # 12..1 and 13..24, left to right


def test_home_side_left_mirrors_the_drawing_not_the_numbers() -> None:
    pos = Position.from_notation("P 24:2 13:7 8:3 6:1 | O 19:5 17:3 12:5 1:1 | bar P1 O1")
    right, left = parse(board_svg(pos)), parse(board_svg(pos, home_side="left"))
    width = float((right.get("viewBox") or "").split()[2])
    gr, gl = point_groups(right), point_groups(left)
    for p in range(1, 25):
        cr = [float(c.get("cx", "0")) for c in gr[p].iter(NS + "circle")]
        cl = [float(c.get("cx", "0")) for c in gl[p].iter(NS + "circle")]
        assert cl == pytest.approx([width - x for x in cr])
        assert drawn_counts(gr[p]) == drawn_counts(gl[p])
    xs_r = [float(c.get("cx", "0")) for c in checkers(gr[1], "o")]
    assert xs_r[0] > width / 2  # point 1 on the right by default, on the left when mirrored
    assert float(checkers(gl[1], "o")[0].get("cx", "0")) < width / 2
    with pytest.raises(ValueError, match="home_side"):
        board_svg(pos, home_side="top")  # type: ignore[arg-type]


def test_dice_and_cube() -> None:
    root = parse(board_svg(Position.start(), dice=(6, 4), cube=4, cube_owner=0))
    dice = one_group(root, "dice")
    assert dice.get("data-dice") == "64"
    dies = [g for g in dice.iter(NS + "g") if "die" in classes(g)]
    assert [len([c for c in d.iter(NS + "circle") if "pip" in classes(c)]) for d in dies] == [6, 4]
    cube = one_group(root, "cube")
    assert (cube.get("data-value"), cube.get("data-owner")) == ("4", "x")
    assert [t.text for t in cube.iter(NS + "text")] == ["4"]
    centred = one_group(parse(board_svg(Position.start(), cube=1)), "cube")
    assert centred.get("data-owner") == "centred" and [t.text for t in centred.iter(NS + "text")] == ["64"]
    owned_by_o = one_group(parse(board_svg(Position.start(), cube=2, cube_owner=1)), "cube")
    rect_o = owned_by_o.find(NS + "rect")
    rect_x = cube.find(NS + "rect")
    assert rect_o is not None and rect_x is not None
    assert float(rect_o.get("y", "0")) < float(rect_x.get("y", "0"))  # O's cube at the top
    nothing = parse(board_svg(Position.start()))
    assert not [g for g in nothing.iter(NS + "g") if classes(g) & {"cube", "dice"}]
    with pytest.raises(ValueError, match="dice"):
        board_svg(Position.start(), dice=(0, 7))
    with pytest.raises(ValueError, match="cube_owner"):
        board_svg(Position.start(), cube=2, cube_owner=2)


def test_dutch_reserves_and_locks_in_the_captions() -> None:
    pos = Position.from_notation("P 20:3 5:1 | O 3:2 | res P11 O13", "dutch")
    assert pos.mover_can_hit and not pos.opponent_can_hit
    root = parse(board_svg(pos))
    captions = {t.get("class"): t.text or "" for t in root.iter(NS + "text") if "caption" in classes(t)}
    assert "reserve 11" in captions["caption x"] and "unlocked: may hit" in captions["caption x"]
    assert "reserve 13" in captions["caption o"] and "locked: may not hit yet" in captions["caption o"]
    tray = one_group(root, "reserve-tray")
    assert (tray.get("data-x"), tray.get("data-o")) == ("11", "13")
    std = parse(board_svg(Position.start()))
    assert not [g for g in std.iter(NS + "g") if "reserve-tray" in classes(g)]


def test_mahbusa_pinned_checker_sits_under_its_pinner() -> None:
    pos = Position.from_notation("P 14:1 10:1+o 1:12 | O 21:6+p 16:8", "mahbusa")
    svg = board_svg(pos)
    root = parse(svg)
    groups = point_groups(root)
    for p, pinned_side, top_side in ((10, "o", "x"), (21, "x", "o")):
        g = groups[p]
        pin = [c for c in g.iter(NS + "circle") if {"pinned", pinned_side} <= classes(c)]
        stack = [c for c in checkers(g, top_side) if "pinned" not in classes(c)]
        assert len(pin) == 1 and stack
        # bottom row (10): the edge is the largest y; top row (21): the smallest
        pin_y = float(pin[0].get("cy", "0"))
        stack_y = [float(c.get("cy", "0")) for c in stack]
        assert (pin_y > max(stack_y)) if p <= 12 else (pin_y < min(stack_y))
    assert count_label(groups[21]) == 6  # 1 pinned + 4 visible + the count of the pinning stack
    assert [t for t in root.iter(NS + "text") if "legend" in classes(t)]
    plain = parse(board_svg(Position.start("mahbusa")))
    assert not [t for t in plain.iter(NS + "text") if "legend" in classes(t)]


def test_names_are_escaped() -> None:
    names = ('<script>alert(1)</script>', 'O"Neil & <b>co</b>')
    svg = board_svg(Position.start(), names=names, dice=(3, 1))
    assert "<script" not in svg and "<b>" not in svg
    root = parse(svg)
    texts = [t.text or "" for t in root.iter(NS + "text")]
    assert any(names[0] in t for t in texts) and any(names[1] in t for t in texts)
    title = root.find(NS + "title")
    assert title is not None and names[0] in (title.text or "")


def test_size_sets_width_and_keeps_the_aspect() -> None:
    root = parse(board_svg(Position.start(), size=300))
    _, _, w, h = (float(v) for v in (root.get("viewBox") or "").split())
    assert root.get("width") == "300"
    assert abs(float(root.get("height", "0")) - 300 * h / w) <= 0.5
