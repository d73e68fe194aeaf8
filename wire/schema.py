"""JSON Schema (draft 2020-12) of the wire model, shaped for ajv and json2ts.

The msgspec model is the source of truth; ``msgspec.json.schema_components``
describes it exactly, but in the dialect of OpenAPI tools. A browser toolchain
(strict ``Ajv2020`` to validate, json-schema-to-typescript for the types) needs
a few changes, made here on the generated data (msgspec-findings §4, §7.11):

1. **Tagged unions.** msgspec writes ``anyOf`` plus an OpenAPI
   ``discriminator`` with a ``mapping``. ajv's ``discriminator`` keyword rejects
   ``mapping`` and needs ``oneOf``; with it ajv picks the variant by its tag, so
   a bad event gets one error that names the bad field instead of ~30 errors
   from trying every variant, and validates 5-30x faster. The union therefore
   becomes ``oneOf`` + ``discriminator: {propertyName}`` + ``"type": "object"``
   (without the type, strict ajv warns under ``strictTypes``).
2. **Tags are ``const``**: each variant's one-value ``enum`` tag becomes a
   ``const``, the form ajv's discriminator and readers expect.
3. **Named unions are defined once.** msgspec inlines a union wherever it is
   used, and a title cannot be given to it without being copied to every use,
   which json2ts turns into ``ContentBlock``, ``ContentBlock1``... The unions
   the model names (``AgentEvent``, ``ContentBlock``, ``DataSource``) are put in
   ``$defs`` under their names and every use becomes a ``$ref``.
4. **bytes are documented**: JSON carries them as standard padded base64
   (RFC 4648 §4), the only form agentscope writes and msgspec reads. A pattern
   over the alphabet makes validators reject URL-safe base64 or stray text, as
   wire's decoder does. It is deliberately a single character class: a pattern
   that also checks the length (groups of four) overflows V8's regexp stack on
   data of a few MiB.
5. **Free-form objects** (``metadata``, ``value``, ``structured_output``) say
   ``additionalProperties: true`` explicitly, so json2ts types them as
   ``{[k: string]: unknown}``; it would otherwise write ``{}``, on which a
   frontend can read no key.
6. **Descriptions** come from docstrings, dedented, with reST ````code````
   turned into Markdown `code` for the editors that show them.

The schemas stay open: no struct gets ``additionalProperties: false``, so a
frontend built against these schemas accepts events from a newer agentscope
that adds fields, as wire's decoder does. The TypeScript generator closes the
types instead (``additionalProperties: false`` is a json2ts option), so typos
fail to compile.

Nothing here reads or writes files: ``wire.cli`` does.
"""

from __future__ import annotations

import copy
import inspect
import json
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from wire.blocks import ContentBlock, DataSource
from wire.events import AgentEvent
from wire.messages import Msg

__all__ = ("DIALECT", "EXPORTS", "SchemaExport", "render", "rendered", "schemas")

DIALECT = "https://json-schema.org/draft/2020-12/schema"

_REF = "#/$defs/{name}"
_REF_PREFIX = "#/$defs/"

# Standard base64 alphabet, then at most two pad characters (see item 4 above).
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

_COMMENT = "Generated from wire's msgspec model by `python -m wire schema`; do not edit."


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def schemas(exports: tuple[SchemaExport, ...] = EXPORTS) -> dict[str, dict[str, Any]]:
    """The schema documents, by file name; each is self-contained."""
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

    # list(): the steps edit the nodes that the walk would still visit.
    for node in list(_walk(defs)):
        _tagged_union(node, defs)
        _document_bytes(node)
        _open_object(node)
        _clean_description(node)

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


def rendered(exports: tuple[SchemaExport, ...] = EXPORTS) -> dict[str, str]:
    """File name → text, for the CLI to write or compare."""
    return {name: render(doc) for name, doc in schemas(exports).items()}


# -- post-processing ---------------------------------------------------------------


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    """Every schema object below ``node``, parents before children."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item)


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


def _tagged_union(node: dict[str, Any], defs: dict[str, Any]) -> None:
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


def _document_bytes(node: dict[str, Any]) -> None:
    if node.get("contentEncoding") == "base64" and node.get("type") == "string":
        node.setdefault("description", _BASE64_DESCRIPTION)
        node["pattern"] = BASE64_PATTERN


def _open_object(node: dict[str, Any]) -> None:
    if node.get("type") == "object" and not {"properties", "oneOf", "additionalProperties"} & node.keys():
        node["additionalProperties"] = True


def _clean_description(node: dict[str, Any]) -> None:
    description = node.get("description")
    if isinstance(description, str):
        node["description"] = inspect.cleandoc(description).replace("``", "`")


def _reachable(defs: dict[str, Any], root: str) -> list[str]:
    """Names of the $defs that ``root`` needs, in first-use order."""
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order:
            return
        order.append(name)
        for node in _walk(defs[name]):
            ref = node.get("$ref")
            if isinstance(ref, str):
                visit(ref.removeprefix(_REF_PREFIX))

    visit(root)
    return order
