"""The README's shell examples and programs run as written, and what it quotes of
examples/ is verbatim (its ``>>>`` examples are doctests)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

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


def python_scripts() -> list[str]:
    """The README's whole programs: ```python blocks that run something
    themselves (the ``>>>`` examples are doctests)."""
    return [block for block in re.findall(r"```python\n(.*?)```", README, flags=re.S)
            if ">>>" not in block and re.search(r"^(asyncio|anyio)\.run\(", block, flags=re.M)
            and not re.search(r"^\s*# …", block, flags=re.M)]


EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def programs() -> list[tuple[str, str]]:
    """(name, source) of every program the README shows whole or in part."""
    return ([(f"README: {s.splitlines()[-1][:40]}", s) for s in python_scripts()]
            + [(f"examples/{p.name}", p.read_text(encoding="utf-8")) for p in EXAMPLES])


@pytest.mark.parametrize(("name", "script"), programs(), ids=[name for name, _ in programs()])
def test_python_programs_run_and_print_what_their_comments_say(name: str, script: str, tmp_path: Path) -> None:
    # An example runs where it is (it may run a file beside it: examples/session_socket.mjs); a README
    # program from a file of its own.
    path = ROOT / name if name.startswith("examples/") else tmp_path / "example.py"
    if not name.startswith("examples/"):
        path.write_text(script, encoding="utf-8")
    result = subprocess.run([sys.executable, "-W", "error", str(path)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    promised = [m.group(1).strip() for m in re.finditer(r"^\s*print\(.*\)\s+# (.*)$", script, flags=re.M)]
    assert promised and result.stdout.splitlines() == promised


def test_the_readme_has_its_python_programs() -> None:
    assert len(programs()) >= 3


def excerpts() -> list[str]:
    """The README's ```python blocks that show a program in part: lines
    starting with ``# …`` mark what they leave out."""
    return [block for block in re.findall(r"```python\n(.*?)```", README, flags=re.S)
            if re.search(r"^\s*# …", block, flags=re.M)]


# What the README may quote in part: the example programs, the relay that
# tests/transports/test_relay.py imports (a module, not a program that prints), and the
# programs that need a server this test does not start (examples/redis/, run
# by tests/transports/test_redis_replicas.py against a real redis-server).
QUOTABLE = [*EXAMPLES, ROOT / "tests" / "transports" / "relay_example.py",
            *sorted((ROOT / "examples" / "redis").glob("*.py"))]


@pytest.mark.parametrize("block", excerpts(), ids=lambda b: b.splitlines()[0][:40])
def test_excerpts_are_the_example_programs_verbatim(block: str) -> None:
    chunks = [c for c in re.split(r"^\s*# ….*\n", block, flags=re.M) if c.strip()]
    sources = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in QUOTABLE}
    shown_in = [name for name, source in sources.items() if all(c in source for c in chunks)]
    assert shown_in, f"not verbatim in any of examples/ or tests/transports/relay_example.py: {block[:200]}"
    assert shown_in[0] in README  # the README names the file it quotes


def test_every_example_is_shown() -> None:
    assert EXAMPLES and len(excerpts()) >= len(EXAMPLES)
    assert all(f"examples/{p.name}" in README for p in EXAMPLES)


def test_the_readmes_javascript_is_the_examples_verbatim() -> None:
    """Its ```js blocks quote examples/*.mjs (``// …`` marks what they leave out)."""
    blocks = re.findall(r"```js\n(.*?)```", README, flags=re.S)
    sources = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "examples").glob("*.mjs")}
    assert blocks and sources
    for block in blocks:
        chunks = [c for c in re.split(r"^// ….*\n", block, flags=re.M) if c.strip()]
        assert any(all(c in source for c in chunks) and f"examples/{name}" in README
                   for name, source in sources.items()), block[:200]

