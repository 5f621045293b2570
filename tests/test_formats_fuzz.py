"""Seeded mutants of real match files through ``replay``, ``convert`` and ``batch``: the invariants
of issue 31 (no traceback, no hang, exit 0 only when every game replayed, every error line names
the file and the line, what convert writes replays). The mutations and the checks live in
``bench/fuzz_inputs.py``, whose larger runs give the counts quoted in the issue's note."""

from __future__ import annotations

import codecs
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from analyzer.analysis.replay import replay_games
from analyzer.core.errors import InputError
from analyzer.formats import read_any
from analyzer.formats.mat import read_match_text

N_KINDS = 14
SEEDS = range(101, 101 + 2 * N_KINDS)  # two mutants of each kind
BATCH_SEEDS = range(201, 201 + N_KINDS)


@pytest.fixture
def fuzz(bench_script: Callable[[str], ModuleType]) -> ModuleType:
    mod = bench_script("fuzz_inputs")
    assert len(mod.KINDS) == N_KINDS
    return mod


@pytest.mark.parametrize("seed", SEEDS)
def test_mutant_keeps_the_invariants(fuzz: ModuleType, seed: int, tmp_path: Path) -> None:
    m = fuzz.make_mutant(seed, fuzz.corpus_sources())
    out = fuzz.check_mutant(m, tmp_path, timeout=20.0)
    assert set(out.exits) >= {"replay-jsonl", "replay-table", "convert"}
    assert not out.failures, "\n".join(map(str, out.failures))


@pytest.mark.integration
def test_batch_of_mutants_keeps_the_invariants(fuzz: ModuleType, tmp_path: Path) -> None:
    sources = fuzz.corpus_sources()
    mutants = [fuzz.make_mutant(s, sources) for s in BATCH_SEEDS]
    exits = {}
    for m in mutants:
        (tmp_path / m.name).write_bytes(m.data)
        exits[m.seed] = fuzz.run_cli(["replay", str(tmp_path / m.name), "--format", "jsonl", "--no-progress"],
                                     20.0).code
    out = fuzz.check_batch(mutants, tmp_path, exits, timeout=60.0)
    assert out.exits["batch"] == 1  # the set holds broken files
    assert not out.failures, "\n".join(map(str, out.failures))


def _issue_cases() -> list[object]:
    galaxy = (Path(__file__).parent / "data" / "corpus" / "bglab" / "galaxy" / "match3128361.txt").read_bytes()
    game = " 3 point match\n\n Game 1\n alice : {0}                     bob : 0\n  1) 31: 8/5 6/5   42: 8/4 6/4\n"
    line_100 = "".join(f"; comment {i}\n" for i in range(95)) + game.format(0).replace("8/4 6/4", "8/2 6/2")
    return [
        pytest.param(".mat", game.format(3).encode(), id="1-score-reaches-the-length"),
        pytest.param(".mat", b"", id="2-empty"),
        pytest.param(".mat", b" \n\t\n", id="2-blank"),
        pytest.param(".mat", game.format(0).replace("\n", "\r").encode(), id="2-cr-only"),
        pytest.param(".txt", b"".join(galaxy.splitlines(keepends=True)[:89] + galaxy.splitlines(keepends=True)[90:]),
                     id="5-convert-of-a-failed-game"),
        pytest.param(".mat", line_100.encode(), id="6-error-on-line-100"),
        pytest.param(".sgf", b"", id="empty-sgf"),
        pytest.param(".mat", (b'; [Player 1 "ann"]\n; [Player 2 "bob"]\r; [X "y"]\n\n' + game.format(0).encode()
                              + b"  2)                             31: 8/5 6/5\n"), id="raw-cr-in-an-error-line"),
        pytest.param(".mat", (game.format(0) + "\n Game 2\n alice : 0                     bob : 0\n").encode(),
                     id="game-without-moves"),
        pytest.param(".sgf", b"(;FF[4]GM[6]PW[a]PB[b]MI[length:3])", id="sgf-game-without-moves"),
        pytest.param(".mat", b'; [Player 1 "ann"]\r; [X "y"]\n\n' + game.format(0).encode(),
                     id="raw-cr-in-a-table-row"),
    ]


def test_batch_and_replay_agree_on_a_huge_game_number(fuzz: ModuleType, tmp_path: Path) -> None:
    text = " 3 point match\n\n Game 2147483648\n alice : 0          bob : 0\n  1) 31: 8/5 6/5   42: 8/4 6/4\n"
    m = fuzz.Mutant(0, "hand-made", "issue 31", ".mat", text.encode())
    (tmp_path / m.name).write_bytes(m.data)
    code = fuzz.run_cli(["replay", str(tmp_path / m.name), "--format", "jsonl", "--no-progress"], 20.0).code
    out = fuzz.check_batch([m], tmp_path, {0: code}, timeout=60.0)
    assert not out.failures, "\n".join(map(str, out.failures))


@pytest.mark.parametrize(("suffix", "data"), _issue_cases())
def test_cases_of_the_issue_keep_the_invariants(fuzz: ModuleType, suffix: str, data: bytes, tmp_path: Path) -> None:
    """The examples of issue 31 (numbered by defect) and later findings of the fuzzer, through the
    same checks as the mutants."""
    m = fuzz.Mutant(0, "hand-made", "issue 31", suffix, data)
    out = fuzz.check_mutant(m, tmp_path, timeout=20.0)
    assert not out.failures, "\n".join(map(str, out.failures))


@pytest.mark.parametrize("eol", ["\r", "\r\n"])
def test_other_line_endings_replay_like_lf(fuzz: ModuleType, eol: str, tmp_path: Path) -> None:
    """Issue 31, defect 2: CR-only files are read like the others (they failed, or said nothing)."""
    for src in [p for p in fuzz.corpus_sources() if p.suffix == ".txt"][::6]:
        runs = []
        for name, data in (("lf.txt", src.read_bytes()), ("other.txt", src.read_bytes().replace(b"\n", eol.encode()))):
            (tmp_path / name).write_bytes(data)
            run = fuzz.run_cli(["replay", str(tmp_path / name), "--format", "jsonl", "--no-progress"], 20.0)
            runs.append((run.code, [{k: v for k, v in r.items() if k != "file"} for r in fuzz._rows(run.stdout)]))
        assert runs[1] == runs[0], src.name
        assert runs[0][0] == 0 and runs[0][1]


# ---------------------------------------------------------------------- the fuzzer itself
def test_mutants_are_seeded_and_every_kind_damages(fuzz: ModuleType) -> None:
    sources = fuzz.corpus_sources()
    assert {p.suffix for p in sources} == {".txt", ".mat", ".sgf"}
    for seed in range(40, 40 + 3 * N_KINDS):
        a, b = fuzz.make_mutant(seed, sources), fuzz.make_mutant(seed, sources)
        assert (a.kind, a.source, a.data) == (b.kind, b.source, b.data)
        original = next(p for p in sources if p.name == a.source).read_bytes()
        assert a.data != original or a.note.endswith("(unchanged)"), (seed, a.kind, a.note)
    assert {fuzz.make_mutant(s, sources).kind for s in range(N_KINDS)} == set(fuzz.KINDS)


def test_game_count_agrees_with_the_readers_on_intact_files(fuzz: ModuleType) -> None:
    for path in fuzz.corpus_sources():
        data = path.read_bytes()
        games = sum(len(list(replay_games(r))) for r in read_any(str(path)))
        assert fuzz.expected_games(data, path.suffix) == games, path.name
        if path.suffix != ".sgf":  # the count survives a change of encoding and line endings
            text = fuzz.decode_like_a_reader(data).replace("\n", "\r")
            assert fuzz.expected_games(codecs.BOM_UTF16_LE + text.encode("utf-16-le"), path.suffix) == games


def test_sgf_game_trees_skip_brackets(fuzz: ModuleType) -> None:
    assert fuzz.sgf_game_trees("(;FF[4]C[a (; b \\] (;])(;GM[6](;B[12]))") == 2
    assert fuzz.sgf_game_trees("") == fuzz.sgf_game_trees("just text (no tree)") == 0


def test_replayed_games_split_on_game_or_move_number(fuzz: ModuleType) -> None:
    rows = [{"game": 1, "move": 1}, {"game": 1, "move": 2}, {"game": 1, "move": 1}, {"game": 2, "move": 1}]
    assert fuzz.replayed_games(rows) == 3
    assert fuzz.replayed_games([]) == 0


def test_the_checks_catch_each_broken_invariant(fuzz: ModuleType) -> None:
    """The invariants fail on the kinds of output issue 31 describes."""
    path = "/tmp/x/m.txt"

    def failures(run: object, expected: int, done: int) -> set[str]:
        out = fuzz.Outcome(0, "test")
        fuzz._common(out, "replay", run, path, expected, done)
        return {f.invariant for f in out.failures}

    good = f"error: {path}:12:3: illegal move: '8/2'\n"
    assert failures(fuzz.Run(1, "", good, None), 3, 2) == set()
    assert failures(fuzz.Run(0, "", "", None), 3, 3) == set()
    assert failures(fuzz.Run(0, "", "", None), 3, 2) == {"exit"}  # a game lost without a word
    assert failures(fuzz.Run(0, "", "", None), 0, 0) == {"exit"}  # no game at all, exit 0
    assert failures(fuzz.Run(1, "", "", None), 3, 2) == {"exit"}  # failed, said nothing
    assert failures(fuzz.Run(1, "", good, "ValueError: boom"), 3, 2) == {"traceback"}
    assert failures(fuzz.Run(1, "", f"error: {path}: internal error (KeyError: 1), please report it\n", None),
                    3, 2) == {"traceback", "location"}
    assert failures(fuzz.Run(1, "", f"error: {path}\N{HUNDRED POINTS SYMBOL}34: unreadable move\n", None),
                    3, 2) == {"location"}
    assert failures(fuzz.Run(1, "", "error: no game found in the SGF file\n", None), 1, 0) == {"location"}
    with pytest.raises(fuzz.Hang), fuzz.time_limit(0.05):
        while True:
            pass


@pytest.mark.parametrize("text", [" 99999 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n",
                                  " 0 point match\n Game 1\n a : 99999999   b : 0\n  1) 31: 8/5 6/5\n",
                                  " 7 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5  Doubles => 99\n"])
def test_out_of_range_numbers_are_errors(text: str) -> None:
    [m] = read_match_text(text)
    [g] = replay_games(m)
    assert isinstance(g.error, InputError)


# ---------------------------------------------------------------------- write cases (issue 55)
FAST_WRITE_KINDS = ("read_only", "full_disk")  # about a second each where they run; the others review twice


def _write_case(fuzz: ModuleType, kind: str, tmp_path: Path) -> None:
    seed = 600 + fuzz.WRITE_KINDS.index(kind)
    case = fuzz.make_write_case(seed)
    assert case.kind == kind
    out = fuzz.check_write_case(case, tmp_path, timeout=60.0)
    if "skipped" in out.exits:
        pytest.skip("this process may not mount a read-only folder or a tmpfs (not root)")
    assert out.exits and not out.failures, "\n".join(map(str, out.failures))


@pytest.mark.parametrize("kind", FAST_WRITE_KINDS)
def test_write_case_keeps_the_invariants(fuzz: ModuleType, kind: str, tmp_path: Path) -> None:
    _write_case(fuzz, kind, tmp_path)


@pytest.mark.integration
@pytest.mark.parametrize("kind", ["hostile_name", "onto_input", "planted_link", "dots_stem"])
def test_slower_write_case_keeps_the_invariants(fuzz: ModuleType, kind: str, tmp_path: Path) -> None:
    _write_case(fuzz, kind, tmp_path)


def test_write_cases_are_seeded_and_hostile(fuzz: ModuleType) -> None:
    cases = [fuzz.make_write_case(s) for s in range(60)]
    assert [c.kind for c in cases[:len(fuzz.WRITE_KINDS)]] == list(fuzz.WRITE_KINDS)
    assert all(fuzz.make_write_case(c.seed) == c for c in cases)
    hostile = [c for c in cases if c.kind == "hostile_name"]
    assert any(len(n) >= 56 for c in hostile for n in c.names)
    assert all(not fuzz._BREAKS.search("".join(c.names)) for c in hostile if c.suffix == ".mat")
    for c in hostile:  # every input the cases write reads
        [record] = list(read_any(str(_written(c))))
        assert record.games


def _written(case: object) -> Path:
    import tempfile

    path = Path(tempfile.mkdtemp()) / f"in{case.suffix}"  # type: ignore[attr-defined]
    path.write_bytes(case.data())  # type: ignore[attr-defined]
    return path


def test_the_write_checks_catch_cut_files_and_messages(fuzz: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "report.html").write_text("<html><body>cut")
    (tmp_path / "summary.json").write_text('{"a": ')
    (tmp_path / ".x.123.tmp").write_text("")
    (tmp_path / "ok.svg").write_text("<svg></svg>\n")
    bad = fuzz._whole(tmp_path, 10.0)
    assert len(bad) == 3 and not any("ok.svg" in b for b in bad)
    one = fuzz.Run(2, "", "error: /d/x.csv: No space left on device\n", None)
    assert fuzz._one_line(one, "/d") is None
    assert fuzz._one_line(fuzz.Run(2, "", "error: a\nerror: b\n", None), "/d")
    assert fuzz._one_line(one, "/elsewhere")


# ----------------------------------------------------------------------------- special inputs (issue 55)
def _special(fuzz: ModuleType, case: object, tmp_path: Path) -> None:
    out = fuzz.check_special_case(case, tmp_path, timeout=30.0)
    if "skipped" in out.exits:
        pytest.skip("no FIFOs here")
    assert out.exits and not out.failures, "\n".join(map(str, out.failures))


@pytest.mark.parametrize("kind", [pytest.param("fifo", marks=pytest.mark.integration),  # each over 1 s (many
                                  pytest.param("dev_zero", marks=pytest.mark.integration),  # commands): the
                                  pytest.param("folder_named_mat", marks=pytest.mark.integration),  # default
                                  "unreadable_folder", "xg_archive"])  # tier has test_special_files.py
def test_special_case_keeps_the_invariants(fuzz: ModuleType, kind: str, tmp_path: Path) -> None:
    seed = 700 + fuzz.SPECIAL_KINDS.index(kind)
    case = fuzz.make_special_case(seed)
    assert case.kind == kind
    _special(fuzz, case, tmp_path)


@pytest.mark.parametrize("style", ["bomb", "duplicates"])
def test_multi_entry_xg_archives_keep_the_invariants(fuzz: ModuleType, style: str, tmp_path: Path) -> None:
    _special(fuzz, fuzz.SpecialCase(31, "xg_archive", ".xg", style), tmp_path)


def test_special_cases_are_seeded_and_the_bomb_lies_about_its_sizes(fuzz: ModuleType) -> None:
    import analyzer.formats.xg as xg

    cases = [fuzz.make_special_case(s) for s in range(20)]
    assert [c.kind for c in cases[:len(fuzz.SPECIAL_KINDS)]] == list(fuzz.SPECIAL_KINDS)
    assert all(fuzz.make_special_case(c.seed) == c for c in cases)
    bomb = fuzz.xg_archive(5, "bomb")
    assert bomb == fuzz.xg_archive(5, "bomb") and len(bomb) < 1 << 20
    [record] = xg.read_xg(__import__("io").BytesIO(bomb), name="bomb.xg")
    assert len(record.errors) == 1 and not record.games
