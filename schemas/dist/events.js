/**
 * What the decoders hand out and the reducer takes: the 28 event types of
 * `wire.d.ts`, events of a type this runtime does not know (kept whole, as
 * wire.events.UnknownEvent does), and the check every decoded payload passes.
 */
import { isBase64 } from "./base64.js";
import { DecodeError } from "./errors.js";
import { checkEventBlocks } from "./msgcheck.js";
/** The `type` of every event this runtime knows. */
export const EVENT_TYPES = new Set([
    "REPLY_START", "REPLY_END", "MODEL_CALL_START", "MODEL_CALL_END",
    "TEXT_BLOCK_START", "TEXT_BLOCK_DELTA", "TEXT_BLOCK_END",
    "DATA_BLOCK_START", "DATA_BLOCK_DELTA", "DATA_BLOCK_END",
    "THINKING_BLOCK_START", "THINKING_BLOCK_DELTA", "THINKING_BLOCK_END", "HINT_BLOCK",
    "TOOL_CALL_START", "TOOL_CALL_DELTA", "TOOL_CALL_END",
    "TOOL_RESULT_START", "TOOL_RESULT_TEXT_DELTA", "TOOL_RESULT_DATA_DELTA", "TOOL_RESULT_END",
    "EXCEED_MAX_ITERS", "REQUIRE_USER_CONFIRM", "REQUIRE_EXTERNAL_EXECUTION",
    "USER_CONFIRM_RESULT", "USER_INTERRUPT", "EXTERNAL_EXECUTION_RESULT", "CUSTOM",
]);
/**
 * An event whose `type` this runtime does not know (a newer server), kept by
 * a decoder made with `unknown: "keep"`. `raw` is the payload's exact bytes,
 * `format` the codec that wrote them. The reducer records it as an
 * `unknown_event` anomaly and changes nothing.
 */
export class UnknownEvent {
    type;
    raw;
    format;
    constructor(type, raw, format) {
        this.type = type;
        this.raw = raw;
        this.format = format;
    }
}
const REPLY = { reply_id: "s" };
const BLOCK = { reply_id: "s", block_id: "s" };
const CALL = { reply_id: "s", tool_call_id: "s" };
const REQUIRED = {
    REPLY_START: { session_id: "s", reply_id: "s", name: "s", role: "s?" },
    REPLY_END: { session_id: "s", reply_id: "s", finished_reason: "s?", error: "n?" },
    MODEL_CALL_START: { reply_id: "s", model_name: "s" },
    MODEL_CALL_END: {
        reply_id: "s", input_tokens: "i", output_tokens: "i",
        cache_input_tokens: "i?", cache_creation_input_tokens: "i?", finished_reason: "s?",
    },
    TEXT_BLOCK_START: BLOCK,
    TEXT_BLOCK_DELTA: { ...BLOCK, delta: "s" },
    TEXT_BLOCK_END: BLOCK,
    DATA_BLOCK_START: { ...BLOCK, media_type: "s" },
    DATA_BLOCK_DELTA: { ...BLOCK, media_type: "s", data: "b" },
    DATA_BLOCK_END: BLOCK,
    THINKING_BLOCK_START: BLOCK,
    THINKING_BLOCK_DELTA: { ...BLOCK, delta: "s" },
    THINKING_BLOCK_END: BLOCK,
    HINT_BLOCK: { ...BLOCK, hint: "h" },
    TOOL_CALL_START: { ...CALL, tool_call_name: "s" },
    TOOL_CALL_DELTA: { ...CALL, delta: "s" },
    TOOL_CALL_END: CALL,
    TOOL_RESULT_START: { ...CALL, tool_call_name: "s" },
    TOOL_RESULT_TEXT_DELTA: { ...CALL, delta: "s" },
    TOOL_RESULT_DATA_DELTA: { ...CALL, block_id: "s?", media_type: "s", data: "b" },
    TOOL_RESULT_END: { ...CALL, state: "s" },
    EXCEED_MAX_ITERS: { ...REPLY, name: "s" },
    REQUIRE_USER_CONFIRM: { ...REPLY, tool_calls: "a" },
    REQUIRE_EXTERNAL_EXECUTION: { ...REPLY, tool_calls: "a" },
    USER_CONFIRM_RESULT: { ...REPLY, confirm_results: "a" },
    USER_INTERRUPT: REPLY,
    EXTERNAL_EXECUTION_RESULT: { ...REPLY, execution_results: "a" },
    CUSTOM: { name: "s", value: "o?" },
};
const ENVELOPE = { id: "s?", created_at: "s?", metadata: "o?" };
function isObject(value) {
    return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
const WHAT = {
    s: "a string", i: "an integer", a: "an array", h: "a string or an array", o: "an object", n: "an object or null",
};
// The values of the enum fields an event carries at its top level.
const ENUMS = {
    role: new Set(["user", "assistant", "system"]),
    finished_reason: new Set(["completed", "interrupted", "exceed_max_iters", "error"]),
    state: new Set(["success", "error", "interrupted", "denied", "running"]),
};
const MODEL_CALL_REASONS = new Set(["completed", "interrupted"]);
function fieldError(type, field, kind, value) {
    // "x?": may be left out (it has a default), but not null; "n?": may also be null.
    const optional = kind.endsWith("?");
    if (value === undefined || (value === null && kind === "n?")) {
        return optional ? undefined : `Object missing required field \`${field}\``;
    }
    const values = type === "MODEL_CALL_END" && field === "finished_reason" ? MODEL_CALL_REASONS : ENUMS[field];
    if (values !== undefined && !values.has(value))
        return `Invalid enum value ${JSON.stringify(value)}`;
    const base = optional ? kind.slice(0, -1) : kind;
    const ok = base === "s" ? typeof value === "string"
        : base === "i" ? Number.isInteger(value)
            : base === "a" ? Array.isArray(value)
                : base === "h" ? typeof value === "string" || Array.isArray(value)
                    : isObject(value);
    return ok ? undefined : `Expected \`${WHAT[base] ?? base}\`, got \`${describe(value)}\` in a ${type} event`;
}
function describe(value) {
    if (value === null)
        return "null";
    if (Array.isArray(value))
        return "array";
    if (value instanceof Uint8Array)
        return "bytes";
    return typeof value === "number" && Number.isInteger(value) ? "int" : typeof value;
}
/**
 * The event `value` holds, or the reason it is none: an object whose `type`
 * is a string, and for a known type its required fields, each of the kind the
 * types give, and the blocks and structs it holds field by field as Python
 * decodes them (msgcheck.ts, which normalizes their URLs in place). `data` must be
 * padded base64 in JSON; in MessagePack it may also be bytes.
 * Returns `undefined` for a known event, the `type` of an event of a type
 * this runtime does not know; throws DecodeError for anything else.
 */
export function checkEvent(value) {
    if (!isObject(value))
        throw new DecodeError(`Expected \`object\`, got \`${describe(value)}\``, { path: "$" });
    const type = value["type"];
    if (typeof type !== "string") {
        throw new DecodeError(type === undefined ? "Object missing required field `type`" : "Expected `str`", {
            path: "$.type",
        });
    }
    const fields = Object.hasOwn(SPECS, type) ? SPECS[type] : undefined;
    if (fields === undefined)
        return type;
    // The envelope as nearly every event has it (id and created_at strings or left out, no
    // metadata) is accepted at once; anything else goes through fieldError.
    const id = value["id"];
    const at = value["created_at"];
    if (!((id === undefined || typeof id === "string") && (at === undefined || typeof at === "string")
        && value["metadata"] === undefined)) {
        for (const field in ENVELOPE) {
            const problem = fieldError(type, field, ENVELOPE[field], value[field]);
            if (problem !== undefined)
                throw new DecodeError(problem, { path: `$.${field}` });
        }
    }
    for (let i = 0; i < fields.length; i++) {
        const [field, kind, plain] = fields[i];
        const got = value[field];
        if (plain && typeof got === "string")
            continue; // a string field that is no enum: the common case
        if (kind === "b") {
            checkDataOrUrl(value);
            continue;
        }
        const problem = fieldError(type, field, kind, got);
        if (problem !== undefined)
            throw new DecodeError(problem, { path: `$.${field}` });
    }
    if (NESTED.has(type))
        checkEventBlocks(type, value); // blocks and structs, field by field, as Python
    return undefined;
}
const NESTED = new Set([
    "REPLY_END", "HINT_BLOCK", "REQUIRE_USER_CONFIRM", "REQUIRE_EXTERNAL_EXECUTION", "USER_CONFIRM_RESULT",
    "EXTERNAL_EXECUTION_RESULT",
]);
// REQUIRED as arrays, built once: [field, kind, whether any string is valid (kind "s", no enum)].
const SPECS = Object.fromEntries(Object.entries(REQUIRED).map(([type, fields]) => [type, Object.entries(fields).map(([field, kind]) => [field, kind, kind === "s" && !Object.hasOwn(ENUMS, field)])]));
function checkDataOrUrl(value) {
    const data = value["data"] ?? null;
    const url = value["url"] ?? null;
    if ((data === null) === (url === null)) {
        throw new DecodeError("Exactly one of `data` or `url` must be provided.", { path: "$" });
    }
    if (url !== null && typeof url !== "string") {
        throw new DecodeError(`Expected \`str | null\`, got \`${describe(url)}\``, { path: "$.url" });
    }
    if (data !== null && !(data instanceof Uint8Array) && !(typeof data === "string" && isBase64(data))) {
        throw new DecodeError(typeof data === "string" ? "Invalid base64 encoded string" : "Expected `bytes | null`", {
            path: "$.data",
        });
    }
}
