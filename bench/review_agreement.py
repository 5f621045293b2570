"""How far our review agrees with GNU Backgammon's 2-ply analysis (issue 24, part 3).

The reference set is ``bench/data/gnubg_reviews/``: matches analysed by gnubg at 2-ply (checker
and cube) with ``tools/gnubg_review.py``, one ``.mat`` and one ``.json`` each (gnubg self-play at
several strengths and real corpus matches). gnubg is a referee: the bench only reads its stored
figures. Each match is analysed here with :func:`analyzer.analysis.analyze.analyze_match` under
one or more named configurations (``CONFIGS``: plain 0-, 1-, 2-ply and ``confirm``, 2-ply plus
the confirmation pass where ``analyze_match`` has one), our rows are paired with gnubg's decisions
by (game, move number, side, kind) and checked (the same dice, the same position before the
decision, the same played play as a resulting position, the same cube action), and it prints:

* blunders: **recall** (gnubg loss >= 0.08 and ours >= 0.04, over gnubg's) and **precision**
  (ours >= 0.08 and gnubg's >= 0.04, over ours), checker plays and cube/take decisions apart;
* the share of unforced plays where our best play is gnubg's best (compared as the positions
  the plays produce: gnubg's text applied by our rules engine), and the correlation of the two
  losses per play;
* per-player checker error rate (mEMG per unforced move), ours / gnubg's: median and share
  within +-15%, for players with >= 30 unforced moves (gnubg's count);
* cube action agreement (a too-good double counts as "no double"; take rows compare the answer),
  all cube decisions and the close ones (gnubg's cut: optimal - min(DT, DP) < 0.16, or doubled);
* per-player luck (EMG) against gnubg's: correlation and mean difference;
* our analysis time per match.

Figures are printed for all matches and for the self-play and corpus halves. Our analyses are
cached in ``runs/review_agreement/<config>/`` (resumable; ``--fresh`` recomputes)::

    nice -n 19 .venv/bin/python bench/review_agreement.py --configs 0ply,1ply,2ply
    .venv/bin/python bench/review_agreement.py --configs 2ply --only sp01-wc-adv --show 10
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from analyzer.analysis import analyze as analyze_module
from analyzer.analysis.analyze import analyze_match
from analyzer.core.ids import decode_position_id
from analyzer.core.position import Position
from analyzer.formats import read_any
from analyzer.rules import Standard

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "gnubg_reviews"
CACHE = ROOT / "runs" / "review_agreement"

BLUNDER = 0.08  # a blunder
FOUND = 0.04    # a blunder of the other side counts as found from this loss on
MIN_UNFORCED = 30
WITHIN = 0.15
KEEP = ["game", "move_no", "side", "kind", "dice", "position_id", "played", "best", "equity_loss", "forced",
        "luck", "cube_nd", "cube_dt", "cube_dp", "cube_action", "close", "method", "trials"]


# --------------------------------------------------------------------------- configurations
@dataclass(frozen=True)
class Config:
    """A named way of running ``analyze_match`` (``extra``: more keyword arguments, built lazily)."""

    name: str
    ply: int
    extra: Callable[[], dict[str, Any]] = field(default=dict)

    def kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = {"ply": self.ply}
        if "confirm" in inspect.signature(analyze_match).parameters:
            kw["confirm"] = None  # plain: no confirmation pass, whatever the default becomes
        kw.update(self.extra())
        return kw


def _confirm() -> dict[str, Any]:
    settings = getattr(analyze_module, "ConfirmSettings", None)
    if settings is None:
        raise SystemExit("the 'confirm' configuration needs analyze_match's confirmation pass (ConfirmSettings)")
    return {"confirm": settings()}


CONFIGS: dict[str, Config] = {
    "0ply": Config("0ply", 0),
    "1ply": Config("1ply", 1),
    "2ply": Config("2ply", 2),
    "confirm": Config("confirm", 2, _confirm),  # our default: 2-ply plus the confirmation pass
}


# --------------------------------------------------------------------------- data
def load_reference(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    doc["mat_path"] = path.with_name(doc["file"])
    return doc


def references(data: Path, only: Iterable[str] | None = None) -> list[dict[str, Any]]:
    wanted = set(only or [])
    docs = [load_reference(p) for p in sorted(data.glob("*.json"))]
    return [d for d in docs if not wanted or d["id"] in wanted]


def analyse(doc: dict[str, Any], config: Config, engine: Any) -> tuple[pl.DataFrame, float]:
    """Our decisions for the match of ``doc`` under ``config`` and the seconds they took."""
    [record] = list(read_any(doc["mat_path"]))
    t0 = time.perf_counter()
    result = analyze_match(record, engine=engine, **config.kwargs())
    seconds = time.perf_counter() - t0
    d = result.decisions
    return d.select([c for c in KEEP if c in d.columns]), seconds


def cached(doc: dict[str, Any], config: Config, engine: Any, cache: Path | None,
           fresh: bool = False) -> tuple[pl.DataFrame, float]:
    if cache is None:
        return analyse(doc, config, engine)
    folder = cache / config.name
    rows, meta = folder / f"{doc['id']}.parquet", folder / f"{doc['id']}.json"
    if not fresh and rows.exists() and meta.exists():
        return pl.read_parquet(rows), float(json.loads(meta.read_text())["seconds"])
    d, seconds = analyse(doc, config, engine)
    folder.mkdir(parents=True, exist_ok=True)
    d.write_parquet(rows)
    meta.write_text(json.dumps({"seconds": seconds, "config": config.name, "ply": config.ply}))
    return d, seconds


# --------------------------------------------------------------------------- pairing
RULES = Standard()


def _hops_text(hops: list[list[int]]) -> str:
    return " ".join(f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}" for a, b in hops)


def result_of(pos: Position, dice: str, text: str, hops: list[list[int]] | None = None) -> Position | None:
    """The position a play produces (``None`` if our rules engine cannot apply it); a dance
    (empty text) leaves the position as it is."""
    if not text and not hops:
        return pos
    d = (int(dice[0]), int(dice[1]))
    for t in (text, _hops_text(hops) if hops else None):
        if not t:
            continue
        try:
            return RULES.resolve(pos, d, t).result
        except Exception:  # noqa: BLE001 - try the other spelling, then give up
            continue
    return None


def _cube_word(played: str) -> str:
    return {"redouble": "double", "no redouble": "no double", "beaver": "take"}.get(played, played)


@dataclass
class Pairing:
    """Our rows paired with gnubg's decisions for one match."""

    pairs: list[tuple[dict[str, Any], dict[str, Any]]]  # (gnubg, ours)
    only_gnubg: list[dict[str, Any]]
    only_ours: list[dict[str, Any]]
    mismatched: list[tuple[dict[str, Any], dict[str, Any], str]]


def pair(doc: dict[str, Any], ours: pl.DataFrame) -> Pairing:
    """Pair by (game, move_no, side, kind) and check each pair (see the module docstring)."""
    key = ("game", "move_no", "side", "kind")
    mine = {tuple(r[k] for k in key): r for r in ours.iter_rows(named=True)}
    theirs = {tuple(g[k] for k in key): g for g in doc["decisions"]}
    out = Pairing([], [], [], [])
    for k, g in theirs.items():
        o = mine.get(k)
        if o is None:
            out.only_gnubg.append(g)
            continue
        why = check(g, o)
        if why:
            out.mismatched.append((g, o, why))
        else:
            out.pairs.append((g, o))
    out.only_ours = [o for k, o in mine.items() if k not in theirs]
    return out


def check(g: dict[str, Any], o: dict[str, Any]) -> str:
    """Why a pair is not the same decision (``""`` when it is)."""
    if g.get("pid") and o.get("position_id") and g["pid"] != o["position_id"]:
        return f"position {g['pid']} != {o['position_id']}"
    if g["kind"] == "checker":
        if g["dice"] != o["dice"]:
            return f"dice {g['dice']} != {o['dice']}"
        pos = decode_position_id(g["pid"])
        a = result_of(pos, g["dice"], g["played"], g["played_hops"])
        b = result_of(pos, o["dice"], o["played"])
        if a is None or b is None or a != b:
            return f"played {g['played']!r} != {o['played']!r}"
        return ""
    if _cube_word(o["played"]) != g["played"]:
        return f"cube {g['played']!r} != {o['played']!r}"
    return ""


# --------------------------------------------------------------------------- figures
def ratio(n: float, d: float) -> float:
    return n / d if d else math.nan


def pearson(xs: list[float], ys: list[float]) -> float:
    if len(xs) < 3:
        return math.nan
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else math.nan


def losses(pairs: Iterable[tuple[dict[str, Any], dict[str, Any]]], kinds: tuple[str, ...]) -> list[tuple[float, float]]:
    """(gnubg's loss, ours) of the paired decisions of ``kinds`` that gnubg valued."""
    return [(float(g["error"]), float(o["equity_loss"])) for g, o in pairs
            if g["kind"] in kinds and g.get("error") is not None and o["equity_loss"] is not None]


def blunders(pairs: Iterable[tuple[dict[str, Any], dict[str, Any]]], kinds: tuple[str, ...]) -> dict[str, Any]:
    """Recall (gnubg >= 0.08 found by ours >= 0.04) and precision (ours >= 0.08, gnubg >= 0.04)."""
    ls = losses(pairs, kinds)
    theirs = [(g, o) for g, o in ls if g >= BLUNDER]
    mine = [(g, o) for g, o in ls if o >= BLUNDER]
    found = sum(o >= FOUND for _, o in theirs)
    real = sum(g >= FOUND for g, _ in mine)
    return {"gnubg": len(theirs), "found": found, "recall": ratio(found, len(theirs)),
            "ours": len(mine), "real": real, "precision": ratio(real, len(mine)), "decisions": len(ls)}


def best_play(pairs: Iterable[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """Share of the plays unforced for both where our best play gives gnubg's best position."""
    same = n = 0
    for g, o in pairs:
        if g["kind"] != "checker" or g["forced"] or o["forced"]:
            continue
        pos = decode_position_id(g["pid"])
        a = result_of(pos, g["dice"], g["best"], g["best_hops"])
        b = result_of(pos, o["dice"], o["best"])
        n += 1
        same += a is not None and a == b
    return {"plays": n, "same": same, "share": ratio(same, n)}


def player_rows(docs_ours: list[tuple[dict[str, Any], pl.DataFrame]]) -> list[dict[str, Any]]:
    """Per player (a side of a match): checker error rates and luck, ours and gnubg's."""
    out = []
    for doc, ours in docs_ours:
        for st in doc["players_stats"]:
            side = st["side"]
            mine = ours.filter((pl.col("side") == side) & (pl.col("kind") == "checker"))
            unforced = mine.filter(~pl.col("forced"))
            n = unforced.height
            our_rate = 1000 * float(unforced["equity_loss"].sum()) / n if n else math.nan
            out.append({"match": doc["id"], "side": side, "name": st["name"], "selfplay": "selfplay" in doc,
                        "unforced_gnubg": st["unforced"], "unforced_ours": n,
                        "rate_gnubg": st["checker_rate_memg"] if st["checker_rate_memg"] is not None else math.nan,
                        "rate_ours": our_rate,
                        "luck_gnubg": st["luck"], "luck_ours": float(mine["luck"].fill_null(0.0).sum())})
    return out


def rates(players: list[dict[str, Any]]) -> dict[str, Any]:
    rows = [p for p in players if p["unforced_gnubg"] >= MIN_UNFORCED]
    rs = []
    for p in rows:
        g, o = p["rate_gnubg"], p["rate_ours"]
        rs.append(o / g if g > 0 else (math.inf if o > 0 else 1.0))
    within = sum(abs(r - 1) <= WITHIN for r in rs)
    return {"players": len(rows), "median_ratio": statistics.median(rs) if rs else math.nan,
            "within": within, "share_within": ratio(within, len(rs)),
            "ratios": sorted(rs)}


def luck(players: list[dict[str, Any]]) -> dict[str, Any]:
    xs = [p["luck_gnubg"] for p in players]
    ys = [p["luck_ours"] for p in players]
    diffs = [y - x for x, y in zip(xs, ys, strict=True)]
    return {"players": len(xs), "r": pearson(xs, ys), "mean_diff": statistics.fmean(diffs) if diffs else math.nan,
            "mean_abs_diff": statistics.fmean(abs(d) for d in diffs) if diffs else math.nan}


def gnubg_doubles(g: dict[str, Any]) -> bool:
    """gnubg's proper action doubles (a too-good position does not)."""
    return bool(g["action"]) and g["action"].split(",")[0] in ("double", "redouble")


def cube_agreement(pairs: Iterable[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """Cube rows: double or not, gnubg's proper action against our best; take rows: the answer."""
    n = agree = n_close = agree_close = 0
    for g, o in pairs:
        if g["kind"] == "cube":
            same = gnubg_doubles(g) == (_cube_word(o["best"]) == "double")
        elif g["kind"] == "take" and g.get("dt") is not None:
            same = (g["dt"] < g["dp"]) == (_cube_word(o["best"]) == "take")
        else:
            continue
        n += 1
        agree += same
        if g["close"]:
            n_close += 1
            agree_close += same
    return {"decisions": n, "agree": agree, "share": ratio(agree, n),
            "close": n_close, "agree_close": agree_close, "share_close": ratio(agree_close, n_close)}


def figures(items: list[tuple[dict[str, Any], pl.DataFrame, Pairing, float]]) -> dict[str, Any]:
    """Every figure over ``items`` ((reference, our rows, pairing, seconds) per match)."""
    pairs = [p for _, _, pr, _ in items for p in pr.pairs]
    players = player_rows([(doc, ours) for doc, ours, _, _ in items])
    checker = losses(pairs, ("checker",))
    unforced = [(g, o) for (gd, od) in pairs if gd["kind"] == "checker" and not gd["forced"]
                for g, o in [(float(gd["error"]), float(od["equity_loss"]))]]
    return {
        "matches": len(items),
        "paired": len(pairs),
        "only_gnubg": Counter(g["kind"] for _, _, pr, _ in items for g in pr.only_gnubg),
        "only_ours": Counter(o["kind"] for _, _, pr, _ in items for o in pr.only_ours),
        "dead_cube": sum("dead cube" in (o["cube_action"] or "") for _, _, pr, _ in items for o in pr.only_ours),
        "mismatched": sum(len(pr.mismatched) for _, _, pr, _ in items),
        "blunders_checker": blunders(pairs, ("checker",)),
        "blunders_cube": blunders(pairs, ("cube", "take")),
        "best_play": best_play(pairs),
        "loss_r": pearson([g for g, _ in unforced], [o for _, o in unforced]),
        "checker_decisions": len(checker),
        "rates": rates(players),
        "cube": cube_agreement(pairs),
        "luck": luck(players),
        "seconds": [s for *_, s in items],
    }


# --------------------------------------------------------------------------- printing
def pct(x: float) -> str:
    return "  n/a" if math.isnan(x) else f"{100 * x:5.1f}%"


def report(name: str, f: dict[str, Any]) -> list[str]:
    bc, bq, bp, r, c, lk = (f["blunders_checker"], f["blunders_cube"], f["best_play"], f["rates"], f["cube"],
                           f["luck"])
    secs = f["seconds"]
    unp = ", ".join(f"{k} {v}" for k, v in sorted(f["only_gnubg"].items())) or "none"
    unq = ", ".join(f"{k} {v}" for k, v in sorted(f["only_ours"].items())) or "none"
    if f["dead_cube"]:
        unq += f" ({f['dead_cube']} of them dead-cube rows, which gnubg does not analyse)"
    return [
        f"  [{name}] {f['matches']} matches, {f['paired']} decisions paired; gnubg only: {unp}; ours only: {unq}; "
        f"failed checks: {f['mismatched']}",
        f"    checker blunders: recall {pct(bc['recall'])} ({bc['found']}/{bc['gnubg']}), "
        f"precision {pct(bc['precision'])} ({bc['real']}/{bc['ours']}) over {bc['decisions']} plays",
        f"    cube blunders:    recall {pct(bq['recall'])} ({bq['found']}/{bq['gnubg']}), "
        f"precision {pct(bq['precision'])} ({bq['real']}/{bq['ours']}) over {bq['decisions']} decisions",
        f"    best play = gnubg's: {pct(bp['share'])} of {bp['plays']} unforced plays; "
        f"loss correlation r = {f['loss_r']:.3f}",
        f"    checker error rate ours/gnubg ({r['players']} players >= {MIN_UNFORCED} unforced): median "
        f"{r['median_ratio']:.2f}, within +-15%: {r['within']}/{r['players']} ({pct(r['share_within'])})",
        f"    cube action agreement: {pct(c['share'])} of {c['decisions']}; close: {pct(c['share_close'])} "
        f"of {c['close']}",
        f"    luck per player (EMG, {lk['players']} players): r = {lk['r']:.3f}, mean ours - gnubg "
        f"{lk['mean_diff']:+.3f}, mean |diff| {lk['mean_abs_diff']:.3f}",
        f"    our analysis: {statistics.fmean(secs):.1f} s per match (total {sum(secs):.0f} s)" if secs else "",
    ]


def show_worst(items: list[tuple[dict[str, Any], pl.DataFrame, Pairing, float]], n: int) -> list[str]:
    """The ``n`` paired checker plays where we and gnubg differ most."""
    rows = []
    for doc, _, pr, _ in items:
        for g, o in pr.pairs:
            if g.get("error") is None or o["equity_loss"] is None:
                continue
            rows.append((abs(float(o["equity_loss"]) - float(g["error"])), doc["id"], g, o))
    rows.sort(key=lambda r: -r[0])
    out = []
    for diff, mid, g, o in rows[:n]:
        out.append(f"    {mid} g{g['game']} #{g['move_no']} {g['kind']:7s} {g.get('dice') or '':2s} "
                   f"played {g['played']!r}: gnubg {g['error']:.3f} (best {g.get('best', g.get('action'))!r}), "
                   f"ours {o['equity_loss']:.3f} (best {o['best']!r}), diff {diff:.3f}")
    return out


SAMPLE_ID = "c00-boardlord-llabba-7p"  # the shipped sample, data/samples/boardlord-llabba-7p.mat


def worst_of_sample(items: list[tuple[dict[str, Any], pl.DataFrame, Pairing, float]], n: int = 5) -> list[str]:
    """Our ``n`` worst errors of the shipped sample with gnubg's loss on the same decision (issue 24
    asks that they be errors for gnubg 2-ply as well)."""
    for doc, _, pr, _ in items:
        if doc["id"] != SAMPLE_ID:
            continue
        rows = sorted(pr.pairs, key=lambda p: -(p[1]["equity_loss"] or 0.0))[:n]
        out = [f"    the sample's worst {n} (ours; gnubg 2-ply on the same decision):"]
        for g, o in rows:
            gl = "n/a" if g.get("error") is None else f"{g['error']:.3f}"
            out.append(f"      g{g['game']} #{g['move_no']} {g['kind']:7s} {o['played']!r}: "
                       f"ours {o['equity_loss']:.3f}, gnubg {gl}")
        return out
    return []


def show_players(items: list[tuple[dict[str, Any], pl.DataFrame, Pairing, float]]) -> list[str]:
    """One line per player: unforced moves, checker error rates (mEMG per move) and luck, both sides."""
    out = ["    player                                  unforced  gnubg   ours  ratio   luck gnubg  ours"]
    for p in player_rows([(doc, ours) for doc, ours, _, _ in items]):
        g, o = p["rate_gnubg"], p["rate_ours"]
        r = f"{o / g:6.2f}" if g > 0 else "   inf"
        who = f"{p['match']}:{p['name']}"[:40]
        out.append(f"    {who:40s} {p['unforced_gnubg']:5d} {g:6.1f} {o:6.1f} {r}   {p['luck_gnubg']:+6.2f} "
                   f"{p['luck_ours']:+6.2f}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configs", default="0ply,1ply,2ply", help=f"comma-separated, of {', '.join(CONFIGS)}")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--fresh", action="store_true", help="recompute cached analyses")
    ap.add_argument("--only", nargs="*", help="match ids")
    ap.add_argument("--cached-only", action="store_true",
                    help="figures over the matches already analysed (cached) under each configuration, analyse none")
    ap.add_argument("--show", type=int, default=0, help="print the N decisions where we differ most")
    ap.add_argument("--players", action="store_true", help="print every player's rates and luck")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    names = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in names if c not in CONFIGS]
    if unknown:
        ap.error(f"unknown configuration(s) {', '.join(unknown)}; known: {', '.join(CONFIGS)}")
    docs = references(args.data, args.only)
    if not docs:
        print(f"no reference match in {args.data} (make them with tools/gnubg_review.py)", file=sys.stderr)
        return 2
    from analyzer.eval.engine import Engine

    engine = Engine()
    n_sp = sum("selfplay" in d for d in docs)
    print(f"review agreement with GNU Backgammon {docs[0]['gnubg']['plies']}-ply: {len(docs)} matches "
          f"({n_sp} gnubg self-play, {len(docs) - n_sp} corpus); blunder >= {BLUNDER}, found/real >= {FOUND}")
    print("issue 24 targets: blunder recall and precision >= 95%; checker error rate within +-15% for >= 90% "
          "of players; cube agreement >= 96%, close >= 85%")
    gnubg_secs = [d["gnubg"].get("analysis_seconds") for d in docs if d["gnubg"].get("analysis_seconds")]
    if gnubg_secs:
        print(f"gnubg's own 2-ply analysis: {statistics.fmean(gnubg_secs):.1f} s per match "
              f"(threads {docs[0]['gnubg'].get('threads')}, made by tools/gnubg_review.py)")
    out: dict[str, Any] = {}
    for name in names:
        config = CONFIGS[name]
        items = []
        for doc in docs:
            if args.cached_only and not (args.cache / name / f"{doc['id']}.parquet").exists():
                continue
            ours, seconds = cached(doc, config, engine, None if args.no_cache else args.cache, args.fresh)
            items.append((doc, ours, pair(doc, ours), seconds))
        if not items:
            print(f"\n{name}: no match analysed yet")
            continue
        print(f"\n{name}: analyze_match({', '.join(f'{k}={v!r}' for k, v in config.kwargs().items())})")
        out[name] = {}
        for group, sel in (("all", items), ("self-play", [i for i in items if "selfplay" in i[0]]),
                           ("corpus", [i for i in items if "selfplay" not in i[0]])):
            if not sel:
                continue
            f = figures(sel)
            out[name][group] = f
            print("\n".join(line for line in report(group, f) if line))
        print("\n".join(worst_of_sample(items)))
        if args.players:
            print("\n".join(show_players(items)))
        if args.show:
            print("\n".join(show_worst(items, args.show)))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, default=lambda x: dict(x) if isinstance(x, Counter) else str(x)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
