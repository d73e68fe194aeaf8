/**
 * wire's JSON of a Msg, kept by the object itself: every struct's fields in
 * wire's order, and a field that holds its default left out, as wire's
 * msgspec structs write them (`omit_defaults`). Keeping the objects in this
 * form is what makes `JSON.stringify(msg)` give the Msg's wire JSON at any
 * moment, with no serializer of our own. The order and the defaults
 * (`FIELDS`, in fields.ts) are generated from wire's model by
 * `python -m wire schema`, and `wire schema --check` fails when they drift.
 */

import { encodeBase64 } from "./base64.js";
import { ALWAYS, type Default, EMPTY_ARRAY, EMPTY_OBJECT, FIELDS } from "./fields.js";

type Obj = Record<string, unknown>;

export { FIELDS };
export type Struct = keyof typeof FIELDS;
type Fields = [string, Default][];

const ORDER = new Map<Fields, Map<string, number>>();
for (const fields of Object.values(FIELDS) as Fields[]) {
  ORDER.set(fields, new Map(fields.map(([name], i) => [name, i])));
}

function isDefault(value: unknown, fallback: Default): boolean {
  if (value === undefined) return true;
  if (fallback === ALWAYS) return false;
  if (fallback === EMPTY_OBJECT) {
    return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
  }
  if (fallback === EMPTY_ARRAY) return Array.isArray(value) && value.length === 0;
  return value === fallback;
}

/**
 * Set `obj[key] = value` where wire's field order puts it: in place when the
 * key is there, else the keys after it are moved behind it. A default value
 * removes the key.
 */
export function put(obj: Obj, struct: Struct, key: string, value: unknown): void {
  const fields = FIELDS[struct] as Fields;
  const order = ORDER.get(fields) as Map<string, number>;
  const at = order.get(key) as number;
  if (isDefault(value, (fields[at] as [string, Default])[1])) {
    if (key in obj) delete obj[key];
    return;
  }
  if (key in obj) {
    obj[key] = value;
    return;
  }
  const moved: [string, unknown][] = [];
  for (const other of Object.keys(obj)) {
    if ((order.get(other) ?? Infinity) > at) {
      moved.push([other, obj[other]]);
      delete obj[other];
    }
  }
  obj[key] = value;
  for (const [other, v] of moved) define(obj, other, v);
}

/** `obj[key] = value` that makes even `__proto__` an ordinary key. */
function define(obj: Obj, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * Put `obj` in wire's form in place: its fields in wire's order, defaults and
 * `undefined` left out, nested structs likewise, bytes as base64. Keys that
 * are not fields are dropped (wire does not keep them), except a thinking
 * block's provider keys, which go after its fields. Objects already in form
 * keep their layout.
 */
export function canonical(obj: Obj, struct: Struct): Obj {
  const fields = FIELDS[struct] as Fields;
  const entries: [string, unknown][] = [];
  for (const [name, fallback] of fields) {
    let value = obj[name];
    if (isDefault(value, fallback)) continue;
    if (value !== null) value = nested(struct, name, value);
    entries.push([name, value]);
  }
  if (struct === "thinking") {
    const order = ORDER.get(fields) as Map<string, number>;
    for (const key of Object.keys(obj)) {
      if (!order.has(key) && obj[key] !== undefined) entries.push([key, obj[key]]);
    }
  }
  const keys = Object.keys(obj);
  let same = keys.length === entries.length;
  for (let i = 0; same && i < keys.length; i++) same = keys[i] === (entries[i] as [string, unknown])[0];
  if (!same) for (const key of keys) delete obj[key];
  for (const [key, value] of entries) define(obj, key, value);
  return obj;
}

function nested(struct: Struct, name: string, value: unknown): unknown {
  switch (`${struct}.${name}`) {
    case "msg.content":
      for (const block of value as Obj[]) block_(block);
      return value;
    case "msg.usage":
      return canonical(value as Obj, "usage");
    case "msg.error":
      return canonical(value as Obj, "error");
    case "hint.hint":
    case "tool_result.output":
      if (Array.isArray(value)) for (const part of value as Obj[]) block_(part);
      return value;
    case "data.source":
      return canonical(value as Obj, (value as Obj)["type"] === "url" ? "url" : "base64");
    case "base64.data":
      return value instanceof Uint8Array ? encodeBase64(value) : value;
    case "tool_call.suggested_rules":
      for (const rule of value as Obj[]) canonical(rule, "rule");
      return value;
    default:
      return value;
  }
}

/** A content block (any of the six) in wire's form, in place. */
export function block_(block: Obj): Obj {
  const type = block["type"];
  return BLOCK_TYPES.has(type) ? canonical(block, type as Struct) : block;
}

const BLOCK_TYPES: ReadonlySet<unknown> = new Set(["text", "thinking", "hint", "data", "tool_call", "tool_result"]);

/**
 * A deep copy of a JSON value (bytes copied as bytes). Keys are defined, not
 * assigned, so that a `__proto__` key, which JSON.parse keeps as an ordinary
 * key, stays one.
 */
export function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyJson);
  if (value instanceof Uint8Array) return value.slice();
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.keys(value).map((key) => [key, copyJson((value as Obj)[key])]));
  }
  return value;
}
