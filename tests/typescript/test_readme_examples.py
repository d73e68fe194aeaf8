"""The examples of schemas/README.md's sections on followSession and answer,
on followReply and PartialJSON, and on connectSession, compile with tsc
--strict against the package, as a frontend would import it
(``@wire/agentscope-types``), so that they never use a function the reader
cannot see or a signature that changed."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.helpers import ROOT, needs_npm

SCHEMAS = ROOT / "schemas"
TSC = SCHEMAS / "node_modules" / ".bin" / "tsc"
SESSION = "## Following a session: confirmations and answers"
SECTION = "## Following a reply, and a tool call's arguments as they stream"
SOCKET = "## A session over one WebSocket"


def examples(heading: str = SECTION) -> list[str]:
    text = (SCHEMAS / "README.md").read_text(encoding="utf-8")
    section = text[text.index(heading):]
    end = section.find("\n## ", len(heading))
    # `typescript` blocks: test_schema.py checks `ts` blocks against tests/ts/consumer.ts.
    return re.findall(r"```typescript\n(.*?)```", section if end < 0 else section[:end], re.S)


def test_section_has_both_examples() -> None:
    found = examples()
    assert len(found) == 2
    assert "followReply(" in found[0] and "new PartialJSON()" in found[1]
    session = examples(SESSION)
    assert len(session) == 1
    assert all(call in session[0] for call in ("followSession(", "answer(", "confirmation(", "waiting("))
    socket = examples(SOCKET)
    assert len(socket) == 1 and all(call in socket[0] for call in ("connectSession(", ".send(", ".run("))


@needs_npm("schemas")
def test_examples_compile(tmp_path: Path) -> None:
    package = tmp_path / "node_modules" / "@wire" / "agentscope-types"
    package.parent.mkdir(parents=True)
    package.symlink_to(SCHEMAS, target_is_directory=True)  # as `npm install ../schemas` links it
    names = []
    for number, code in enumerate(examples(SESSION) + examples() + examples(SOCKET)):
        name = f"example{number}.ts"
        (tmp_path / name).write_text(code if "export" in code else code + "\nexport {};\n", encoding="utf-8")
        names.append(name)
    config = json.loads((ROOT / "tests" / "ts" / "tsconfig.json").read_text(encoding="utf-8"))
    config["compilerOptions"].update(noEmit=True, skipLibCheck=False)
    config["files"] = names
    (tmp_path / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    result = subprocess.run([str(TSC), "-p", str(tmp_path / "tsconfig.json")], capture_output=True, text=True,
                            timeout=120, check=False, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
