"""Drilling a player's own errors: the cards, the check of an answer, a spaced-repetition schedule, an Anki deck.

A *card* is one of the player's decisions that lost equity (:func:`load_cards`), from a batch dataset
(``decisions/*.parquet``) or a single review (the ``decisions.parquet`` of ``bgreview analyze``):
the position (its key), the roll or the cube decision, the score, the play made, the best play and
the candidates with their values. :func:`check_answer` reads an answer in the notation ``bgreview
play`` accepts (:func:`analyzer.analysis.play_input.read_play`) and judges it **by the resulting
position**: the rules engine plays it, and it is right when it ends where the best play ends (or
where a candidate within :data:`ACCEPT` of the best ends); cube answers are ``double``/``no double``
and ``take``/``pass``.

:class:`Schedule` keeps what to show again in a small SQLite file (stdlib ``sqlite3``): a simplified
SM-2 (a right answer multiplies the card's interval by its ease, 1 day then 3 days at first; a wrong
one shows it again the same day and lowers the ease, never under 1.3). :func:`export_anki` writes the
cards as an Anki deck (``.apkg``, through the optional ``genanki``: ``pip install bgreview[anki]``)
with each board as an SVG image.

>>> check_cube_text("cube", "nd"), check_cube_text("take", "drop"), check_cube_text("take", "maybe")
('no double', 'pass', None)
"""

from __future__ import annotations

import hashlib
import html
import math
import sqlite3
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from analyzer.analysis.play_input import read_play
from analyzer.analysis.themes import player_theme
from analyzer.core.files import atomic_write_with
from analyzer.core.ids import decode_key
from analyzer.core.position import Position
from analyzer.render.board_svg import board_svg
from analyzer.rules import find_variant

from .layout import DECISIONS_DIR

__all__ = ["ACCEPT", "Answer", "Card", "Schedule", "check_answer", "check_cube_text", "default_schedule_path",
           "export_anki", "load_cards"]

ACCEPT = 0.001
"""A play within this much equity (EMG, or points) of the best counts as right."""

DAY = 86400.0

_CUBE_WORDS = {
    "cube": {"double": "double", "d": "double", "redouble": "double", "rd": "double", "dbl": "double",
             "no double": "no double", "nd": "no double", "no": "no double", "n": "no double", "roll": "no double",
             "no redouble": "no double", "nrd": "no double", "r": "no double"},
    "take": {"take": "take", "t": "take", "beaver": "take", "b": "take", "pass": "pass", "p": "pass",
             "drop": "pass"},
}


@dataclass(frozen=True, slots=True)
class Card:
    """One decision to drill (equities from the decider's side, in EMG or, Dutch and Mahbusa, points)."""

    id: str
    player: str
    kind: str
    variant: str
    key: str
    dice: tuple[int, int] | None
    played: str
    best: str
    equity_loss: float
    theme: str | None
    match_length: int
    score_me: int
    score_opp: int
    cube: int | None
    candidates: tuple[tuple[str, float], ...]
    cube_values: tuple[float | None, float | None, float | None]
    """No double, Double/take, Double/pass (cube and take decisions)."""
    cube_action: str | None
    valued: str
    where: str

    @property
    def position(self) -> Position:
        return decode_key(self.key)

    def score_text(self) -> str:
        """``money`` or ``3-5 to 7`` (the decider's score first), with the cube."""
        score = "money" if not self.match_length else f"{self.score_me}-{self.score_opp} to {self.match_length}"
        return score + (f", cube {self.cube}" if self.cube else "")

    def question(self) -> str:
        """What the card asks."""
        if self.kind == "checker" and self.dice:
            return f"{self.dice[0]}{self.dice[1]} to play"
        return "double or no double?" if self.kind == "cube" else "take or pass?"


@dataclass(frozen=True, slots=True)
class Answer:
    """The verdict on an answer: ``status`` ``right``, ``wrong``, or (not judged: ask again)
    ``illegal``, ``partial``, ``ambiguous`` or ``unknown``; ``answer`` the play or action read
    (canonical text), ``loss`` what it loses against the best when known, ``message`` why it was
    not judged."""

    status: str
    answer: str = ""
    loss: float | None = None
    message: str = ""


def check_cube_text(kind: str, text: str) -> str | None:
    """The cube action ``text`` names for a ``cube`` or ``take`` card (``None``: not one)."""
    return _CUBE_WORDS.get(kind, {}).get(" ".join(text.lower().split()))


def _family(action: str) -> str:
    a = action.lower()
    if a.startswith("no") or a.startswith("too good"):
        return "no double"
    if a in ("double", "redouble"):
        return "double"
    return "take" if a in ("take", "beaver") else "pass"


def check_answer(card: Card, text: str) -> Answer:
    """Judge ``text`` as the answer to ``card`` (see the module docstring).

    >>> c = Card("x", "ann", "checker", "standard", "S.4HPwATDgc_ABMA", (3, 1), "24/21 24/23", "8/5 6/5", 0.1,
    ...          None, 0, 0, 0, None, (("8/5 6/5", 0.2), ("24/21 24/23", 0.1)), (None, None, None), None, "", "")
    >>> check_answer(c, "6/5 8/5").status, check_answer(c, "24/23 24/21").status, check_answer(c, "13/7").status
    ('right', 'wrong', 'illegal')
    """
    if card.kind != "checker":
        action = check_cube_text(card.kind, text)
        if action is None:
            words = "double or no double (d / nd)" if card.kind == "cube" else "take or pass (t / p)"
            return Answer("unknown", message=f"answer {words}")
        right = action == _family(card.best)
        loss = 0.0 if right else (card.equity_loss if action == _family(card.played) else None)
        return Answer("right" if right else "wrong", action, loss)
    if card.dice is None:
        return Answer("unknown", message="this card has no roll")
    rules = find_variant(card.variant)
    pos = card.position
    got = read_play(rules, pos, card.dice, text)
    if got.status != "complete" or got.play is None:
        return Answer(got.status, message=got.message or "type the whole play")
    values: dict[Position, tuple[str, float]] = {}
    for play, equity in card.candidates:
        try:
            values[rules.resolve(pos, card.dice, play).result] = (play, equity)
        except Exception:  # a candidate the rules cannot read (never expected): left out of the values
            continue
    try:
        best = rules.resolve(pos, card.dice, card.best).result
    except Exception:
        best = None
    top = max((e for _, e in values.values()), default=None)
    mine = values.get(got.play.result)
    loss = None if mine is None or top is None else max(0.0, top - mine[1])
    right = got.play.result == best or (loss is not None and loss <= ACCEPT)
    return Answer("right" if right else "wrong", got.play.text, 0.0 if got.play.result == best else loss)


def _card_id(row: dict[str, Any]) -> str:
    text = f"{row.get('file')}|{row.get('match_index') or 0}|{row.get('game')}|{row.get('move_no')}|{row.get('kind')}"
    return hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _valued(row: dict[str, Any]) -> str:
    text = str(row.get("method") or (f"{row['ply']}-ply" if row.get("ply") is not None else ""))
    if row.get("trials") is not None:
        text += f", {row['trials']} games a candidate"
    if row.get("loss_se") is not None:
        text += f", loss +- {1000 * row['loss_se']:.0f} m"
    return text


def _source_frame(source: Path) -> pl.LazyFrame:
    if source.is_dir() and (source / DECISIONS_DIR).is_dir():
        return pl.scan_parquet(source / DECISIONS_DIR / "*.parquet")
    if source.is_dir() and (source / "decisions.parquet").is_file():
        return pl.scan_parquet(source / "decisions.parquet")
    if source.is_file() and source.suffix == ".parquet":
        return pl.scan_parquet(source)
    raise FileNotFoundError(f"{source}: not a batch dataset or a review (a folder with decisions/ or "
                            "decisions.parquet)")


def load_cards(source: str | Path, player: str, *, themes: Sequence[str] = (), kinds: Sequence[str] = (),
               min_loss: float = 0.0, max_loss: float | None = None, errors_only: bool = True) -> list[Card]:
    """The cards of ``player`` (names equal but for case are one) in ``source``: his unforced
    decisions of an error class (``errors_only``) that lost at least ``min_loss`` (and at most
    ``max_loss``), of the given ``themes`` (:func:`analyzer.analysis.themes.player_theme` names) and
    ``kinds`` (``checker``, ``cube``, ``take``) when given; costliest first.

    Raises :class:`FileNotFoundError` when ``source`` is neither a dataset nor a review.
    """
    lf = _source_frame(Path(source))
    names = lf.collect_schema().names()
    if "equity_loss" not in names:
        raise FileNotFoundError(f"{source}: its decisions were not analysed (a --replay-only dataset)")
    lf = lf.filter((pl.col("player").str.strip_chars().str.to_lowercase() == player.strip().lower())
                   & ~pl.col("forced").fill_null(False) & (pl.col("equity_loss") >= min_loss)
                   & (pl.col("equity_loss") > 0))
    if errors_only:
        lf = lf.filter(pl.col("error_class").fill_null("none") != "none")
    if max_loss is not None:
        lf = lf.filter(pl.col("equity_loss") <= max_loss)
    if kinds:
        lf = lf.filter(pl.col("kind").is_in(list(kinds)))
    frame = lf.collect()
    if "theme" not in frame.columns or frame["theme"].null_count():  # a review, or a dataset from before

        th = {k: player_theme(decode_key(k)) for k in frame["key"].unique().to_list() if k}
        computed = pl.col("key").replace_strict(th, default=None, return_dtype=pl.String)
        frame = frame.with_columns((pl.coalesce("theme", computed) if "theme" in frame.columns else computed)
                                   .alias("theme"))
    if themes:
        frame = frame.filter(pl.col("theme").is_in(list(themes)))
    sort = [c for c in ("equity_loss", "file", "match_index", "game", "move_no") if c in frame.columns]
    frame = frame.sort(sort, descending=[True] + [False] * (len(sort) - 1))
    cards = []
    for r in frame.iter_rows(named=True):
        dice = (int(r["dice"][0]), int(r["dice"][1])) if r.get("dice") else None
        cands = tuple((str(c["play"]), float(c["equity"])) for c in (r.get("candidates") or []))
        cards.append(Card(
            id=_card_id(r), player=r["player"], kind=r["kind"], variant=r["variant"], key=r["key"], dice=dice,
            played=r["played"], best=r["best"], equity_loss=float(r["equity_loss"]), theme=r.get("theme"),
            match_length=int(r.get("match_length") or 0), score_me=int(r.get("score_me") or 0),
            score_opp=int(r.get("score_opp") or 0), cube=r.get("cube"), candidates=cands,
            cube_values=(r.get("cube_nd"), r.get("cube_dt"), r.get("cube_dp")), cube_action=r.get("cube_action"),
            valued=_valued(r),
            where=f"{r.get('file')} #{r.get('match_index') or 0}, game {r.get('game')}, move {r.get('move_no')}"))
    return cards


def default_schedule_path(source: str | Path) -> Path:
    """Where the schedule of ``source`` lives by default: ``drill.sqlite`` in the dataset or review
    folder (beside a ``.parquet`` file given alone)."""
    src = Path(source)
    return (src if src.is_dir() else src.parent) / "drill.sqlite"


class Schedule:
    """The spaced-repetition schedule in a SQLite file (created when missing); every change is
    committed at once, so it survives a crash or a restart.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     s = Schedule(os.path.join(tmp, "d.sqlite"))
    ...     s.record("a", True, now=0.0)
    ...     s.close()
    ...     s = Schedule(os.path.join(tmp, "d.sqlite"))
    ...     s.state("a")["interval"], s.is_due("a", now=0.5 * DAY), s.is_due("a", now=1.0 * DAY)
    (1.0, False, True)
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path)
        self._db.execute("CREATE TABLE IF NOT EXISTS cards (id TEXT PRIMARY KEY, due REAL NOT NULL, "
                         "interval REAL NOT NULL, ease REAL NOT NULL, reps INTEGER NOT NULL, "
                         "lapses INTEGER NOT NULL, seen INTEGER NOT NULL, last REAL NOT NULL)")
        self._db.commit()

    def close(self) -> None:
        self._db.close()

    def state(self, card_id: str) -> dict[str, Any] | None:
        """The card's row (``due`` in seconds since the epoch, ``interval`` in days), ``None`` when new."""
        cur = self._db.execute("SELECT id, due, interval, ease, reps, lapses, seen, last FROM cards WHERE id = ?",
                               (card_id,))
        row = cur.fetchone()
        if row is None:
            return None
        return dict(zip(("id", "due", "interval", "ease", "reps", "lapses", "seen", "last"), row, strict=True))

    def is_due(self, card_id: str, now: float) -> bool:
        """A new card, or one whose time has come."""
        s = self.state(card_id)
        return s is None or float(s["due"]) <= now

    def record(self, card_id: str, right: bool, now: float | None = None) -> None:
        """Schedule the card after an answer (see the module docstring)."""
        now = time.time() if now is None else now
        s = self.state(card_id) or {"interval": 0.0, "ease": 2.5, "reps": 0, "lapses": 0, "seen": 0}
        ease, reps, lapses = float(s["ease"]), int(s["reps"]), int(s["lapses"])
        if right:
            reps += 1
            interval = 1.0 if reps == 1 else 3.0 if reps == 2 else float(s["interval"]) * ease
            ease += 0.1
        else:
            reps, lapses, interval, ease = 0, lapses + 1, 0.0, max(1.3, ease - 0.2)
        due = now + interval * DAY if right else now + 600.0
        self._db.execute("INSERT OR REPLACE INTO cards VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (card_id, due, interval, ease, reps, lapses, int(s["seen"]) + 1, now))
        self._db.commit()

    def pick(self, cards: Sequence[Card], now: float, limit: int) -> list[Card]:
        """Up to ``limit`` cards to show now: those due (the longest overdue first), then new ones
        (costliest first); cards not yet due are left out."""
        due, new = [], []
        for c in cards:
            s = self.state(c.id)
            if s is None:
                new.append(c)
            elif float(s["due"]) <= now:
                due.append((float(s["due"]), c))
        due.sort(key=lambda t: t[0])
        return ([c for _, c in due] + new)[:limit]


def _candidates_html(card: Card) -> str:
    if card.kind == "checker":
        top = max((e for _, e in card.candidates), default=0.0)
        rows = "".join(f"<tr><td>{html.escape(p)}</td><td>{e:+.3f}</td><td>{1000 * (e - top):+.0f}</td></tr>"
                       for p, e in card.candidates[:8])
        return f"<table><tr><th>play</th><th>equity</th><th>m</th></tr>{rows}</table>"
    nd, dt, dp = card.cube_values
    cells = "".join(f"<tr><td>{n}</td><td>{'' if v is None or math.isnan(v) else f'{v:+.3f}'}</td></tr>"
                    for n, v in (("no double", nd), ("double, take", dt), ("double, pass", dp)))
    return f"<table>{cells}</table><p>{html.escape(card.cube_action or '')}</p>"


def export_anki(cards: Sequence[Card], path: str | Path, *, deck_name: str = "bgreview drill") -> int:
    """Write ``cards`` as an Anki package (``.apkg``) at ``path``: the board (SVG image), the score,
    the roll or the cube question on the front; the best play, the play made, the candidates and how
    they were valued on the back. Returns the number of notes. Needs ``genanki`` (the ``anki`` extra).
    The file is written whole or not at all; :class:`~analyzer.core.files.OutputError` names it when it
    cannot be.
    """
    import genanki  # an optional extra (anki): imported only to write a deck


    model = genanki.Model(
        1607392319, "bgreview drill",
        fields=[{"name": "Id"}, {"name": "Board"}, {"name": "Question"}, {"name": "Answer"}],
        templates=[{"name": "card", "qfmt": "{{Board}}<p>{{Question}}</p>",
                    "afmt": "{{FrontSide}}<hr id=answer>{{Answer}}"}],
        sort_field_index=0)
    deck_id = int(hashlib.sha1(deck_name.encode("utf-8")).hexdigest()[:8], 16)
    deck = genanki.Deck(deck_id, deck_name)
    with tempfile.TemporaryDirectory() as tmp:
        media = []
        for c in cards:
            name = f"bgreview-{c.id}.svg"
            action = None if c.kind == "checker" else ("to take or pass" if c.kind == "take" else "on roll")
            Path(tmp, name).write_text(board_svg(c.position, dice=c.dice, cube=c.cube, size=420, action=action),
                                       encoding="utf-8")
            media.append(str(Path(tmp, name)))
            question = f"{html.escape(c.score_text())}: {html.escape(c.question())}"
            answer = (f"<p>Best: <b>{html.escape(c.best)}</b>; played: {html.escape(c.played)} "
                      f"(lost {1000 * c.equity_loss:.0f} m)</p>{_candidates_html(c)}"
                      f"<p>valued by {html.escape(c.valued)}; {html.escape(c.where)}</p>")
            deck.add_note(genanki.Note(model=model, fields=[c.id, f'<img src="{name}">', question, answer],
                                       guid=genanki.guid_for(c.id), tags=[(c.theme or c.kind).replace(" ", "_")
                                                                          .replace(":", "")]))
        package = genanki.Package(deck, media_files=media)
        atomic_write_with(path, lambda tmp: package.write_to_file(str(tmp)), special_ok=True)  # whole or not at all
    return len(cards)

