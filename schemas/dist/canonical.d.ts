/**
 * wire's JSON of a Msg, kept by the object itself: every struct's fields in
 * wire's order, and a field that holds its default left out, as wire's
 * msgspec structs write them (`omit_defaults`). Keeping the objects in this
 * form is what makes `JSON.stringify(msg)` give the Msg's wire JSON at any
 * moment, with no serializer of our own.
 */
type Obj = Record<string, unknown>;
/** A field that is never left out (no default, or one generated on construction). */
declare const ALWAYS: unique symbol;
declare const EMPTY_OBJECT: unique symbol;
declare const EMPTY_ARRAY: unique symbol;
/** Each struct's fields in wire's order, with the default that is left out. */
export declare const FIELDS: {
    msg: ([string, null] | [string, typeof ALWAYS] | [string, typeof EMPTY_OBJECT])[];
    text: ([string, null] | [string, typeof ALWAYS])[];
    thinking: ([string, null] | [string, typeof ALWAYS])[];
    hint: ([string, null] | [string, typeof ALWAYS])[];
    data: ([string, null] | [string, typeof ALWAYS])[];
    tool_call: ([string, null] | [string, string] | [string, typeof ALWAYS] | [string, typeof EMPTY_ARRAY])[];
    tool_result: ([string, null] | [string, string] | [string, typeof ALWAYS] | [string, typeof EMPTY_OBJECT])[];
    base64: [string, typeof ALWAYS][];
    url: [string, typeof ALWAYS][];
    usage: ([string, number] | [string, typeof ALWAYS])[];
    error: ([string, string] | [string, typeof ALWAYS])[];
    rule: [string, typeof ALWAYS][];
};
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
export {};
