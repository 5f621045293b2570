"""Compile (or load from numba's on-disk cache) every evaluator kernel once, and say how long it took.

A fresh checkout compiles the kernels on first use: about 80 s on two cores, paid by whichever
command or test runs first. CI runs this before the test suite so that the suite's time measures
the tests; a user can run it after installing, so that the first review does not wait.

    python tools/warm_kernels.py
"""

from __future__ import annotations

import time


def main() -> None:
    t0 = time.perf_counter()
    from analyzer.core.match import MatchState
    from analyzer.core.position import Position
    from analyzer.eval.cube_search import cube_decision_nply
    from analyzer.eval.engine import Engine
    from analyzer.eval.rollout import RolloutSettings, rollout
    from analyzer.eval.variants.engine import engine_for
    from analyzer.rules import find_variant

    steps: list[tuple[str, float]] = []

    def step(name: str, since: float) -> float:
        now = time.perf_counter()
        steps.append((name, now - since))
        return now

    t = step("imports", t0)
    eng = Engine()
    start = Position.start()
    for ply in (0, 1, 2):
        eng.evaluate(start, ply)
    eng.rank_plays(start, (3, 1), 0)
    t = step("standard evaluation (0-2 ply) and ranking", t)
    cube_decision_nply(eng, start, MatchState(length=5), 0, 1)
    cube_decision_nply(eng, start, MatchState(length=5), 0, 2)  # 2-ply: the tree built on the threads
    t = step("n-ply cube search", t)
    from analyzer.analysis.luck import roll_values

    roll_values(eng, start, MatchState(length=5), 0)
    t = step("luck (cubeful values after many plays)", t)
    for vr in (False, True):
        rollout(eng, start, RolloutSettings(trials=2, truncate=2, workers=1, variance_reduction=vr, max_plays=1),
                dice=(3, 1))
    rollout(eng, start, RolloutSettings(trials=2, truncate=2, workers=1, cube_play=True), match=MatchState(length=5))
    t = step("rollouts", t)
    for variant in ("dutch", "mahbusa"):
        veng = engine_for(variant)
        vstart = find_variant(variant).start()
        veng.evaluate(vstart, 1)
        veng.rank_plays(vstart, (6, 5), 0)
        rollout(veng, vstart, RolloutSettings(trials=1, seed=1, workers=1, max_plies=4))
    t = step("Dutch and Mahbusa engines and rollouts", t)
    import doctest

    import analyzer.eval._rollout_kernel as kernel

    doctest.testmod(kernel)  # its examples call the kernel functions directly: another compiled signature
    for vr in (False, True):
        rollout(eng, start, RolloutSettings(trials=2, truncate=2, workers=1, variance_reduction=vr, max_plays=1,
                                            luck_prune=True), dice=(3, 1))
    t = step("rollout kernel called directly, pruned luck", t)
    import numpy as np

    from analyzer.analysis.decisions import ranking
    from analyzer.eval.variants.play import duel_outcomes

    Engine(eng.nets, two_sided=False, cache_size=0).evaluate(Position.from_notation("P 6:3 1:3 | O 19:3 24:3"))
    ranking(eng, start, (6, 4), 2)  # the 2-ply filtered ranking of the analysis
    contact = Position.from_notation("P 24:2 13:4 8:3 6:4 5:2 | O 19:4 17:3 12:4 1:2 3:2")
    # writable, as the analysis and the rollouts pass them: numba compiles a read-only array as its own type
    boards = np.frombuffer(contact.board, np.int8)[None, :].copy()
    eng.evaluate_boards(boards, 2)
    Engine(eng.nets, threads=1).evaluate_boards(boards, 2)  # batch workers
    from analyzer.eval.engine import eval_parallel

    eval_parallel(eng, boards, 0)  # 0-ply batches of 4,000 boards or more
    t = step("bear-off convolution, 2-ply ranking, search, large 0-ply batches", t)
    duel_outcomes("mahbusa", "heuristic", "heuristic", pairs=1, seed=2)
    duel_outcomes("dutch", "heuristic", "random", pairs=1, seed=2)
    t = step("variant duels (benchmarks, play levels)", t)
    from analyzer.eval.net import NetSet
    from analyzer.eval.selfplay import GameBuffers, duel, play_seeded

    duel(None, None, np.arange(2, dtype=np.int64))
    play_seeded(NetSet.initial(hidden=8, race_hidden=8, seed=9), 1, 0.0, GameBuffers())
    step("training self-play (its tests)", t)
    for name, secs in steps:
        print(f"{name:<45} {secs:7.1f} s")
    print(f"{'total':<45} {time.perf_counter() - t0:7.1f} s")


if __name__ == "__main__":
    main()
