"""What schemas/README.md and the runtime's comments tell a frontend
developer, held to the package: the README leads with its clients
(``followSession`` and ``answer``, then ``followReply``), its
export table names every export of ``schemas/src/index.ts`` (the one export
list), and every ``wire.*`` module or name they mention exists in wire's
Python package. Needs no node."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from tests.helpers import ROOT

SCHEMAS = ROOT / "schemas"
README = (SCHEMAS / "README.md").read_text(encoding="utf-8")
INDEX = (SCHEMAS / "src" / "index.ts").read_text(encoding="utf-8")


def exports(index: str) -> list[str]:
    """The names ``export { ... } from`` lists in index.ts (``type`` dropped),
    and ``wire.d.ts`` for its ``export type * from "../wire.js"``."""
    names = []
    for group in re.findall(r"export\s*\{([^}]*)\}\s*from", index):
        names += [name.strip().removeprefix("type ").strip() for name in group.split(",") if name.strip()]
    if re.search(r'export type \* from "\.\./wire\.js"', index):
        names.append("wire.d.ts")
    return names


def export_table(readme: str) -> str:
    """The rows of the table under "## The runtime" that starts with ``| export |``."""
    section = readme[readme.index("\n## The runtime\n"):]
    table = section[section.index("| export |"):]
    return table[:table.index("\n\n")]


def documented(name: str, table: str) -> bool:
    """``name`` in a code span of the table, alone or called: `x`, `x(a, b)`, `x<T>`."""
    spans = re.findall(r"`([^`]+)`", table)
    return any(re.fullmatch(rf"{re.escape(name)}(\(.*\)|<.*>)?\??", span) for span in spans)


def test_the_export_list_is_read() -> None:
    names = exports(INDEX)
    assert {"followReply", "appendEvent", "SSEDecoder", "PartialJSON", "ReplyFollower", "wire.d.ts"} <= set(names)
    assert len(names) == len(set(names)) > 30


def test_the_readme_lists_every_export() -> None:
    table = export_table(README)
    missing = [name for name in exports(INDEX) if not documented(name, table)]
    assert not missing, f"schemas/README.md's export table (## The runtime) does not list {missing}"


def test_the_check_sees_a_missing_export() -> None:
    """The test above can fail: an export the table does not name is found."""
    index = INDEX + 'export { followReplies, type Shiny } from "./client.js";\n'
    table = export_table(README)
    assert [name for name in exports(index) if not documented(name, table)] == ["followReplies", "Shiny"]
    assert not documented("followReply", "| `followReplyX` | |") and documented("followReply", "| `followReply(url)` |")


def test_the_readme_leads_with_the_clients() -> None:
    """The first paragraph names the package's clients, and their sections
    are the first two of the guide."""
    first_paragraph = README.split("\n\n")[1]
    assert all(call in first_paragraph for call in ("`followSession(url)`", "`answer(url, ...)`", "`followReply(url)`"))
    sections = re.findall(r"^## (.+)$", README, re.M)
    assert sections[:2] == ["Following a session: confirmations and answers",
                            "Following a reply, and a tool call's arguments as they stream"]


# Tokens that look like modules but are not: the declaration file, its import
# path, the checkpoint, restart and turn events' names, and the socket's subprotocols.
NOT_MODULES = {"wire.d.ts", "wire.js", "wire.checkpoint", "wire.restart", "wire.turn", "wire.v1.json",
               "wire.v1.msgpack"}
SOURCES = [SCHEMAS / "README.md", *sorted((SCHEMAS / "src").glob("*.ts"))]


def resolves(dotted: str) -> bool:
    """``wire.a.b.c``: the longest importable module prefix, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


@pytest.mark.parametrize("path", SOURCES, ids=[p.relative_to(SCHEMAS).as_posix() for p in SOURCES])
def test_every_wire_name_mentioned_exists(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    names = {m.rstrip(".") for m in re.findall(r"\bwire\.[A-Za-z_][A-Za-z0-9_.]*", text)} - NOT_MODULES
    missing = sorted(name for name in names if not resolves(name))
    assert not missing, f"{path.relative_to(ROOT)} names what wire does not have: {missing}"


def test_a_name_that_does_not_exist_is_found() -> None:
    assert resolves("wire.framing.sse.SSEDecoder") and resolves("wire.resume.CHECKPOINT")
    assert not resolves("wire._streaming.StreamDecoder") and not resolves("wire.sse.SSEDecoder")
