"""Every position command takes an XG position file (.xgp) as it takes the XGID inside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.formats.xg import xgp_xgid

XGP = str(Path(__file__).parent / "data" / "xg" / "position.xgp")
COMMANDS = [["show"], ["eval"], ["hint"], ["cube"], ["position"], ["moves"],
            ["rollout", "--trials", "36", "--truncate", "2", "--workers", "1"]]


@pytest.mark.parametrize("cmd", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_an_xgp_file_is_the_position_it_holds(cmd: list[str]) -> None:
    xgid = str(xgp_xgid(XGP))
    by_file = CliRunner().invoke(app, [*cmd, XGP], env={"COLUMNS": "150"})
    by_id = CliRunner().invoke(app, [*cmd, xgid], env={"COLUMNS": "150"})
    assert by_file.exit_code == 0, by_file.output
    assert by_file.output == by_id.output
