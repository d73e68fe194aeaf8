/**
 * wire's JSON of a Msg, kept by the object itself: every struct's fields in
 * wire's order, and a field that holds its default left out, as wire's
 * msgspec structs write them (`omit_defaults`). Keeping the objects in this
 * form is what makes `JSON.stringify(msg)` give the Msg's wire JSON at any
 * moment, with no serializer of our own. The order and the defaults
 * (`FIELDS`, in fields.ts) are generated from wire's model by
 * `python -m wire schema`, and `wire schema --check` fails when they drift.
 */
import { FIELDS } from "./fields.js";
type Obj = Record<string, unknown>;
export { FIELDS };
export type Struct = keyof typeof FIELDS;
/**
 * Set `obj[key] = value` where wire's field order puts it: in place when the
 * key is there, else the keys after it are moved behind it. A default value
 * removes the key.
 */
export declare function put(obj: Obj, struct: Struct, key: string, value: unknown): void;
/**
 * Put `obj` in wire's form in place: its fields in wire's order, defaults and
 * `undefined` left out, nested structs likewise, bytes as base64. Keys that
 * are not fields are dropped (wire does not keep them), except a thinking
 * block's provider keys, which go after its fields. Objects already in form
 * keep their layout.
 */
export declare function canonical(obj: Obj, struct: Struct): Obj;
/** A content block (any of the six) in wire's form, in place. */
export declare function block_(block: Obj): Obj;
/**
 * A deep copy of a JSON value (bytes copied as bytes). Keys are defined, not
 * assigned, so that a `__proto__` key, which JSON.parse keeps as an ordinary
 * key, stays one.
 */
export declare function copyJson(value: unknown): unknown;
