"""The command line's plain coercion (analyzer.cli.coercion) gives what typer's own coercion gives: the same
values of the same types for every parameter of every command, the same errors; and a process runs its
command without importing pydantic."""

from __future__ import annotations

import subprocess
import sys
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import typer
from typer._click import Context
from typer._coercion import build_runtime_param

from analyzer.cli import app
from analyzer.cli.coercion import plain_coercion, plain_param

VALUES: dict[Any, list[Any]] = {
    str: ["x", "", "-", "4HPwATDgc/ABMA", "ü", b"x"],
    bool: [True, False, "true", "0"],
    int: [0, 7, -3, True, "0", "02", "-3", "12", "+3", " 3", "1_000", "3.0", "1e3", "x", "", "9" * 19, "-0"],
    float: [2, 2.5, -1.0, "0.5", "-1", "3", "1e3", ".5", "5.", "x", "", "0.1234567890123456789"],
    Path: ["a/b", "", "reports", "/no/such/folder/file", "tests", Path("x")],
}


def _params() -> list[tuple[str, Any]]:
    out = []
    for info in app.registered_commands:
        one = typer.Typer()
        one.registered_commands = [info]
        command = typer.main.get_command(one)
        out += [(f"{command.name}:{p.name}", (command, p)) for p in command.params]
    return out


def _outcome(runtime: Any, value: Any, param: Any, ctx: Context) -> tuple[str, Any]:
    try:
        result = runtime.coerce(value, param=param, ctx=ctx)
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        return "error", (type(e).__name__, str(e))
    return "value", (type(result), result)


@pytest.mark.parametrize(("name", "pair"), _params(), ids=[n for n, _ in _params()])
def test_plain_coercion_is_typers(name: str, pair: tuple[Any, Any]) -> None:
    command, param = pair
    descriptor = param.type_descriptor
    annotation = descriptor.annotation
    plain = plain_param(descriptor)
    if plain is None:
        assert annotation not in VALUES and not (isinstance(annotation, type) and issubclass(annotation, Enum))
        return
    values = VALUES.get(annotation)
    if values is None:  # an enum of choices
        members = list(annotation)
        values = [*members, *(m.value for m in members), *(str(m.value).upper() for m in members), "nope", ""]
    ctx = Context(command)
    typers = build_runtime_param(descriptor)
    for value in values:
        assert _outcome(plain, value, param, ctx) == _outcome(typers, value, param, ctx), (name, value)


def test_the_coercion_is_restored_after_the_block() -> None:
    from typer.core import _TyperParameter

    before = _TyperParameter.get_runtime_param
    with plain_coercion():
        assert _TyperParameter.get_runtime_param is not before
    assert _TyperParameter.get_runtime_param is before


def test_a_process_runs_without_pydantic_and_tunes_its_collector() -> None:
    code = ("import gc, sys\n"
            "sys.argv = ['bgreview', 'hint', '4HPwATDgc/ABMA', '--dice', '31', '--ply', '0', '--format', 'json']\n"
            "from analyzer.cli import main\n"
            "try:\n"
            "    main()\n"
            "except SystemExit as e:\n"
            "    assert not e.code, e.code\n"
            "print('pydantic' in sys.modules, gc.get_threshold()[0] > 700, gc.get_freeze_count() > 0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert '"play": "8/5 6/5"' in out
    assert out.splitlines()[-1] == "False True True"
