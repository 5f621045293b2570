"""Make tests/data/ids_referee.json: Position IDs and XGID -> gnubg ID pairs computed by GNU Backgammon.

Run inside gnubg's embedded Python (it passes no argv, so options come from the environment):

    IDS_OUT=tests/data/ids_referee.json IDS_SEED=20261129 IDS_N=300 \
        /usr/games/gnubg -t -q -r -p tools/make_ids_fixture.py

The file holds:

* ``position_ids``: random standard boards as gnubg takes them (two lists of 25 counts, the
  player *not* on roll first; index i = point i+1 of that player's own numbering, 24 = bar) and
  gnubg's ``positionid`` of each;
* ``xgids``: random XGIDs and the ``PositionID:MatchID`` gnubg sets from them (``set xgid``).
  gnubg gives the player on turn the number 1 and ignores a pending double (``D``), so only
  rolled dice or ``00`` are written.
"""

import json
import os
import random

import gnubg  # type: ignore[import-not-found]  # only inside gnubg


def random_board(rng):
    """Two 25-slot lists (not-on-roll side first, own numbering, index 24 = bar), no shared point."""
    board = [[0] * 25, [0] * 25]
    for side in (0, 1):
        n = rng.randint(0, 15) if rng.random() < 0.3 else 15 - rng.randint(0, 3)
        for _ in range(n):
            for _try in range(50):
                slot = 24 if rng.random() < 0.05 else rng.randint(0, 23)
                if slot < 24 and board[1 - side][23 - slot]:
                    continue  # the other side holds this point
                board[side][slot] += 1
                break
    if sum(board[0]) == 0 and sum(board[1]) == 0:
        board[0][5] = 1
    return board


def xgid_of(board, rng):
    """A random XGID whose on-turn side is board[1]; returns the text."""
    turn = rng.choice((1, -1))
    cells = [0] * 26
    # bottom player: board[1] if turn == 1 else board[0]; bottom numbering = that side's own
    bottom, top = (board[1], board[0]) if turn == 1 else (board[0], board[1])
    for i in range(24):
        if bottom[i]:
            cells[i + 1] = bottom[i]
        if top[i]:
            cells[24 - i] = -top[i]
    cells[25] = bottom[24]
    cells[0] = -top[24]

    def ch(n):
        if n == 0:
            return "-"
        return chr(ord("A") + n - 1) if n > 0 else chr(ord("a") - n - 1)

    length = rng.choice((0, 0, 1, 3, 5, 7, 9, 11, 13, 17, 25))
    cube_log2 = rng.randint(0, 6)
    cube_pos = 0 if cube_log2 == 0 else rng.choice((1, -1))
    if cube_log2 and rng.random() < 0.2:
        cube_pos = 0
    dice = "00" if rng.random() < 0.3 else f"{rng.randint(1, 6)}{rng.randint(1, 6)}"
    if length:
        sb, st = rng.randint(0, length - 1), rng.randint(0, length - 1)
        one_at_n1 = length > 1 and (sb == length - 1) != (st == length - 1)
        flags = 1 if (one_at_n1 and rng.random() < 0.5) else 0
        if flags:  # no cube in the Crawford game (gnubg resets it to 1)
            cube_log2 = cube_pos = 0
    else:
        sb = st = 0
        flags = rng.randint(0, 3)
    fields = ["".join(ch(n) for n in cells), str(cube_log2), str(cube_pos), str(turn), dice,
              str(sb), str(st), str(flags), str(length), "10"]
    return "XGID=" + ":".join(fields)


def main():
    rng = random.Random(int(os.environ.get("IDS_SEED", "20261129")))
    n = int(os.environ.get("IDS_N", "300"))
    out_path = os.environ.get("IDS_OUT", "ids_referee.json")
    gnubg.command("set display off")
    pos_ids = []
    for _ in range(n):
        board = random_board(rng)
        pid = gnubg.positionid((tuple(board[0]), tuple(board[1])))
        pos_ids.append({"board": board, "position_id": pid})
    sentinel = "XGID=-------------------------O:0:0:1:00:0:0:0:0:10"
    gnubg.command("set xgid " + sentinel)
    sentinel_id = gnubg.gnubgid()
    xgids = []
    for _ in range(n):
        board = random_board(rng)
        x = xgid_of(board, rng)
        gnubg.command("set xgid " + sentinel)
        gnubg.command("set xgid " + x)
        gid = gnubg.gnubgid()
        if gid == sentinel_id:
            continue  # gnubg refused it
        xgids.append({"xgid": x, "gnubg_id": gid})
    with open(out_path, "w") as f:
        json.dump({"made_by": "tools/make_ids_fixture.py with GNU Backgammon 1.07 (set xgid, positionid)",
                   "position_ids": pos_ids, "xgids": xgids}, f, indent=0)
        f.write("\n")


main()
