"""The README's shell examples run as written (its Python examples are doctests)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def console_sessions() -> list[list[tuple[str, str]]]:
    """Each ```console block as (command, expected output) pairs."""
    sessions = []
    for block in re.findall(r"```console\n(.*?)```", README, flags=re.S):
        steps: list[tuple[str, str]] = []
        for line in block.splitlines(keepends=True):
            if line.startswith("$ "):
                steps.append((line[2:].rstrip("\n"), ""))
            elif steps:
                steps[-1] = (steps[-1][0], steps[-1][1] + line)
        sessions.append(steps)
    return sessions


@pytest.mark.parametrize("steps", console_sessions(), ids=lambda steps: steps[0][0][:40])
def test_console_examples_print_what_the_readme_shows(steps: list[tuple[str, str]], tmp_path: Path) -> None:
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    python = shlex.quote(sys.executable)
    for command, expected in steps:
        shell = command.replace("python -m wire", f"{python} -m wire")
        result = subprocess.run(shell, shell=True, cwd=tmp_path, capture_output=True, text=True,
                                timeout=120, check=False)
        shown = result.stdout + result.stderr
        assert shown == expected, f"$ {command}"
        assert result.returncode == (1 if "error:" in expected else 0), f"$ {command}"


def test_the_readme_has_console_examples() -> None:
    assert sum(len(s) for s in console_sessions()) >= 4
