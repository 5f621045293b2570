"""SVG boards for every variant, drawn by us (no external resources, no ids to collide).

The conventions follow :mod:`analyzer.render.board_ascii`: the side to act is ``X`` (light
checkers) at the bottom with its home board bottom right; ``home_side="left"`` mirrors the
drawing and never the numbering. Points are numbered 1..24 from ``X``'s side.

What is drawn:

* points, with at most five checkers each; a taller stack shows its count on the fifth checker;
* the bar (the top player's checkers in the top half, as in the ASCII board);
* the borne-off trays on the home side (``O``'s at the top, ``X``'s at the bottom), one thin
  slice per checker;
* Dutch backgammon: each side's reserve (checkers not yet entered) as an off-board stack of
  slices on the other side of the board, and its hitting lock in the captions and as a padlock
  above (``O``) and below (``X``) the reserve column, closed while the side may not hit yet
  (``class="lock x locked"``, ``lock o unlocked``...);
* Mahbusa: a pinned checker drawn at the edge of the board, ringed in red, under the stack that
  pins it (whose count excludes it), and a legend that says so;
* optionally the dice (on ``X``'s half of the middle gap) and the cube (centred, or by the
  owner's side).

Every element carries a ``class`` (``checker x``, ``checker o pinned``, ``off x``,
``reserve o``, ``die``, ``cube``...) and every point group its counts (``data-point``,
``data-x``, ``data-o``), so the drawing can be checked or restyled.

>>> from analyzer.core.position import Position
>>> svg = board_svg(Position.start(), dice=(3, 1))
>>> svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
True
>>> svg.count('class="checker x"'), svg.count('class="checker o"')
(15, 15)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from analyzer.core.position import Position

HomeSide = Literal["right", "left"]
Parts = Literal["all", "static", "pieces"]

SVG_NS = "http://www.w3.org/2000/svg"

# Geometry in viewBox units.
PW = 32  # point width
R = 14.5  # checker radius
PITCH = 29.0  # distance between checker centres on a point
STACK = 5  # checkers drawn per point
HALF = STACK * PITCH + 4  # height of a half (points plus a little room)
GAP = 40  # the middle gap between the halves
BORDER = 10
BAR = 36
PANEL = 46  # the off tray, the cube column and the Dutch reserve column
CAPTION = 22
NUMBERS = 15
SLICE = 9.0  # height of one borne-off or reserve checker
SLICE_PITCH = 10.0
LEGEND = 18

COLOURS = {
    "frame": "#5b3a1e",
    "felt": "#efe4c8",
    "point_a": "#b4533c",
    "point_b": "#3f5f86",
    "x_fill": "#faf7ef",
    "x_stroke": "#3a3a3a",
    "x_text": "#222222",
    "o_fill": "#2d2724",
    "o_stroke": "#000000",
    "o_text": "#ffffff",
    "pin": "#d11f1f",
    "text": "#222222",
    "panel": "#e2d6b8",
}


@dataclass(frozen=True, slots=True)
class _Layout:
    """Where everything goes, for ``home_side="right"`` (mirrored on output when left)."""

    width: float
    height: float
    reserve_x: float | None  # left edge of the Dutch reserve column
    cube_x: float | None  # left edge of the cube column (none for a cubeless variant without a cube)
    board_x: float  # left edge of the frame
    off_x: float
    top: float  # top edge of the frame
    legend: bool

    @property
    def inner_left(self) -> float:
        return self.board_x + BORDER

    @property
    def inner_top(self) -> float:
        return self.top + BORDER

    @property
    def inner_bottom(self) -> float:
        return self.inner_top + 2 * HALF + GAP

    @property
    def frame_width(self) -> float:
        return 2 * BORDER + 12 * PW + BAR

    @property
    def frame_height(self) -> float:
        return 2 * BORDER + 2 * HALF + GAP

    @property
    def bar_x(self) -> float:
        return self.inner_left + 6 * PW

    def point_x(self, column: int) -> float:
        """Left edge of point column 0..11 (left to right)."""
        base = self.inner_left + column * PW
        return base + BAR if column >= 6 else base


def _layout(pos: Position, legend: bool, cube_column: bool = True) -> _Layout:
    x = 4.0
    cube_x: float | None = None
    if cube_column:
        cube_x = x
        x += PANEL
    reserve_x: float | None = None
    if pos.spec.reserve:
        reserve_x = x
        x += PANEL
    board_x = x + 4
    x = board_x + 2 * BORDER + 12 * PW + BAR + 4
    off_x = x
    x += PANEL + 4
    top = CAPTION + NUMBERS
    height = top + 2 * BORDER + 2 * HALF + GAP + NUMBERS + CAPTION + (LEGEND if legend else 0) + 4
    return _Layout(x, height, reserve_x, cube_x, board_x, off_x, top, legend)


def _num(v: float) -> str:
    """Compact coordinates: at most two decimals, no trailing zeros.

    >>> _num(3.0), _num(2.125), _num(-0.5)
    ('3', '2.12', '-0.5')
    """
    text = _NUMS.get(v)
    if text is None:
        text = f"{v:.2f}".rstrip("0").rstrip(".")
        if text == "-0":
            text = "0"
        if len(_NUMS) < 4096:  # the coordinates of a drawing repeat: remember them (a bounded memo)
            _NUMS[v] = text
    return text


_NUMS: dict[float, str] = {}


_CDATA = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_ATTRIB = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#13;", "\n": "&#10;",
                         "\t": "&#09;"})


class _Node:
    """One SVG element: a tag, its attributes in order, its text and its children. Serialised as
    ``xml.etree.ElementTree.tostring(..., encoding="unicode")`` does (the same bytes: attributes in the order
    they were set, ``<tag ... />`` when empty, text and attributes escaped), at a fraction of its cost.

    >>> root = _Node("svg", {"class": 'a"b'})
    >>> _Node.sub(root, "text").text = "x < y & z"
    >>> _ = _Node.sub(root, "rect")
    >>> root.tostring()
    '<svg class="a&quot;b"><text>x &lt; y &amp; z</text><rect /></svg>'
    """

    __slots__ = ("attrib", "children", "tag", "text")

    def __init__(self, tag: str, attrib: dict[str, str] | None = None) -> None:
        self.tag = tag
        self.attrib: dict[str, str] = dict(attrib) if attrib else {}
        self.text: str | None = None
        self.children: list[_Node] = []

    @staticmethod
    def sub(parent: _Node, tag: str) -> _Node:
        """A new child of ``parent``, after its other children."""
        child = _Node(tag)
        parent.children.append(child)
        return child

    def set(self, key: str, value: str) -> None:
        """Set attribute ``key`` (a new one goes last, as in ElementTree)."""
        self.attrib[key] = value

    def tostring(self) -> str:
        """The element as XML text."""
        out: list[str] = []
        self._write(out)
        return "".join(out)

    def _write(self, out: list[str]) -> None:
        out.append("<" + self.tag)
        for k, v in self.attrib.items():
            out.append(f' {k}="{v.translate(_ATTRIB)}"')
        if self.text or self.children:
            out.append(">")
            if self.text:
                out.append(self.text.translate(_CDATA))
            for child in self.children:
                child._write(out)
            out.append(f"</{self.tag}>")
        else:
            out.append(" />")


class _Written(_Node):
    """Markup already written (a point drawn before: :func:`_point`), put out as it is."""

    __slots__ = ()

    def __init__(self, markup: str) -> None:
        super().__init__("")
        self.text = markup

    def _write(self, out: list[str]) -> None:
        out.append(self.text or "")


_ATTR_NAMES: dict[str, str] = {}  # keyword -> attribute name: stroke_width -> stroke-width, class_ -> class


class _Canvas:
    """An SVG tree with mirroring of x coordinates for ``home_side="left"``."""

    def __init__(self, width: float, mirror: bool, mover_dark: bool = False, styled: bool = True) -> None:
        self.width = width
        self.mirror = mirror
        self.mover_dark = mover_dark
        self.styled = styled

    def tone(self, side: str) -> str:
        """``light`` or ``dark``: the checkers of ``side`` (``x`` the mover)."""
        return "light" if (side == "x") != self.mover_dark else "dark"

    def paint(self, side: str, what: str = "fill", stroke_width: float = 1.2) -> dict[str, float | str]:
        """The colour attributes of a checker, slice or die of ``side``; none when the drawing is
        not ``styled`` (a style sheet colours the ``light`` and ``dark`` classes instead)."""
        if not self.styled:
            return {}
        return {"fill": self.colour(side, what), "stroke": self.colour(side, "stroke"), "stroke_width": stroke_width}

    def cls(self, name: str, side: str) -> str:
        """``name`` with the tone class of ``side`` added when the drawing is not ``styled``."""
        return name if self.styled else f"{name} {self.tone(side)}"

    def colour(self, side: str, what: str) -> str:
        """The ``fill``, ``stroke`` or ``text`` colour of ``side``'s checkers (``x`` the mover):
        light for ``x`` and dark for ``o``, swapped when the mover draws with the dark ones."""
        palette = side if not self.mover_dark else ("o" if side == "x" else "x")
        return COLOURS[f"{palette}_{what}"]

    def x(self, x: float, w: float = 0.0) -> float:
        """The drawn left edge of a box at ``x`` of width ``w`` (a point when ``w`` is 0)."""
        return self.width - x - w if self.mirror else x

    def el(self, parent: _Node, tag: str, cls: str | None = None, **attrs: float | str) -> _Node:
        e = _Node.sub(parent, tag)
        attrib = e.attrib
        if cls:
            attrib["class"] = cls
        for k, v in attrs.items():
            name = _ATTR_NAMES.get(k)
            if name is None:
                name = _ATTR_NAMES[k] = k.rstrip("_").replace("_", "-")
            attrib[name] = v if isinstance(v, str) else _num(v)
        return e

    def rect(self, parent: _Node, x: float, y: float, w: float, h: float, cls: str | None = None,
             **attrs: float | str) -> _Node:
        return self.el(parent, "rect", cls, x=self.x(x, w), y=y, width=w, height=h, **attrs)

    def circle(self, parent: _Node, cx: float, cy: float, r: float, cls: str | None = None,
               **attrs: float | str) -> _Node:
        return self.el(parent, "circle", cls, cx=self.x(cx), cy=cy, r=r, **attrs)

    def text(self, parent: _Node, x: float, y: float, content: str, cls: str | None = None,
             anchor: str = "middle", **attrs: float | str) -> _Node:
        if self.mirror and anchor != "middle":
            anchor = "end" if anchor == "start" else "start"
        e = self.el(parent, "text", cls, x=self.x(x), y=y, text_anchor=anchor, **attrs)
        e.text = content  # escaped when written: text from match files stays inert
        return e

    def polygon(self, parent: _Node, points: list[tuple[float, float]], cls: str | None = None,
                **attrs: float | str) -> _Node:
        pts = " ".join(f"{_num(self.x(px))},{_num(py)}" for px, py in points)
        return self.el(parent, "polygon", cls, points=pts, **attrs)


def board_svg(
    pos: Position,
    *,
    dice: tuple[int, int] | None = None,
    cube: int | None = None,
    cube_owner: int | None = None,
    home_side: HomeSide = "right",
    size: int = 480,
    names: tuple[str, str] = ("", ""),
    mover_dark: bool = False,
    action: str | None = None,
    parts: Parts = "all",
    styled: bool = True,
    mover_top: bool = False,
) -> str:
    """Draw ``pos`` as a standalone SVG document (returned as text, without XML declaration).

    ``dice`` is the roll to play, ``cube`` the cube value (``None``: no cube drawn) and
    ``cube_owner`` 0 when the side to act (``X``) owns it, 1 when ``O`` does, ``None`` when
    centred (a centred cube of 1 shows 64, as gnubg does). ``size`` is the width in pixels; the
    height follows. ``names`` are the names of ``X`` and ``O`` (escaped like every text).

    ``mover_dark`` draws ``X``'s checkers (and dice) dark and ``O``'s light, so that a report
    keeps one colour per player whoever is to act. ``action`` replaces the end of ``X``'s
    caption (``to play 3-1`` or ``on roll``), e.g. ``"to take or pass"`` for the answer to a
    double. ``parts`` draws everything (``"all"``), only what every position of the same
    layout shares (``"static"``: the document with the frame, points and numbers) or only what
    belongs to this position (``"pieces"``: one ``<g class="pieces">`` element with the
    checkers, trays, captions, dice and cube, to insert into a ``"static"`` drawing before its
    closing tag): a report keeps one static drawing per layout and the pieces of each decision.
    ``styled=False`` leaves out the colours of checkers, slices and dice and marks them
    ``light`` or ``dark`` instead, for a page whose style sheet colours them (smaller pieces).

    ``mover_top`` draws the side to act at the top, as gnubg and eXtreme Gammon do when the
    player kept at the bottom is not the one to act: the drawing is then that of ``pos.flip()``
    (the bottom player is ``X``, the classes ``x`` and ``o``, ``data-point`` and the trays are
    his), the dice lie on the left half, the caption of the top player (``O``) says what he is to
    do, the cube's ``cube_owner`` stays relative to the side to act and the point numbers are
    those of the side to act (``"static"`` drawings differ in their numbers alone). The pieces'
    ``data-acting`` attribute says which side acts (``x`` or ``o``).

    >>> svg = board_svg(Position.start("dutch"), home_side="left", size=300)
    >>> 'width="300"' in svg, svg.count('class="reserve x"')
    (True, 15)
    >>> static = board_svg(Position.start(), parts="static")
    >>> pieces = board_svg(Position.start(), dice=(3, 1), parts="pieces")
    >>> whole = static.replace("</svg>", pieces + "</svg>")
    >>> whole.count('class="checker x"'), 'class="triangle"' in pieces, pieces.startswith('<g class="pieces"')
    (15, False, True)
    >>> 'fill="#2d2724"' in board_svg(Position.start(), mover_dark=True).split('class="checker x"')[1][:80]
    True
    >>> top = board_svg(Position.start().flip(), dice=(3, 1), mover_top=True, names=("ann", "bob"))
    >>> top.count('class="checker x"'), "O: ann" in top, "X: bob" in top, 'data-dice="31"' in top
    (15, True, True, True)
    >>> board_svg(Position.start(), home_side="middle")
    Traceback (most recent call last):
    ...
    ValueError: home_side must be 'right' or 'left', not 'middle'
    """
    if home_side not in ("right", "left"):
        raise ValueError(f"home_side must be 'right' or 'left', not {home_side!r}")
    if parts not in ("all", "static", "pieces"):
        raise ValueError(f"parts must be 'all', 'static' or 'pieces', not {parts!r}")
    if dice is not None and (len(dice) != 2 or any(not 1 <= d <= 6 for d in dice)):
        raise ValueError(f"dice must be two numbers from 1 to 6, not {dice!r}")
    if cube_owner not in (None, 0, 1):
        raise ValueError(f"cube_owner must be 0, 1 or None, not {cube_owner!r}")
    lay = board_layout(pos, cube)
    acting = "x"
    if mover_top:  # the drawing of the other side's view, the side to act at the top
        pos, names, mover_dark, acting = pos.flip(), (names[1], names[0]), not mover_dark, "o"
        cube_owner = None if cube_owner is None else 1 - cube_owner
    cv = _Canvas(lay.width, home_side == "left", mover_dark, styled)
    root = _Node("svg", {
        "xmlns": SVG_NS,
        "version": "1.1",
        "viewBox": f"0 0 {_num(lay.width)} {_num(lay.height)}",
        "width": str(size),
        "height": _num(round(size * lay.height / lay.width)),
        "class": f"board {pos.variant}",
        "font-family": "DejaVu Sans, Verdana, Arial, sans-serif",
    })
    if parts != "pieces":
        if parts == "all":
            root.set("data-acting", acting)
            title = _Node.sub(root, "title")
            title.text = _title(pos, dice, names, action, acting)
        cv.rect(root, 0, 0, lay.width, lay.height, fill="#ffffff")
        _frame(cv, root, lay)
        _numbers(cv, root, lay, reverse=mover_top)
    if parts == "static":
        return root.tostring()
    top = root if parts == "all" else _Node("g", {"class": "pieces", "data-acting": acting})
    if parts == "pieces":
        title = _Node.sub(top, "title")
        title.text = _title(pos, dice, names, action, acting)
    _points(cv, top, lay, pos)
    _bar(cv, top, lay, pos)
    _tray(cv, top, lay, lay.off_x, pos.opponent_off, pos.mover_off, "off")
    if lay.reserve_x is not None:
        _tray(cv, top, lay, lay.reserve_x, pos.opponent_reserve, pos.mover_reserve, "reserve")
        _lock(cv, top, lay.reserve_x + (PANEL - 4) / 2, CAPTION - 12, "o", pos.opponent_can_hit)
        _lock(cv, top, lay.reserve_x + (PANEL - 4) / 2, lay.top + lay.frame_height + NUMBERS + CAPTION - 12, "x",
              pos.mover_can_hit)
    _captions(cv, top, lay, pos, dice, names, action, acting)
    if dice is not None:
        _dice(cv, top, lay, dice, acting)
    if cube is not None:
        _cube(cv, top, lay, cube, cube_owner)
    if lay.legend:
        cv.text(top, lay.width / 2, lay.height - 8, "Ringed checker: pinned under the stack drawn above it",
                "legend", font_size=11, fill=COLOURS["pin"])
    return top.tostring()


def board_layout(pos: Position, cube: int | None = None) -> _Layout:
    """Where the drawing of ``pos`` puts everything; drawings with equal layouts share their
    ``"static"`` part (:func:`board_svg`).

    >>> board_layout(Position.start()) == board_layout(Position.start().flip())
    True
    >>> board_layout(Position.start()) == board_layout(Position.start("dutch"))
    False
    """
    pinned = bool(pos.pinned_mover or pos.pinned_opponent)
    return _layout(pos, pinned, cube_column=pos.spec.has_cube or cube is not None)


def _title(pos: Position, dice: tuple[int, int] | None, names: tuple[str, str], action: str | None = None,
           acting: str = "x") -> str:
    glyph, name = ("X", names[0]) if acting == "x" else ("O", names[1])
    who = f"{glyph} ({name})" if name else glyph
    act = f"{who} {action}" if action else (f"{who} to play {dice[0]}-{dice[1]}" if dice else f"{who} on roll")
    return f"{pos.spec.board_title} position, {act}"


def _frame(cv: _Canvas, root: _Node, lay: _Layout) -> None:
    g = cv.el(root, "g", "frame")
    cv.rect(g, lay.board_x, lay.top, lay.frame_width, lay.frame_height, fill=COLOURS["frame"], rx=4)
    for half in (0, 1):
        x = lay.inner_left + half * (6 * PW + BAR)
        cv.rect(g, x, lay.inner_top, 6 * PW, lay.inner_bottom - lay.inner_top, fill=COLOURS["felt"])
    cv.rect(g, lay.bar_x, lay.inner_top, BAR, lay.inner_bottom - lay.inner_top, "bar", fill=COLOURS["frame"])
    panels = [x for x in (lay.cube_x, lay.off_x, lay.reserve_x) if x is not None]
    for px in panels:
        cv.rect(g, px, lay.top, PANEL - 4, lay.frame_height, "panel", fill=COLOURS["panel"], rx=3)
    for column in range(12):
        x = lay.point_x(column)
        for top in (True, False):
            colour = COLOURS["point_a"] if (column + (0 if top else 1)) % 2 == 0 else COLOURS["point_b"]
            base = lay.inner_top if top else lay.inner_bottom
            tip = base + (HALF - 6) * (1 if top else -1)
            cv.polygon(g, [(x + 1, base), (x + PW - 1, base), (x + PW / 2, tip)], "triangle", fill=colour)


def _columns() -> tuple[list[int], list[int]]:
    """Points of the top and bottom rows, left to right (home board bottom right)."""
    return list(range(13, 25)), list(range(12, 0, -1))


def _checker(cv: _Canvas, parent: _Node, cx: float, cy: float, side: str, pinned: bool = False,
             label: str | None = None) -> None:
    cls = f"checker {side}" + (" pinned" if pinned else "")
    if pinned:
        cv.circle(parent, cx, cy, R - 0.5, cls, fill=cv.colour(side, "fill"), stroke=COLOURS["pin"], stroke_width=3)
        cv.circle(parent, cx, cy, R - 5, "pin-mark", fill="none", stroke=COLOURS["pin"], stroke_width=1.5,
                  stroke_dasharray="3 2")
    else:
        cv.circle(parent, cx, cy, R, cv.cls(cls, side), **cv.paint(side))
    if label is not None:
        cv.text(parent, cx, cy + 4.5, label, cv.cls("count", side), font_size=13, font_weight="bold",
                **({"fill": cv.colour(side, "text")} if cv.styled else {}))


def _stack(cv: _Canvas, parent: _Node, cx: float, edge: float, direction: int, side: str, n: int,
           first_slot: int = 0) -> None:
    """``n`` checkers of ``side`` from slot ``first_slot`` inwards; the last visible slot shows the
    count when they do not all fit."""
    room = STACK - first_slot
    shown = min(n, room)
    for k in range(shown):
        cy = edge + direction * (R + 2 + (first_slot + k) * PITCH)
        label = str(n) if n > room and k == shown - 1 else None
        _checker(cv, parent, cx, cy, side, label=label)


def _points(cv: _Canvas, root: _Node, lay: _Layout, pos: Position) -> None:
    top_row, bottom_row = _columns()
    pin_m, pin_o = set(pos.pinned_mover), set(pos.pinned_opponent)
    mover, opponent = pos.mover, pos.opponent
    for row, points in ((0, top_row), (1, bottom_row)):
        for column, p in enumerate(points):
            root.children.append(_Written(_point(cv.width, cv.mirror, cv.mover_dark, cv.styled, lay, row, column, p,
                                                 mover[p - 1], opponent[p - 1], p in pin_o, p in pin_m)))


@lru_cache(maxsize=8192)
def _point(width: float, mirror: bool, mover_dark: bool, styled: bool, lay: _Layout, row: int, column: int, p: int,
           nx: int, no: int, pinned_o: bool, pinned_m: bool) -> str:
    """The markup of point ``p`` (in ``column`` of ``row``: 0 top, 1 bottom) holding ``nx`` of X's checkers and
    ``no`` of O's, one pinned under the other's stack when ``pinned_o`` or ``pinned_m``, on a canvas of
    ``width`` (mirrored, dark mover, styled as :class:`_Canvas`). The same few thousand points come back
    in every board of a report: each is drawn once."""
    cv = _Canvas(width, mirror, mover_dark, styled)
    edge = lay.inner_top if row == 0 else lay.inner_bottom
    direction = 1 if row == 0 else -1
    g = cv.el(_Node("g"), "g", "point", data_point=str(p), data_x=str(nx), data_o=str(no))
    cx = lay.point_x(column) + PW / 2
    if pinned_o:  # an O checker under X's stack
        _checker(cv, g, cx, edge + direction * (R + 2), "o", pinned=True)
        _stack(cv, g, cx, edge, direction, "x", nx, first_slot=1)
    elif pinned_m:
        _checker(cv, g, cx, edge + direction * (R + 2), "x", pinned=True)
        _stack(cv, g, cx, edge, direction, "o", no, first_slot=1)
    elif nx:
        _stack(cv, g, cx, edge, direction, "x", nx)
    elif no:
        _stack(cv, g, cx, edge, direction, "o", no)
    return g.tostring()


def _bar(cv: _Canvas, root: _Node, lay: _Layout, pos: Position) -> None:
    cx = lay.bar_x + BAR / 2
    g = cv.el(root, "g", "bar-checkers", data_x=str(pos.mover_bar), data_o=str(pos.opponent_bar))
    _stack(cv, g, cx, lay.inner_top, 1, "o", pos.opponent_bar)
    _stack(cv, g, cx, lay.inner_bottom, -1, "x", pos.mover_bar)


def _tray(cv: _Canvas, root: _Node, lay: _Layout, x: float, top_n: int, bottom_n: int,
          kind: str) -> None:
    """A column of thin slices: ``O``'s from the top edge, ``X``'s from the bottom edge."""
    g = cv.el(root, "g", f"{kind}-tray", data_x=str(bottom_n), data_o=str(top_n))
    w = PANEL - 14
    left = x + 5
    for side, n, edge, direction in (("o", top_n, lay.inner_top, 1), ("x", bottom_n, lay.inner_bottom, -1)):
        for k in range(n):
            y = edge + k * SLICE_PITCH if direction == 1 else edge - k * SLICE_PITCH - SLICE
            cv.rect(g, left, y, w, SLICE, cv.cls(f"{kind} {side}", side), rx=2, **cv.paint(side, stroke_width=0.8))
        label_y = (lay.inner_top + HALF + 14) if direction == 1 else (lay.inner_bottom - HALF - 6)
        cv.text(g, left + w / 2, label_y, str(n), f"{kind}-count", font_size=11, fill=COLOURS["text"])
    cv.text(g, left + w / 2, lay.inner_top + HALF + GAP / 2 + 4, kind, "tray-label", font_size=10,
            fill=COLOURS["text"])


def _lock(cv: _Canvas, root: _Node, cx: float, cy: float, side: str, can_hit: bool) -> None:
    """A padlock centred on (``cx``, ``cy``): shackle closed while ``side`` may not hit yet
    (Dutch), open (lifted to one side) once it may."""
    state = "unlocked" if can_hit else "locked"
    who = "X" if side == "x" else "O"
    g = cv.el(root, "g", f"lock {side} {state}", data_can_hit="1" if can_hit else "0")
    tip = _Node.sub(g, "title")
    tip.text = f"{who} may hit" if can_hit else f"{who} may not hit yet (no checker home)"
    colour = COLOURS["text"] if can_hit else COLOURS["pin"]
    lift = 4.0 if can_hit else 0.0
    left, right = cx - 4.5, cx + 4.5
    top = cy - 9 - lift
    # the shackle: an arch from the body's left post to its right post (the left post lifted when open)
    d = (f"M {_num(cv.x(left))} {_num(cy - 1 - lift)} L {_num(cv.x(left))} {_num(top + 4)} "
         f"Q {_num(cv.x(cx))} {_num(top - 4)} {_num(cv.x(right))} {_num(top + 4)} L {_num(cv.x(right))} "
         f"{_num(cy - 1)}")
    cv.el(g, "path", "shackle", d=d, fill="none", stroke=colour, stroke_width=2)
    cv.rect(g, cx - 7, cy - 2, 14, 11, "lock-body", rx=2, fill=colour)


def _numbers(cv: _Canvas, root: _Node, lay: _Layout, reverse: bool = False) -> None:
    """The point numbers, from ``X``'s side (from ``O``'s when ``reverse``: ``O`` is to act)."""
    g = cv.el(root, "g", "numbers", font_size=10, fill=COLOURS["text"])
    top_row, bottom_row = _columns()
    if reverse:
        top_row, bottom_row = [25 - p for p in top_row], [25 - p for p in bottom_row]
    for column, (pt, pb) in enumerate(zip(top_row, bottom_row, strict=True)):
        cx = lay.point_x(column) + PW / 2
        cv.text(g, cx, lay.top - 4, str(pt))
        cv.text(g, cx, lay.top + lay.frame_height + 11, str(pb))


def _side_caption(glyph: str, name: str, pips: int, off: int, pos: Position, reserve: int,
                  can_hit: bool) -> str:
    parts = [f"{glyph}: {name}" if name else glyph, f"pips {pips}", f"off {off}"]
    if pos.spec.reserve:
        parts.append(f"reserve {reserve}")
    if pos.spec.hit_lock:
        parts.append("unlocked: may hit" if can_hit else "locked: may not hit yet")
    return "   ".join(parts)


def _captions(cv: _Canvas, root: _Node, lay: _Layout, pos: Position, dice: tuple[int, int] | None,
              names: tuple[str, str], action: str | None = None, acting: str = "x") -> None:
    m_pips, o_pips = pos.pips()
    g = cv.el(root, "g", "captions", font_size=12 if pos.spec.reserve else 15, fill=COLOURS["text"])
    top = _side_caption("O", names[1], o_pips, pos.opponent_off, pos, pos.opponent_reserve,
                        pos.opponent_can_hit)
    bottom = _side_caption("X", names[0], m_pips, pos.mover_off, pos, pos.mover_reserve, pos.mover_can_hit)
    doing = "   " + (action or (f"to play {dice[0]}-{dice[1]}" if dice else "on roll"))
    if acting == "x":
        bottom += doing
    else:
        top += doing
    cv.text(g, lay.board_x, CAPTION - 6, top, "caption o", anchor="start")
    base = lay.top + lay.frame_height + NUMBERS + CAPTION - 6
    cv.text(g, lay.board_x, base, bottom, "caption x", anchor="start")


_PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
         4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
         6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _dice(cv: _Canvas, root: _Node, lay: _Layout, dice: tuple[int, int], acting: str = "x") -> None:
    """The roll of ``acting`` (``x``: on the right half, ``o``: on the left), in its colour."""
    g = cv.el(root, "g", "dice", data_dice=f"{dice[0]}{dice[1]}")
    d = 26.0
    cy = lay.inner_top + HALF + GAP / 2
    centre = lay.point_x(6 if acting == "x" else 0) + 3 * PW
    for i, value in enumerate(dice):
        cx = centre + (i - 0.5) * (d + 10)
        die = cv.el(g, "g", "die", data_value=str(value))
        cv.rect(die, cx - d / 2, cy - d / 2, d, d, cv.cls("face", acting), rx=4, **cv.paint(acting))
        for dx, dy in _PIPS[value]:
            cv.circle(die, cx + dx * 7, cy + dy * 7, 2.6, cv.cls("pip", acting),
                      **({"fill": cv.colour(acting, "text")} if cv.styled else {}))


def _cube(cv: _Canvas, root: _Node, lay: _Layout, value: int, owner: int | None) -> None:
    s = 32.0
    assert lay.cube_x is not None
    x = lay.cube_x + (PANEL - 4 - s) / 2
    if owner is None:
        y = lay.inner_top + HALF + GAP / 2 - s / 2
    elif owner == 0:
        y = lay.inner_bottom - s - 4
    else:
        y = lay.inner_top + 4
    shown = 64 if owner is None and value == 1 else value
    owner_text = "centred" if owner is None else ("x" if owner == 0 else "o")
    g = cv.el(root, "g", "cube", data_value=str(value), data_owner=owner_text)
    cv.rect(g, x, y, s, s, rx=4, fill="#ffffff", stroke="#000000", stroke_width=1.5)
    cv.text(g, x + s / 2, y + s / 2 + 6, str(shown), font_size=17 if shown < 100 else 13, font_weight="bold",
            fill="#000000")
