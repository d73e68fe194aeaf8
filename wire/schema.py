"""JSON Schema (draft 2020-12) of the wire model, shaped for ajv and json2ts.

The msgspec model is the source of truth; ``msgspec.json.schema_components``
describes it exactly, but in the dialect of OpenAPI tools. A browser toolchain
(strict ``Ajv2020`` to validate, json-schema-to-typescript for the types) needs
a few changes, made here on the generated data (schemas/README.md shows the result):

1. **Tagged unions.** msgspec writes ``anyOf`` plus an OpenAPI
   ``discriminator`` with a ``mapping``. ajv's ``discriminator`` keyword rejects
   ``mapping`` and needs ``oneOf``; with it ajv picks the variant by its tag, so
   a bad event gets one error that names the bad field instead of ~30 errors
   from trying every variant, and only one variant is tried. The union therefore
   becomes ``oneOf`` + ``discriminator: {propertyName}`` + ``"type": "object"``
   (without the type, strict ajv refuses the schema under ``strictTypes``).
2. **Tags are ``const``**: each variant's one-value ``enum`` tag becomes a
   ``const``, the form ajv's discriminator and readers expect.
3. **Named unions are defined once.** msgspec inlines a union wherever it is
   used, and a title cannot be given to it without being copied to every use,
   which json2ts turns into ``ContentBlock``, ``ContentBlock1``... The unions
   the model names (``AgentEvent``, ``ContentBlock``, ``DataSource``) are put in
   ``$defs`` under their names and every use becomes a ``$ref``.
4. **Nullable scalars use a type list**: ``anyOf: [{"type": "string"},
   {"type": "null"}]`` becomes ``"type": ["string", "null"]``. Same meaning,
   one ajv error for a bad value instead of three (one per branch and one for
   the ``anyOf``). Strict ajv allows a type list of one type plus null, exactly
   this case; a nullable ``$ref`` (``error: ErrorInfo | None``) keeps its anyOf.
5. **bytes are documented**: JSON carries them as standard padded base64
   (RFC 4648 §4), the only form agentscope writes and msgspec reads. A pattern
   over the alphabet makes validators reject URL-safe base64 or stray text, as
   wire's decoder does. It is deliberately a single character class: a pattern
   that also checks the length (groups of four) overflows V8's regexp stack on
   data of a few MiB.
6. **Free-form objects** (``metadata``, ``value``, ``structured_output``) say
   ``additionalProperties: true`` explicitly, so json2ts types them as
   ``{[k: string]: unknown}``; it would otherwise write ``{}``, on which a
   frontend can read no key.
7. **Descriptions** come from docstrings, dedented, with reST ````code````
   turned into Markdown `code` for the editors that show them.

The schemas stay open: no struct gets ``additionalProperties: false``, so a
frontend built against these schemas accepts events from a newer agentscope
that adds fields, as wire's decoder does. The TypeScript generator closes the
types instead (``additionalProperties: false`` is a json2ts option), so typos
fail to compile.

The TypeScript runtime's table of field order and defaults
(``schemas/src/fields.ts``, used by ``schemas/src/canonical.ts`` to write a
Msg's JSON as wire does) is generated here from the same model:
:func:`canonical_fields`, with the role table (``wire.blocks.ROLE_BLOCKS``)
that the runtime's reducer and Msg readers keep.

Nothing here reads or writes files: ``wire.cli`` does.
"""

from __future__ import annotations

import copy
import enum
import functools
import inspect
import json
import re
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from wire.blocks import (
    ROLE_BLOCKS,
    Base64Source,
    ContentBlock,
    DataBlock,
    DataSource,
    HintBlock,
    PermissionRule,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    URLSource,
)
from wire.events import AgentEvent, ErrorInfo, Usage
from wire.messages import Msg

__all__ = ("CANONICAL_FILE", "DIALECT", "EXPORTS", "SchemaExport", "canonical_fields", "generated", "render",
           "rendered", "schemas")

DIALECT = "https://json-schema.org/draft/2020-12/schema"

_REF = "#/$defs/{name}"
_REF_PREFIX = "#/$defs/"

# Standard base64 alphabet, then at most two pad characters (see item 5 above).
BASE64_PATTERN = "^[A-Za-z0-9+/]*={0,2}$"
_BASE64_DESCRIPTION = (
    "Binary data as standard padded base64 (RFC 4648 §4: `A-Z a-z 0-9 + /`, "
    "padded with `=`; not URL-safe, no line breaks)."
)


@dataclass(frozen=True)
class SchemaExport:
    """One schema file: its name in ``schemas/``, the title of its root (the
    name json2ts gives the type) and the model type it describes."""

    filename: str
    title: str
    type: Any
    description: str


EXPORTS: tuple[SchemaExport, ...] = (
    SchemaExport(
        "agent-event.schema.json", "AgentEvent", AgentEvent,
        "One of the 28 AgentScope 2.0 agent events, tagged by `type`.",
    ),
    SchemaExport(
        "msg.schema.json", "Msg", Msg,
        "An AgentScope 2.0 message: who said it, in which role, and its content blocks.",
    ),
    SchemaExport(
        "content-block.schema.json", "ContentBlock", ContentBlock,
        "One content block of a message, tagged by `type`.",
    ),
)

# Unions the model names but does not export as a file of their own.
_OTHER_NAMED_UNIONS: dict[str, tuple[Any, str]] = {
    "DataSource": (DataSource, "Where a data block's bytes are: inline base64 or a URL."),
}

_REST_ROLE = re.compile(r":[a-z]+:`([^`]+)`")  # :func:`name` and the like

_COMMENT = "Generated from wire's msgspec model by `python -m wire schema`; do not edit."


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def schemas(exports: tuple[SchemaExport, ...] | None = None) -> dict[str, dict[str, Any]]:
    """The schema documents by file name, each self-contained; ``exports``
    defaults to :data:`EXPORTS`, read at call time."""
    if exports is None:
        exports = EXPORTS
    named: dict[str, tuple[Any, str]] = {
        e.title: (e.type, e.description) for e in exports if _is_union(e.type)
    }
    named.update(_OTHER_NAMED_UNIONS)
    model_types = [e.type for e in exports] + [tp for tp, _ in named.values()]
    roots, components = msgspec.json.schema_components(model_types, ref_template=_REF)
    defs: dict[str, Any] = dict(components)

    union_schemas = roots[len(exports):]
    for (name, (_, description)), raw in zip(named.items(), union_schemas, strict=True):
        if name in defs:
            raise ValueError(f"the union {name} has the name of a struct")
        defs = _hoisted(defs, raw, _REF.format(name=name))
        defs[name] = {"title": name, "description": description, **raw}

    # One pass per step, each over a fresh walk, so every step sees the
    # schemas as the steps before it left them.
    steps = (functools.partial(_tagged_union, defs=defs), _nullable, _document_bytes, _open_object,
             _clean_description)
    for step in steps:
        for node in list(_walk(defs)):
            step(node)

    documents: dict[str, dict[str, Any]] = {}
    for export in exports:
        documents[export.filename] = {
            "$schema": DIALECT,
            "$comment": _COMMENT,
            "title": export.title,
            "description": export.description,
            "$ref": _REF.format(name=export.title),
            "$defs": {name: copy.deepcopy(defs[name]) for name in _reachable(defs, export.title)},
        }
    return documents


def render(document: dict[str, Any]) -> str:
    """The schema as the text committed to ``schemas/``: two-space indented
    UTF-8 JSON ending in a newline, so diffs of regenerated files stay small."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def rendered(exports: tuple[SchemaExport, ...] | None = None) -> dict[str, str]:
    """Schema file name → text, for the CLI to write or compare."""
    return {name: render(doc) for name, doc in schemas(exports).items()}


def generated(exports: tuple[SchemaExport, ...] | None = None) -> dict[str, str]:
    """Every file ``python -m wire schema`` writes from the model, by its path
    in the schemas package: the schemas and :data:`CANONICAL_FILE`."""
    return {**rendered(exports), CANONICAL_FILE: canonical_fields()}


# -- the TypeScript runtime's field table --------------------------------------------

#: Where :func:`canonical_fields` goes, relative to the schemas package.
CANONICAL_FILE = "src/fields.ts"

# The structs a Msg's JSON holds, by the name schemas/src/canonical.ts gives
# them (a block's or source's tag; the others by role).
CANONICAL_STRUCTS: tuple[tuple[str, type[msgspec.Struct]], ...] = (
    ("msg", Msg), ("text", TextBlock), ("thinking", ThinkingBlock), ("hint", HintBlock), ("data", DataBlock),
    ("tool_call", ToolCallBlock), ("tool_result", ToolResultBlock), ("base64", Base64Source), ("url", URLSource),
    ("usage", Usage), ("error", ErrorInfo), ("rule", PermissionRule),
)

_FIELDS_HEADER = """\
// Generated from wire's msgspec model by `python -m wire schema`; do not edit.
// `python -m wire schema --check` fails when this file differs from the model.

/** A field that is never left out: no default, or one generated on construction (ids, timestamps). */
export const ALWAYS = Symbol("always");
/** A field whose default is an empty object (`default_factory=dict` in Python). */
export const EMPTY_OBJECT = Symbol("{}");
/** A field whose default is an empty array (`default_factory=list` in Python). */
export const EMPTY_ARRAY = Symbol("[]");
export type Default = typeof ALWAYS | typeof EMPTY_OBJECT | typeof EMPTY_ARRAY | string | number | null;

/**
 * Each struct's fields in the order wire writes them (a tagged struct's tag
 * first), with the default that wire leaves out (`omit_defaults`).
 */
export const FIELDS = {
"""
_FIELDS_FOOTER = "} satisfies Record<string, [string, Default][]>;\n"


def _ts_default(info: msgspec.structs.FieldInfo) -> str:
    """A field's default as the table writes it."""
    if info.required:
        return "ALWAYS"
    if info.default_factory is not msgspec.NODEFAULT:
        return {dict: "EMPTY_OBJECT", list: "EMPTY_ARRAY"}.get(info.default_factory, "ALWAYS")
    value = info.default.value if isinstance(info.default, enum.Enum) else info.default
    if value is None or (isinstance(value, str | int | float) and not isinstance(value, bool)):
        return json.dumps(value)
    raise ValueError(f"no TypeScript form for the default {info.default!r} of {info.name}")


def canonical_fields() -> str:
    """``schemas/src/fields.ts``: every struct of a Msg's JSON with its fields
    in wire's order and the default wire leaves out, as the TypeScript runtime
    needs them to write a Msg's JSON byte for byte as wire does; then the
    role table (``ROLE_BLOCKS``)."""
    lines = [_FIELDS_HEADER]
    for name, cls in CANONICAL_STRUCTS:
        config = cls.__struct_config__
        entries = [f'["{config.tag_field}", ALWAYS]'] if isinstance(config.tag, str) else []
        entries += [f'["{f.encode_name}", {_ts_default(f)}]' for f in msgspec.structs.fields(cls)]
        line = f"  {name}: ["
        for i, entry in enumerate(entries):
            piece = entry + (", " if i < len(entries) - 1 else "],")
            if len(line) + len(piece.rstrip()) > 120:
                lines.append(line.rstrip() + "\n")
                line = "    "
            line += piece
        lines.append(line + "\n")
    lines.append(_FIELDS_FOOTER)
    lines.append(_role_blocks())
    return "".join(lines)


_ROLES_HEADER = """
/**
 * The role table (wire.blocks.ROLE_BLOCKS): which block types a Msg of each
 * role may hold (null: any), and how an error says it.
 */
export const ROLE_BLOCKS = {
"""
_ROLES_FOOTER = "} satisfies Record<string, readonly [readonly string[], string] | null>;\n"


def _tag(cls: type) -> str:
    """A block class's tag (its ``type``)."""
    config = getattr(cls, "__struct_config__", None)
    if config is None or not isinstance(config.tag, str):
        raise ValueError(f"{cls.__name__} is no tagged struct: the role table names blocks by their tag")
    return config.tag


def _role_blocks() -> str:
    """``ROLE_BLOCKS`` of ``fields.ts``: the role table, each block class by
    its tag, so that the reducer and the Msg readers of the TypeScript runtime
    keep the rule ``Msg``'s validator and wire's reducer keep."""
    lines = [_ROLES_HEADER]
    for role, rule in ROLE_BLOCKS.items():
        if rule is None:
            lines.append(f"  {role}: null,\n")
            continue
        allowed, words = rule
        tags = sorted(_tag(cls) for cls in allowed)
        lines.append(f"  {role}: [[{', '.join(json.dumps(tag) for tag in tags)}], {json.dumps(words)}],\n")
    lines.append(_ROLES_FOOTER)
    return "".join(lines)


# -- post-processing ---------------------------------------------------------------


_SCHEMA_MAPS = ("$defs", "properties", "patternProperties")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_VALUES = ("items", "additionalProperties", "not", "contains")


def _walk(defs: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every schema in ``defs``, parents before children. Only the places where
    a keyword holds a schema are visited, so a property named ``description``
    or a ``default`` value is never taken for a schema."""
    stack = list(reversed(defs.values()))
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield node
        children: list[Any] = []
        for key in _SCHEMA_MAPS:
            children.extend(node.get(key, {}).values())
        for key in _SCHEMA_LISTS:
            children.extend(node.get(key, ()))
        children.extend(node[key] for key in _SCHEMA_VALUES if key in node)
        stack.extend(reversed(children))


def _hoisted(node: Any, union: dict[str, Any], ref: str) -> Any:
    """``node`` with every inline copy of ``union`` replaced by ``{"$ref": ref}``
    (keeping siblings such as a ``default``)."""
    if isinstance(node, dict):
        if _same_union(node, union):
            return {"$ref": ref, **{k: v for k, v in node.items() if k not in ("anyOf", "discriminator")}}
        return {key: _hoisted(value, union, ref) for key, value in node.items()}
    if isinstance(node, list):
        return [_hoisted(item, union, ref) for item in node]
    return node


def _same_union(node: dict[str, Any], union: dict[str, Any]) -> bool:
    return "discriminator" in node and node.get("anyOf") == union["anyOf"]


def _tagged_union(node: dict[str, Any], *, defs: dict[str, Any]) -> None:
    discriminator = node.get("discriminator")
    if not isinstance(discriminator, dict) or "anyOf" not in node:
        return
    tag_field = discriminator["propertyName"]
    for tag, ref in discriminator.get("mapping", {}).items():
        variant = defs[ref.removeprefix(_REF_PREFIX)]
        # A variant of several unions (TextBlock) is seen more than once.
        if variant["properties"][tag_field] not in ({"enum": [tag]}, {"const": tag}):
            raise ValueError(f"unexpected tag schema in {variant['title']}")
        variant["properties"][tag_field] = {"const": tag}
    variants = node.pop("anyOf")
    del node["discriminator"]
    node["type"] = "object"
    node["oneOf"] = variants
    node["discriminator"] = {"propertyName": tag_field}


def _nullable(node: dict[str, Any]) -> None:
    """``anyOf: [{"type": T, ...}, {"type": "null"}]`` → ``"type": [T, "null"]`` (item 4)."""
    variants = node.get("anyOf")
    if not isinstance(variants, list) or len(variants) != 2 or {"type": "null"} not in variants:
        return
    (other,) = [v for v in variants if v != {"type": "null"}]
    if not isinstance(other.get("type"), str) or {"$ref", "anyOf", "oneOf"} & other.keys():
        return
    siblings = {k: v for k, v in node.items() if k != "anyOf"}
    node.clear()
    node.update(other)
    node["type"] = [other["type"], "null"]
    node.update(siblings)


def _document_bytes(node: dict[str, Any]) -> None:
    types = node.get("type")
    if node.get("contentEncoding") == "base64" and (types == "string" or "string" in (types or ())):
        node["pattern"] = BASE64_PATTERN
        node.setdefault("description", _BASE64_DESCRIPTION)


def _open_object(node: dict[str, Any]) -> None:
    if node.get("type") == "object" and not {"properties", "oneOf", "additionalProperties"} & node.keys():
        node["additionalProperties"] = True


def _clean_description(node: dict[str, Any]) -> None:
    description = node.get("description")
    if not isinstance(description, str):
        return
    text = _REST_ROLE.sub(r"`\1`", inspect.cleandoc(description).replace("``", "`"))
    # Docstring lines are wrapped for Python's line length; editors re-wrap.
    paragraphs = (" ".join(line.strip() for line in p.splitlines()) for p in text.split("\n\n"))
    node["description"] = "\n\n".join(paragraphs)


def _reachable(defs: dict[str, Any], root: str) -> list[str]:
    """Names of the $defs that ``root`` needs, in first-use order."""
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order:
            return
        order.append(name)
        for node in _walk({name: defs[name]}):
            ref = node.get("$ref")
            if isinstance(ref, str):
                visit(ref.removeprefix(_REF_PREFIX))

    visit(root)
    return order
