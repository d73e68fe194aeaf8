"""schemas/: the JSON Schemas and TypeScript types, proven with a frontend's tools.

Without node: the committed schemas are what the model generates, ``wire
schema --check`` fails when they drift, and the post-processing did what
``wire.schema`` promises. With node and ``schemas/node_modules`` (``npm ci``,
which .ci/run does): strict ajv validates every conformance vector and what
wire writes, rejects bad input with one precise error; ``tsc --strict``
compiles the frontend consumer in tests/ts and refuses the files in
tests/ts/bad; the compiled consumer rebuilds agentscope's messages from their
events. The node tests use a scratch frontend project whose node_modules holds
the schemas package and ajv, as an install would (see :func:`frontend`).
"""

from __future__ import annotations

import base64
import functools
import json
import operator
import re
import shutil
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeAlias

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

import wire
from tests.helpers import CASES, ROOT, catalog_lines, needs_npm, require_npm, standalone_messages
from wire import cli
from wire import schema as wire_schema
from wire.events import _Event

SCHEMAS = ROOT / "schemas"
TS_DIR = Path(__file__).parent / "ts"
NODE_MODULES = SCHEMAS / "node_modules"
TSC = NODE_MODULES / ".bin" / "tsc"

EVENT = "agent-event.schema.json"
MSG = "msg.schema.json"
BLOCK = "content-block.schema.json"
FILES = (EVENT, MSG, BLOCK)

needs_node = needs_npm("schemas")  # fails, naming the step, without node or `npm ci` in schemas/

Json: TypeAlias = Any


def schema_file(name: str) -> Json:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


def all_nodes(node: Json) -> Iterator[Json]:
    """Every dict and list inside a JSON value (a blunt walk: fine for asserting absence)."""
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from all_nodes(value)
    elif isinstance(node, list):
        for item in node:
            yield from all_nodes(item)


# -- drift: the committed files are generated, and --check notices when they are not ------------


def test_committed_schemas_are_what_the_model_generates() -> None:
    for name, text in wire_schema.generated().items():
        assert (SCHEMAS / name).read_text(encoding="utf-8") == text, (
            f"schemas/{name} is stale: run `python -m wire schema`")
    assert sorted(p.name for p in SCHEMAS.glob("*.schema.json")) == sorted(FILES)


def copy_schemas(dest: Path, *, with_node: bool = False) -> Path:
    """A copy of the schemas package without node_modules (or with a link to it)."""
    dest.mkdir()
    (dest / "src").mkdir()
    for name in (*FILES, "wire.d.ts", wire_schema.CANONICAL_FILE):
        shutil.copy(SCHEMAS / name, dest / name)
    if with_node:
        shutil.copytree(SCHEMAS / "scripts", dest / "scripts")
        (dest / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
    return dest


class TextBlockDeltaEvent(_Event, tag="TEXT_BLOCK_DELTA", kw_only=True, frozen=True):
    """The TEXT_BLOCK_DELTA of a model someone changed: a new required field."""

    reply_id: str
    block_id: str
    delta: str
    index: int


def changed_exports() -> tuple[wire_schema.SchemaExport, ...]:
    """wire's exports with TextBlockDeltaEvent replaced by the changed class above."""
    members = [TextBlockDeltaEvent if c is wire.TextBlockDeltaEvent else c for c in wire.AgentEvent.__args__]
    changed = functools.reduce(operator.or_, members)
    return tuple(wire_schema.SchemaExport(e.filename, e.title, changed, e.description)
                 if e.title == "AgentEvent" else e for e in wire_schema.EXPORTS)


def test_check_passes_on_an_unchanged_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = copy_schemas(tmp_path / "schemas")
    assert cli.main(["schema", "--check", "--out", str(out)]) == 0
    # No node_modules in the copy: the types are not checked, and it says so.
    assert "not checked" in capsys.readouterr().err


def test_check_fails_when_the_model_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = copy_schemas(tmp_path / "schemas")
    monkeypatch.setattr(wire_schema, "EXPORTS", changed_exports())
    assert cli.main(["schema", "--check", "--out", str(out)]) == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("note:")]
    # One line, for the one file whose model changed, saying how to fix it.
    assert errors == [f"{out / EVENT} differs from the schema generated from wire's model; "
                      "run `python -m wire schema` to regenerate"]
    assert '"index"' in wire_schema.rendered()[EVENT]  # the change is really in the generated schema


# -- the TypeScript runtime's field table (schemas/src/fields.ts) ----------------------------------------


def test_the_field_table_is_the_models_order_and_defaults() -> None:
    table = wire_schema.canonical_fields()
    # the tag first, required fields, an enum default as its string
    assert '  tool_call: [["type", ALWAYS], ["id", ALWAYS], ["name", ALWAYS], ["input", ALWAYS], ["state", "pending"]' \
        in table
    assert '["suggested_rules", EMPTY_ARRAY]' in table and '["metadata", EMPTY_OBJECT]' in table
    assert '["cache_input_tokens", 0]' in table and '["error", null]' in table
    assert all(len(line) <= 120 for line in table.splitlines())
    for name, cls in wire_schema.CANONICAL_STRUCTS:  # every field of every struct, in order
        fields = [f.encode_name for f in msgspec.structs.fields(cls)]
        line = table[table.index(f"  {name}: ["):]
        line = line[:line.index("]],") + 3]
        tag = ["type"] if cls.__struct_config__.tag else []
        assert [part.split('"')[1] for part in line.split("[")[2:]] == tag + fields


def test_the_field_table_carries_the_role_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The TypeScript reducer and Msg readers keep wire.blocks.ROLE_BLOCKS,
    generated: a role's block types by their tags, and the error's words."""
    table = wire_schema.canonical_fields()
    rows = table[table.index("export const ROLE_BLOCKS = {\n"):].splitlines()[1:-1]
    expected = []
    for role, rule in wire.blocks.ROLE_BLOCKS.items():
        if rule is None:
            expected.append(f"  {role}: null,")
        else:
            tags = ", ".join(sorted(f'"{typing.cast("type[msgspec.Struct]", cls).__struct_config__.tag}"'
                                    for cls in rule[0]))
            expected.append(f'  {role}: [[{tags}], "{rule[1]}"],')
    assert rows == expected
    assert '  user: [["data", "text"], "text and data blocks"],' in rows
    monkeypatch.setitem(wire.blocks.ROLE_BLOCKS, "system", (frozenset({wire.TextBlock, wire.HintBlock}), "words"))
    assert '  system: [["hint", "text"], "words"],' in wire_schema.canonical_fields()


class Usage(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The Usage of a model someone changed: a new field with a default."""

    input_tokens: int
    output_tokens: int
    cache_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    reasoning_tokens: int = 0


def test_check_fails_when_the_model_changes_the_field_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = copy_schemas(tmp_path / "schemas")
    changed = tuple((name, Usage if name == "usage" else cls) for name, cls in wire_schema.CANONICAL_STRUCTS)
    monkeypatch.setattr(wire_schema, "CANONICAL_STRUCTS", changed)
    assert cli.main(["schema", "--check", "--out", str(out)]) == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("note:")]
    assert errors == [f"{out / wire_schema.CANONICAL_FILE} differs from the file generated from wire's model; "
                      "run `python -m wire schema` to regenerate"]
    assert cli.main(["schema", "--out", str(out)]) == 0
    assert '["reasoning_tokens", 0]' in (out / wire_schema.CANONICAL_FILE).read_text(encoding="utf-8")
    assert cli.main(["schema", "--check", "--out", str(out)]) == 0


def test_check_fails_when_the_field_table_is_edited(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = copy_schemas(tmp_path / "schemas")
    table = out / wire_schema.CANONICAL_FILE
    table.write_text(table.read_text(encoding="utf-8").replace('["state", "pending"]', '["state", "running"]'))
    assert cli.main(["schema", "--check", "--out", str(out)]) == 1
    assert f"{table} differs from the file generated from wire's model" in capsys.readouterr().err


def test_check_fails_on_missing_and_stale_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = copy_schemas(tmp_path / "schemas")
    (out / MSG).unlink()
    (out / "old-event.schema.json").write_text("{}")
    assert cli.main(["schema", "--check", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{out / MSG} is missing; run `python -m wire schema` to regenerate" in err
    assert f"{out / 'old-event.schema.json'} is not generated by wire any more" in err


def test_schema_writes_what_check_accepts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fresh"
    (tmp_path / "fresh").mkdir()
    (out / "old-event.schema.json").write_text("{}")  # a file left from an older model
    assert cli.main(["schema", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted([*FILES, "src"])
    assert [p.name for p in (out / "src").iterdir()] == ["fields.ts"]
    assert cli.main(["schema", "--check", "--out", str(out)]) == 0
    assert "not regenerated" in capsys.readouterr().err  # no node_modules there


def test_help_lists_the_schema_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    assert exit_.value.code == 0
    assert re.search(r"^\s+schema\s+write \(or --check\)", capsys.readouterr().out, re.M)
    with pytest.raises(SystemExit):
        cli.main(["schema", "--help"])
    assert "--check" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        cli.main([])  # a command is required
    assert exit_.value.code == 2


def test_python_m_wire_runs_the_cli(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "wire", "schema", "--check", "--out", str(tmp_path)],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert "agent-event.schema.json is missing" in result.stderr


def test_import_wire_does_not_import_the_tools() -> None:
    code = "import sys, wire; print(sorted(m for m in sys.modules if m in ('wire.cli', 'wire.schema')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


# -- what the post-processing promises ----------------------------------------------------------


def test_every_file_is_a_titled_2020_12_schema() -> None:
    for name, title in ((EVENT, "AgentEvent"), (MSG, "Msg"), (BLOCK, "ContentBlock")):
        doc = schema_file(name)
        assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert doc["title"] == title
        assert doc["$ref"] == f"#/$defs/{title}"
        assert all(d["title"] == n for n, d in doc["$defs"].items())


def test_tagged_unions_are_oneof_with_a_plain_discriminator() -> None:
    doc = schema_file(EVENT)
    union = doc["$defs"]["AgentEvent"]
    assert union["type"] == "object"
    assert union["discriminator"] == {"propertyName": "type"}
    names = [ref["$ref"].removeprefix("#/$defs/") for ref in union["oneOf"]]
    assert names == [c.__name__ for c in wire.AgentEvent.__args__]
    for name, cls in zip(names, wire.AgentEvent.__args__, strict=True):
        variant = doc["$defs"][name]
        assert variant["properties"]["type"] == {"const": cls.__struct_config__.tag}
        assert variant["required"][0] == "type"
    for file in FILES:
        for node in all_nodes(schema_file(file)):
            if isinstance(node, dict) and "discriminator" in node:
                assert node["discriminator"] == {"propertyName": "type"} and "oneOf" in node
                assert "anyOf" not in node and node["type"] == "object"


def test_named_unions_are_defined_once_and_referenced() -> None:
    doc = schema_file(MSG)
    assert doc["$defs"]["Msg"]["properties"]["content"]["items"] == {"$ref": "#/$defs/ContentBlock"}
    assert doc["$defs"]["DataBlock"]["properties"]["source"] == {"$ref": "#/$defs/DataSource"}
    for file in FILES:
        defs = schema_file(file)["$defs"]
        for union in ("AgentEvent", "ContentBlock", "DataSource"):
            copies = [n for n in all_nodes(defs) if isinstance(n, dict) and n.get("title") == union]
            assert copies == ([defs[union]] if union in defs else []), f"{union} is inlined in {file}"


def test_bytes_are_documented_base64() -> None:
    doc = schema_file(EVENT)
    for event in ("DataBlockDeltaEvent", "ToolResultDataDeltaEvent"):
        data = doc["$defs"][event]["properties"]["data"]
        assert data["type"] == ["string", "null"]
        assert data["contentEncoding"] == "base64"
        assert data["pattern"] == wire_schema.BASE64_PATTERN
        assert "standard padded base64" in data["description"]
    source = doc["$defs"]["Base64Source"]["properties"]["data"]
    assert source["type"] == "string" and source["pattern"] == wire_schema.BASE64_PATTERN


@given(st.binary(max_size=64))
def test_base64_pattern_accepts_what_wire_writes(data: bytes) -> None:
    encoded = msgspec.json.encode(data).decode()[1:-1]
    assert re.fullmatch(wire_schema.BASE64_PATTERN, encoded)
    assert encoded == base64.b64encode(data).decode()


@pytest.mark.parametrize("text", ["-_8=", "AA==\n", "AA AA", "###", "AA=A", "AA==="])
def test_base64_pattern_rejects_what_wire_rejects(text: str) -> None:
    assert not re.fullmatch(wire_schema.BASE64_PATTERN, text)
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(json.dumps(text), type=bytes)


def test_free_form_objects_and_nullables() -> None:
    msg = schema_file(MSG)["$defs"]["Msg"]["properties"]
    assert msg["metadata"] == {"type": "object", "default": {}, "additionalProperties": True}
    assert msg["finished_at"] == {"type": ["string", "null"], "default": None}
    assert msg["structured_output"]["type"] == ["object", "null"]
    # A nullable $ref keeps its anyOf: a type list cannot hold a $ref.
    assert msg["error"] == {"anyOf": [{"$ref": "#/$defs/ErrorInfo"}, {"type": "null"}], "default": None}


def test_structs_stay_open() -> None:
    for file in FILES:
        for node in all_nodes(schema_file(file)):
            if isinstance(node, dict) and "properties" in node:
                assert "additionalProperties" not in node


def test_descriptions_are_clean_markdown() -> None:
    text = "".join((SCHEMAS / f).read_text(encoding="utf-8") for f in FILES)
    assert "``" not in text and ":func:" not in text
    thinking = schema_file(MSG)["$defs"]["ThinkingBlock"]["description"]
    assert "\n" not in thinking and "`signature`" in thinking


# -- the scratch frontend project ---------------------------------------------------------------


@pytest.fixture(scope="session")
def frontend(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A frontend project: tests/ts copied, node_modules holding the schemas
    package (as @wire/agentscope-types) and ajv, linked as an install would."""
    require_npm("schemas")
    root = tmp_path_factory.mktemp("frontend")
    shutil.copytree(TS_DIR, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns("out"))
    (root / "node_modules" / "@wire").mkdir(parents=True)
    (root / "node_modules" / "@wire" / "agentscope-types").symlink_to(SCHEMAS, target_is_directory=True)
    (root / "node_modules" / "ajv").symlink_to(NODE_MODULES / "ajv", target_is_directory=True)
    return root


def run_node(frontend: Path, script: str, request: Json) -> Json:
    result = subprocess.run([require_npm("schemas"), script], cwd=frontend, input=json.dumps(request),
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def tsc(frontend: Path, project: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(TSC), "-p", project, "--pretty", "false"], cwd=frontend,
                          capture_output=True, text=True, check=False)


# -- TypeScript declarations ----------------------------------------------------------------------


@needs_node
def test_committed_types_are_generated_from_the_schemas(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["schema", "--check", "--out", str(SCHEMAS)]) == 0, capsys.readouterr().err


@needs_node
def test_check_fails_when_the_types_drift(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    out = copy_schemas(tmp_path / "schemas", with_node=True)
    assert cli.main(["schema", "--check", "--out", str(out)]) == 0
    types = out / "wire.d.ts"
    types.write_text(types.read_text().replace("  delta: string;\n", "  delta: string | number;\n", 1))
    assert cli.main(["schema", "--check", "--out", str(out)]) == 1
    assert capfd.readouterr().err.splitlines() == [  # printed by the node script
        f"{types} differs from the types generated from the schemas; run `python -m wire schema` "
        "(or `npm run gen-types` in schemas/) to regenerate it"]


@needs_node
def test_a_changed_model_reaches_the_types(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = copy_schemas(tmp_path / "schemas", with_node=True)
    monkeypatch.setattr(wire_schema, "EXPORTS", changed_exports())
    assert cli.main(["schema", "--out", str(out)]) == 0
    declaration = re.search(r"export interface TextBlockDeltaEvent \{.*?\n\}", (out / "wire.d.ts").read_text(),
                            re.S)
    assert declaration and "  index: number;" in declaration.group()
    assert (out / "wire.d.ts").read_text() != (SCHEMAS / "wire.d.ts").read_text()


def test_declarations_are_one_clean_discriminated_union() -> None:
    ts = (SCHEMAS / "wire.d.ts").read_text(encoding="utf-8")
    names = re.findall(r"^export (?:type|interface) (\w+)", ts, re.M)
    assert len(names) == len(set(names))
    assert not [n for n in names if re.fullmatch(r"\w*\D\d+", n)], "json2ts numbered a duplicate"
    union = re.search(r"^export type AgentEvent =(.*?);", ts, re.M | re.S)
    assert union is not None
    assert re.findall(r"\w+", union.group(1)) == [c.__name__ for c in wire.AgentEvent.__args__]
    assert re.search(r"^export type ContentBlock = TextBlock \| ThinkingBlock \| HintBlock \| DataBlock"
                     r" \| ToolCallBlock \| ToolResultBlock;", ts, re.M)
    # Members of an interface are indented two spaces; a free-form dict's own
    # index signature is nested deeper. So this finds index signatures on the
    # types themselves, which would let misspelt fields compile.
    assert not re.search(r"^  \[k: string\]", ts, re.M)
    for cls in wire.AgentEvent.__args__:
        assert f'  type: "{cls.__struct_config__.tag}";' in ts


# -- ajv, strict, over the conformance vectors and what wire writes ------------------------------


def valid_instances() -> list[tuple[str, str, Json]]:
    """(where from, schema file, value): everything agentscope wrote in the
    vectors, each message's blocks on their own, and wire's re-encoding of it
    all (which leaves out fields holding their default)."""
    out: list[tuple[str, str, Json]] = []
    event_lines = [(f"{c.name}/events.jsonl:{i}", line) for c in CASES for i, line in enumerate(c.event_lines)]
    event_lines += [(f"event_catalog.jsonl:{i}", line) for i, line in enumerate(catalog_lines())]
    for where, line in event_lines:
        out.append((where, EVENT, json.loads(line)))
        out.append((f"{where} via wire", EVENT, json.loads(wire.json.encode(wire.json.decode_event(line)))))
    messages = [(f"{c.name}/{f}", getattr(c, f)) for c in CASES for f in ("initial_msg", "expected_msg")]
    messages += [(p.name, p.read_bytes()) for p in standalone_messages()]
    for where, raw in messages:
        for source, value in ((where, json.loads(raw)),
                              (f"{where} via wire", json.loads(wire.json.encode(wire.json.decode_msg(raw))))):
            out.append((source, MSG, value))
            out.extend((f"{source} content[{i}]", BLOCK, block) for i, block in enumerate(value["content"]))
    return out


@pytest.fixture(scope="module")
def valid_results(frontend: Path) -> list[tuple[str, Json]]:
    instances = valid_instances()
    response = run_node(frontend, "validate.mjs",
                        {"instances": [{"schema": s, "value": v} for _, s, v in instances]})
    return [(where, result) for (where, _, _), result in zip(instances, response["results"], strict=True)]


def test_the_vectors_cover_every_event_type_and_block_type() -> None:
    instances = valid_instances()
    assert {v["type"] for _, s, v in instances if s == EVENT} == {str(t) for t in wire.EventType}
    assert {v["type"] for _, s, v in instances if s == BLOCK} == {
        c.__struct_config__.tag for c in wire.ContentBlock.__args__}
    # wire's re-encoding really differs from agentscope's: it omits defaults.
    assert any("via wire" in w and "metadata" not in v for w, s, v in instances if s == EVENT)


def test_strict_ajv_accepts_every_vector_and_wire_output(valid_results: list[tuple[str, Json]]) -> None:
    assert len(valid_results) > 1000
    rejected = [(where, result["errors"]) for where, result in valid_results if not result["valid"]]
    assert rejected == []


# (schema, value, decode type for wire, instancePath, keyword, params ajv reports)
INVALID: list[tuple[str, Json, Any, str, str, dict[str, Any]]] = [
    (EVENT, {"type": "TEXT_BLOCK_DELTA", "reply_id": "r", "block_id": "b", "delta": 5},
     wire.AgentEvent, "/delta", "type", {"type": "string"}),
    (EVENT, {"type": "TEXT_BLOCK_DELTA", "reply_id": "r", "block_id": "b"},
     wire.AgentEvent, "", "required", {"missingProperty": "delta"}),
    (EVENT, {"type": "NOPE", "reply_id": "r"},
     wire.AgentEvent, "", "discriminator", {"error": "mapping", "tag": "type", "tagValue": "NOPE"}),
    (EVENT, {"reply_id": "r", "block_id": "b", "delta": "Hi"},
     wire.AgentEvent, "", "discriminator", {"error": "tag", "tag": "type"}),
    (EVENT, {"type": "REPLY_END", "session_id": "s", "reply_id": "r", "finished_reason": "done"},
     wire.AgentEvent, "/finished_reason", "enum",
     {"allowedValues": ["completed", "error", "exceed_max_iters", "interrupted"]}),
    (EVENT, {"type": "MODEL_CALL_END", "reply_id": "r", "input_tokens": 1.5, "output_tokens": 2},
     wire.AgentEvent, "/input_tokens", "type", {"type": "integer"}),
    (EVENT, {"type": "TEXT_BLOCK_END", "reply_id": "r", "block_id": "b", "text": 5},
     wire.AgentEvent, "/text", "type", {"type": ["string", "null"]}),
    (EVENT, {"type": "DATA_BLOCK_DELTA", "reply_id": "r", "block_id": "b", "media_type": "image/png",
             "data": "-_8="},
     wire.AgentEvent, "/data", "pattern", {"pattern": wire_schema.BASE64_PATTERN}),
    (EVENT, {"type": "USER_INTERRUPT", "reply_id": "r", "metadata": "x"},
     wire.AgentEvent, "/metadata", "type", {"type": "object"}),
    (EVENT, {"type": "REQUIRE_USER_CONFIRM", "reply_id": "r",
             "tool_calls": [{"type": "tool_call", "id": "c", "name": "Bash", "input": "{}", "state": "bogus"}]},
     wire.AgentEvent, "/tool_calls/0/state", "enum",
     {"allowedValues": ["allowed", "asking", "finished", "pending", "submitted"]}),
    (EVENT, {"type": "USER_CONFIRM_RESULT", "reply_id": "r",
             "confirm_results": [{"tool_call": {"type": "tool_call", "id": "c", "name": "Bash", "input": ""}}]},
     wire.AgentEvent, "/confirm_results/0", "required", {"missingProperty": "confirmed"}),
    (EVENT, {"type": "CUSTOM", "value": {}},
     wire.AgentEvent, "", "required", {"missingProperty": "name"}),
    (MSG, {"name": "a", "role": "robot", "content": []},
     wire.Msg, "/role", "enum", {"allowedValues": ["assistant", "system", "user"]}),
    (MSG, {"name": "a", "role": "assistant", "content": [{"type": "video", "url": "x"}]},
     wire.Msg, "/content/0", "discriminator", {"error": "mapping", "tag": "type", "tagValue": "video"}),
    (MSG, {"name": "a", "role": "user", "content": [
        {"type": "data", "source": {"type": "base64", "data": "###", "media_type": "image/png"}}]},
     wire.Msg, "/content/0/source/data", "pattern", {"pattern": wire_schema.BASE64_PATTERN}),
    (MSG, {"name": "a", "role": "assistant", "content": [
        {"type": "tool_call", "id": "c", "name": "Bash", "input": "",
         "suggested_rules": [{"tool_name": "Bash", "behavior": "allow", "source": "session"}]}]},
     wire.Msg, "/content/0/suggested_rules/0", "required", {"missingProperty": "rule_content"}),
    (BLOCK, {"type": "tool_call", "id": "c", "input": "{}"},
     wire.ContentBlock, "", "required", {"missingProperty": "name"}),
    (BLOCK, {"type": "text", "text": "Hi", "finished_at": 0},
     wire.ContentBlock, "/finished_at", "type", {"type": ["string", "null"]}),
    (BLOCK, {"type": "data", "source": {"type": "ftp", "url": "ftp://x", "media_type": "text/plain"}},
     wire.ContentBlock, "/source", "discriminator", {"error": "mapping", "tag": "type", "tagValue": "ftp"}),
]


@pytest.fixture(scope="module")
def invalid_results(frontend: Path) -> list[Json]:
    request = {"instances": [{"schema": s, "value": v} for s, v, *_ in INVALID]}
    results: list[Json] = run_node(frontend, "validate.mjs", request)["results"]
    return results


@pytest.mark.parametrize("index", range(len(INVALID)),
                         ids=[f"{s.split('.')[0]}{path or '/'}:{kw}" for s, _, _, path, kw, _ in INVALID])
def test_strict_ajv_rejects_with_one_precise_error(index: int, invalid_results: list[Json]) -> None:
    _, value, model, path, keyword, params = INVALID[index]
    result = invalid_results[index]
    assert not result["valid"]
    expected = {"instancePath": path, "keyword": keyword, "params": params}
    for errors in (result["errors"], result["allErrors"]):
        assert [{k: e[k] for k in expected} for e in errors] == [expected]
    # The schema is not stricter than wire here: wire refuses the same value.
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(json.dumps(value), type=model)


def test_schema_gaps_are_the_documented_ones(frontend: Path) -> None:
    """What ajv accepts and wire refuses: invariants that live in wire's
    ``__post_init__``, not in the types (the README lists them)."""
    gaps = [
        (EVENT, {"type": "DATA_BLOCK_DELTA", "reply_id": "r", "block_id": "b", "media_type": "x"}),
        (MSG, {"name": "u", "role": "user", "content": [{"type": "tool_call", "id": "c", "name": "n", "input": ""}]}),
    ]
    results = run_node(frontend, "validate.mjs", {"instances": [{"schema": s, "value": v} for s, v in gaps]})
    assert [r["valid"] for r in results["results"]] == [True, True]
    with pytest.raises(wire.DecodeError, match="Exactly one of"):
        wire.json.decode_event(json.dumps(gaps[0][1]))
    with pytest.raises(wire.DecodeError, match="user message"):
        wire.json.decode_msg(json.dumps(gaps[1][1]))


def test_unknown_fields_pass_on_both_sides(frontend: Path) -> None:
    """Forward compatibility: a newer agentscope may add fields."""
    event = {"type": "TEXT_BLOCK_DELTA", "reply_id": "r", "block_id": "b", "delta": "Hi", "lang": "en"}
    results = run_node(frontend, "validate.mjs", {"instances": [{"schema": EVENT, "value": event}]})
    assert results["results"][0]["valid"]
    decoded = wire.json.decode_event(json.dumps(event))
    assert isinstance(decoded, wire.TextBlockDeltaEvent) and decoded.delta == "Hi"


def test_first_error_is_the_precise_one_inside_a_nullable_object(frontend: Path) -> None:
    """A nullable struct (``usage: Usage | None``) keeps an anyOf, so ajv adds
    the null branch's error and the anyOf's; the first error still names the
    bad field, which is why the consumer reports ``errors[0]``."""
    msg = {"name": "a", "role": "assistant", "content": [], "usage": {"input_tokens": "5", "output_tokens": 1}}
    result = run_node(frontend, "validate.mjs", {"instances": [{"schema": MSG, "value": msg}]})["results"][0]
    assert [(e["instancePath"], e["keyword"]) for e in result["errors"]] == [
        ("/usage/input_tokens", "type"), ("/usage", "type"), ("/usage", "anyOf")]


# -- tsc --strict: the consumer compiles, the bad files do not ----------------------------------


@pytest.fixture(scope="module")
def compiled_consumer(frontend: Path) -> Path:
    result = tsc(frontend, "tsconfig.json")
    assert result.returncode == 0, result.stdout + result.stderr
    return frontend / "out" / "consumer.js"


def test_consumer_compiles_under_strict(compiled_consumer: Path) -> None:
    config = json.loads((TS_DIR / "tsconfig.json").read_text())["compilerOptions"]
    assert config["strict"] and config["exactOptionalPropertyTypes"] and config["noUncheckedIndexedAccess"]
    assert "skipLibCheck" not in config  # wire.d.ts itself is type-checked
    assert compiled_consumer.exists()


def test_mistakes_do_not_compile(frontend: Path) -> None:
    config = json.loads((TS_DIR / "tsconfig.bad.json").read_text())
    bad_files = config["files"]
    assert sorted(bad_files) == sorted(f"bad/{p.name}" for p in (TS_DIR / "bad").glob("*.ts"))
    result = tsc(frontend, "tsconfig.bad.json")
    assert result.returncode != 0
    errors: dict[str, list[str]] = {}
    for line in result.stdout.splitlines():
        match = re.match(r"(bad/[\w-]+\.ts)\(\d+,\d+\): error (TS\d+: .*)", line)
        if match:
            errors.setdefault(match[1], []).append(match[2])
    for file in bad_files:
        expect = (TS_DIR / file).read_text().splitlines()[0].removeprefix("// expect: ")
        code, _, text = expect.partition(" ")
        assert len(errors.get(file, [])) == 1, (file, errors.get(file), result.stdout)
        assert errors[file][0].startswith(f"{code}: ") and text in errors[file][0], (file, errors[file])


# -- the consumer at run time -------------------------------------------------------------------------


def test_consumer_rebuilds_agentscope_messages_from_their_events(
        frontend: Path, compiled_consumer: Path) -> None:
    request = {
        "cases": [{"events": [line.decode() for line in c.event_lines], "expected": json.loads(c.expected_msg)}
                  for c in CASES],
        "invalid": [json.dumps(INVALID[0][1]), '{"type": "TEXT_BLOCK_DELTA"'],
    }
    response = run_node(frontend, "run-consumer.mjs", request)
    for case, result in zip(CASES, response["cases"], strict=True):
        assert result["got"] == result["want"], case.name
        assert result["streamed"] == result["want"], case.name
    renderings = "\n".join(r["want"] for r in response["cases"])
    # The renderings carry the content (so equal renderings mean something).
    for expected in ("[finished]", "-> success", "-> error", "bytes]", "(thinking)", "(hint from",
                     "tokens in", "error (rate_limit: 429"):
        assert expected in renderings, expected
    assert response["invalid"][0] == "invalid event at /delta: must be string"
    assert response["invalid"][1] is not None and "JSON" in response["invalid"][1]


# -- the documentation shows the code that is tested ----------------------------------------------

def doc_sources() -> list[tuple[str, str]]:
    """(name, Markdown) of the TypeScript guide: schemas/README.md, its one home."""
    return [("schemas/README.md", (SCHEMAS / "README.md").read_text(encoding="utf-8"))]


def test_the_typescript_guide_lives_in_one_place() -> None:
    main = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not code_blocks(main, "ts") and "schemas/README.md" in main


def code_blocks(markdown: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", markdown, re.M | re.S)


@pytest.mark.parametrize(("name", "markdown"), doc_sources(), ids=[n for n, _ in doc_sources()])
def test_documented_code_is_the_tested_consumer(name: str, markdown: str) -> None:
    consumer = (TS_DIR / "consumer.ts").read_text(encoding="utf-8")
    blocks = code_blocks(markdown, "ts")
    assert len(blocks) >= 5
    for block in blocks:
        # A line starting with "// …" marks code the documentation leaves out;
        # everything between such lines is the consumer's code, verbatim.
        chunks = re.split(r"^\s*// ….*\n", block, flags=re.M)
        for chunk in chunks:
            assert chunk.strip() and chunk in consumer, f"{name}: not in tests/ts/consumer.ts:\n{chunk}"
    (shown,) = [json.loads(b) for b in code_blocks(markdown, "json") if "compilerOptions" in b]
    tested = json.loads((TS_DIR / "tsconfig.json").read_text(encoding="utf-8"))["compilerOptions"]
    assert shown["compilerOptions"].items() <= tested.items()
