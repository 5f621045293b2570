"""The byte layout of a position, shared by every variant and by the compiled kernels.

A position is 64 signed bytes, always seen from the side on roll ("the mover"), points numbered
1..24 from the mover's side (the mover moves from 24 towards 1, the opponent from 1 towards 24):

====== ===================================================================================
slot   meaning
====== ===================================================================================
0      opponent's checkers on the bar (>= 0)
1..24  top stack on the point: > 0 the mover's count, < 0 minus the opponent's count
25     mover's checkers on the bar (>= 0)
26     mover's checkers borne off
27     opponent's checkers borne off
28     mover's reserve (Dutch: checkers not yet entered)
29     opponent's reserve
30     1 when the mover may hit (Dutch lock flag, permanent once set)
31     1 when the opponent may hit
32..55 pin under point p at slot 31 + p (Mahbusa): +1 an opponent checker is pinned under the
       mover's stack, -1 a mover checker is pinned under the opponent's stack, 0 none
56     1 when the game ended by a special rule (Mahbusa mother win or double-mother draw)
57..63 unused, zero
====== ===================================================================================
"""

from __future__ import annotations

NSLOTS = 64
OPP_BAR = 0
MOVER_BAR = 25
MOVER_OFF = 26
OPP_OFF = 27
MOVER_RES = 28
OPP_RES = 29
MOVER_CAN_HIT = 30
OPP_CAN_HIT = 31
PIN0 = 31  # pin slot of point p is PIN0 + p
GAME_END = 56
CHECKERS = 15

VAR_STANDARD = 0
VAR_DUTCH = 1
VAR_MAHBUSA = 2

# Engine option bits (alternatives listed in docs/rules.md §2.4 and §3.4).
OPT_DUTCH_ENTER_ALL_FIRST = 1
OPT_DUTCH_TURN_START = 2
OPT_DUTCH_UNLOCK_CURRENT = 4
OPT_MAHBUSA_ON_PIN = 8
