"""The entry point builds only the command it runs (start-up): the same help, options and errors as the
whole app."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from analyzer.cli import app, command_app

NAMES = [c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands if c.callback]


def test_every_command_is_found_alone() -> None:
    assert len(NAMES) >= 14
    for name in NAMES:
        one = command_app([name])
        assert one is not app and len(one.registered_commands) == 1
    assert len(app.registered_commands) == len(NAMES)  # the copies leave the app whole


@pytest.mark.parametrize("name", NAMES)
def test_a_command_alone_says_what_the_whole_app_says(name: str) -> None:
    runner = CliRunner()
    for args in ([name, "--help"], [name, "--no-such-option"]):
        whole = runner.invoke(app, args, prog_name="bgreview", env={"COLUMNS": "100"})
        alone = runner.invoke(command_app(args), args, prog_name="bgreview", env={"COLUMNS": "100"})
        assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)
        assert f"bgreview {name}" in alone.output


def test_the_group_and_unknown_commands_get_the_whole_app() -> None:
    assert command_app([]) is app and command_app(["--version"]) is app and command_app(["analyse"]) is app
    result = CliRunner().invoke(command_app(["analyse"]), ["analyse"], prog_name="bgreview")
    assert result.exit_code == 2 and "No such command" in result.output


def test_the_command_table_names_every_command_and_its_module() -> None:
    from analyzer.cli import COMMANDS

    assert set(COMMANDS) == set(NAMES)
    for name in NAMES:
        callback = command_app([name]).registered_commands[0].callback
        assert callback is not None and callback.__module__ == f"analyzer.cli.{COMMANDS[name]}"


def test_a_process_loads_the_module_of_its_command_alone() -> None:
    import subprocess
    import sys

    code = ("import sys; from analyzer.cli import command_app; command_app(['moves']); "
            "print(sorted(m for m in sys.modules if m.startswith('analyzer.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['analyzer.cli.base', 'analyzer.cli.common', 'analyzer.cli.moves']"


@pytest.mark.parametrize("name", ["analyze", "report", "sample", "play"])
def test_a_help_text_is_wrapped_at_the_terminal_width_only(name: str) -> None:
    # at 80 columns a docstring's own line breaks used to leave a short ragged line after each wrapped
    # one ("(plus charts and" / "report.html when" / "those renderers are installed) ..."): a line of the
    # description that another line of the same paragraph follows fills most of the width
    out = CliRunner().invoke(command_app([name, "--help"]), [name, "--help"], prog_name="bgreview",
                             env={"COLUMNS": "80"}).output
    text = out.split("╭")[0].splitlines()
    lines = [line.strip() for line in text[text.index(next(t for t in text if "Usage:" in t)) + 1:]]
    short = [a for a, b in zip(lines, lines[1:], strict=False) if a and b and len(a) < 60]
    assert not short, short
