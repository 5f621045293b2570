"""Make tests/data/gnubg_first_move_ids.json: gnubg's Position ID:Match ID of the first move of every game.

gnubg's text export writes the opening roll of a game with game state 0 ("no game"), but the ID
gnubg itself holds at that move (and shows for it, and needs when the ID is pasted back) says
"playing". This asks gnubg for the live ID at the first record of each game of the given match
files. Run inside gnubg's embedded Python (it passes no argv: files come from the environment):

    FIRST_IDS_OUT=tests/data/gnubg_first_move_ids.json \\
    FIRST_IDS_FILES="data/samples/boardlord-llabba-7p.mat bench/data/gnubg_reviews/c01-gx-match11870628.mat" \\
        /usr/games/gnubg -t -q -r -p tools/make_first_move_ids.py

The file maps each match file (as given) to the list of its games' first-move IDs, in order.
"""

import json
import os

import gnubg  # type: ignore[import-not-found]  # only inside gnubg


def first_move_ids(path):
    gnubg.command(f"import mat {path}")
    games = len(gnubg.match(0, 0, 0, 0)["games"])
    gnubg.navigate()  # the start of the match, before the opening roll is set ...
    gnubg.navigate(game=-1)  # ... and the start of its first game, with the opening roll
    ids = [gnubg.gnubgid()]
    for _ in range(games - 1):
        gnubg.navigate(game=1)  # the first record of the next game
        ids.append(gnubg.gnubgid())
    return ids


def main():
    files = sorted(os.environ["FIRST_IDS_FILES"].split())
    out = {path: first_move_ids(path) for path in files}
    with open(os.environ["FIRST_IDS_OUT"], "w") as f:
        json.dump({"gnubg": "GNU Backgammon 1.07.001, live IDs at the first record of each game",
                   "files": out}, f, indent=1, sort_keys=True)
        f.write("\n")


main()
