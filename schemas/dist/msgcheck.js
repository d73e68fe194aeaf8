/**
 * The check a Msg read from the wire passes (a checkpoint's), as wire's
 * Python decoder makes it: `wire.json.decode_msg`, msgspec's typed decoding
 * of `wire.messages.Msg` and its blocks, then their `__post_init__` rules
 * (the role table, URLs normalized). Whatever Python refuses throws
 * DecodeError here, with the path Python's error names (relative to the Msg:
 * `$.content[1].output[0].id`); whatever it accepts passes, so the reducer
 * never meets a value of the wrong type. tests/vectors/checkpoints holds
 * both languages to the same cases.
 *
 * Like msgspec, it reads an object's keys in the order they come (the first
 * bad field found is the one named), takes a tagged block's `type` first,
 * reports a missing required field after the fields present, and ignores
 * keys that are no field. The value rule on numbers (wire/_portable.py) is
 * the stream decoders' (streaming.ts, msgpack.ts): a JavaScript number cannot
 * tell `1` from `1.0`, so a decoded value is taken as JSON gave it.
 */
import { ROLE_BLOCKS } from "./fields.js";
import { isBase64 } from "./base64.js";
import { DecodeError } from "./errors.js";
function fail(message, path) {
    throw new DecodeError(message, { path });
}
/** msgspec's name for the type of a value it did not expect. */
function got(value) {
    if (value === null)
        return "null";
    if (Array.isArray(value))
        return "array";
    if (value instanceof Uint8Array)
        return "bytes";
    switch (typeof value) {
        case "string": return "str";
        case "boolean": return "bool";
        case "number": return Number.isInteger(value) ? "int" : "float";
        case "object": return "object";
        default: return typeof value;
    }
}
function expected(what, value, path) {
    return fail(`Expected \`${what}\`, got \`${got(value)}\``, path);
}
function isObject(value) {
    return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
function repr(value) {
    return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}
// -- the field kinds ----------------------------------------------------------------------
const str = (v, path) => (typeof v === "string" ? v : expected("str", v, path));
const strOrNull = (v, path) => (v === null || typeof v === "string" ? v : expected("str | null", v, path));
const object = (v, path) => (isObject(v) ? v : expected("object", v, path));
const objectOrNull = (v, path) => (v === null || isObject(v) ? v : expected("object | null", v, path));
const INT_MIN = -(2 ** 63);
const INT_MAX = 2 ** 64 - 1;
const int = (v, path) => {
    if (typeof v !== "number" || !Number.isInteger(v))
        return expected("int", v, path);
    return v;
};
function oneOf(values, nullable = false) {
    const set = new Set(values);
    return (v, path) => {
        if (v === null && nullable)
            return v;
        if (typeof v !== "string")
            return expected(nullable ? "str | null" : "str", v, path);
        if (!set.has(v))
            fail(`Invalid enum value ${repr(v)}`, path);
        return v;
    };
}
function list(item) {
    return (v, path) => {
        if (!Array.isArray(v))
            return expected("array", v, path);
        for (let i = 0; i < v.length; i++)
            v[i] = item(v[i], `${path}[${i}]`);
        return v;
    };
}
/** `str | list[item]`: a hint, a tool result's output. */
function strOrList(item) {
    const items = list(item);
    return (v, path) => (typeof v === "string" ? v : Array.isArray(v) ? items(v, path) : expected("str | array", v, path));
}
const bytes = (v, path) => {
    if (v instanceof Uint8Array)
        return v; // MessagePack's bin
    if (typeof v !== "string")
        return expected("bytes", v, path);
    if (!isBase64(v))
        fail("Invalid base64 encoded string", path);
    return v;
};
function struct(spec, tagged = false) {
    return (v, path) => {
        if (!isObject(v))
            return expected("object", v, path);
        for (const key of Object.keys(v)) {
            if (tagged && key === "type")
                continue;
            const check = Object.hasOwn(spec.fields, key) ? spec.fields[key] : undefined;
            if (check !== undefined)
                v[key] = check(v[key], `${path}.${key}`);
        }
        for (const field of spec.required) {
            if (!Object.hasOwn(v, field))
                fail(`Object missing required field \`${field}\``, path);
        }
        spec.after?.(v, path);
        return v;
    };
}
function orNull(check) {
    return (v, path) => {
        if (v === null)
            return v;
        if (!isObject(v))
            return expected("object | null", v, path);
        return check(v, path);
    };
}
/** A union of structs tagged by `type` (msgspec reads the tag first). */
function tagged(members) {
    return (v, path) => {
        if (!isObject(v))
            return expected("object", v, path);
        if (!Object.hasOwn(v, "type"))
            fail("Object missing required field `type`", path);
        const tag = v["type"];
        if (typeof tag !== "string")
            return expected("str", tag, `${path}.type`);
        const check = Object.hasOwn(members, tag) ? members[tag] : undefined;
        if (check === undefined)
            fail(`Invalid value ${repr(tag)}`, `${path}.type`);
        return check(v, path);
    };
}
/** One tagged struct where no union is (an event's `tool_calls`): the tag may be left out, but not be another. */
function only(tag, check) {
    return (v, path) => {
        if (isObject(v) && Object.hasOwn(v, "type")) {
            const got_ = v["type"];
            if (typeof got_ !== "string")
                return expected("str", got_, `${path}.type`);
            if (got_ !== tag)
                fail(`Invalid value ${repr(got_)}`, `${path}.type`);
        }
        return check(v, path);
    };
}
/**
 * A URL as agentscope stores it (WHATWG URL serialization, which pydantic's
 * AnyUrl follows too, as wire._url does), or undefined when it is not an
 * absolute URL.
 */
export function normalizeUrl(url) {
    try {
        return new URL(url).href;
    }
    catch {
        return undefined;
    }
}
// -- wire's model (wire/blocks.py, wire/messages.py, wire/events.py) ---------------------------
const stamps = { id: str, created_at: str, finished_at: strOrNull };
const base64 = struct({ fields: { data: bytes, media_type: str }, required: ["data", "media_type"] }, true);
const url = struct({
    fields: { url: str, media_type: str },
    required: ["url", "media_type"],
    after: (source, path) => {
        const normalized = normalizeUrl(source["url"]);
        if (normalized === undefined)
            fail(`not an absolute URL: ${repr(source["url"])}`, path);
        source["url"] = normalized;
    },
}, true);
const text = struct({ fields: { text: str, ...stamps }, required: ["text"] }, true);
const thinking = struct({ fields: { thinking: str, ...stamps }, required: ["thinking"] }, true);
const data = struct({
    fields: { ...stamps, source: tagged({ base64, url }), name: strOrNull },
    required: ["source"],
}, true);
const textOrData = tagged({ text, data });
const hint = struct({
    fields: { hint: strOrList(textOrData), ...stamps, source: strOrNull },
    required: ["hint"],
}, true);
const rule = struct({
    fields: {
        tool_name: str, rule_content: strOrNull, behavior: oneOf(["allow", "deny", "ask", "passthrough"]), source: str,
    },
    required: ["tool_name", "rule_content", "behavior", "source"],
});
const toolCall = struct({
    fields: {
        id: str, name: str, input: str, state: oneOf(["pending", "asking", "allowed", "submitted", "finished"]),
        suggested_rules: list(rule), created_at: str, finished_at: strOrNull,
    },
    required: ["id", "name", "input"],
}, true);
const toolResult = struct({
    fields: {
        id: str, name: str, output: strOrList(textOrData),
        state: oneOf(["success", "error", "interrupted", "denied", "running"]), metadata: object,
        created_at: str, finished_at: strOrNull,
    },
    required: ["id", "name", "output"],
}, true);
/** Any content block, as `wire.blocks.ContentBlock` decodes. */
export const checkBlock = tagged({
    text, thinking, hint, data, tool_call: toolCall, tool_result: toolResult,
});
const TOKENS = ["input_tokens", "output_tokens", "cache_input_tokens", "cache_creation_input_tokens"];
const usage = orNull(struct({
    fields: Object.fromEntries(TOKENS.map((name) => [name, int])),
    required: ["input_tokens", "output_tokens"],
    after: (counts, path) => {
        for (const name of TOKENS) {
            const n = counts[name];
            if (typeof n === "number" && (n < INT_MIN || n > INT_MAX)) {
                fail(`an integer outside -2**63 .. 2**64-1, which MessagePack cannot carry - in \`${name}\``, path);
            }
        }
    },
}));
const error = orNull(struct({
    fields: {
        type: oneOf(["authentication", "permission", "rate_limit", "invalid_request", "upstream", "connection",
            "internal", "setup", "unknown"]),
        message: str,
    },
    required: ["message"],
}));
// Which block types each role's Msg may hold (null: any): wire.blocks.ROLE_BLOCKS, generated into fields.ts.
const ROLE_RULES = Object.fromEntries(Object.entries(ROLE_BLOCKS).map(([role, rule]) => [role, rule === null ? null : [new Set(rule[0]), rule[1]]]));
const msg = struct({
    fields: {
        name: str, content: list(checkBlock), role: oneOf(["user", "assistant", "system"]), id: str, metadata: object,
        created_at: str, usage, finished_at: strOrNull,
        finished_reason: oneOf(["completed", "interrupted", "exceed_max_iters", "error"], true),
        structured_output: objectOrNull, error,
    },
    required: ["name", "content", "role"],
    after: (m, path) => {
        const rule = ROLE_RULES[m["role"]];
        if (!rule)
            return;
        m["content"].forEach((block, i) => {
            if (!rule[0].has(block["type"])) {
                fail(`content[${i}] is a ${repr(block["type"])} block, but a ${m["role"]} message can `
                    + `only contain ${rule[1]}`, `${path}.content[${i}]`);
            }
        });
    },
});
const confirmResult = struct({
    fields: { confirmed: (v, path) => (typeof v === "boolean" ? v : expected("bool", v, path)),
        tool_call: only("tool_call", toolCall), rules: (v, path) => (v === null ? v : list(rule)(v, path)) },
    required: ["confirmed", "tool_call"],
});
// The fields of events that hold blocks or structs, which events.ts's checkEvent leaves to this module.
const EVENT_FIELDS = {
    REPLY_END: ["error", error],
    HINT_BLOCK: ["hint", strOrList(textOrData)],
    REQUIRE_USER_CONFIRM: ["tool_calls", list(only("tool_call", toolCall))],
    REQUIRE_EXTERNAL_EXECUTION: ["tool_calls", list(only("tool_call", toolCall))],
    USER_CONFIRM_RESULT: ["confirm_results", list(confirmResult)],
    EXTERNAL_EXECUTION_RESULT: ["execution_results", list(only("tool_result", toolResult))],
};
/**
 * Check the blocks and structs an event of `type` holds (a hint's blocks, the
 * tool calls of REQUIRE_*, ...) as Python decodes them, in place (URLs
 * normalized); throws DecodeError at Python's path (`$.tool_calls[0].id`).
 */
export function checkEventBlocks(type, event) {
    const spec = Object.hasOwn(EVENT_FIELDS, type) ? EVENT_FIELDS[type] : undefined;
    if (spec === undefined || event[spec[0]] === undefined)
        return;
    event[spec[0]] = spec[1](event[spec[0]], `$.${spec[0]}`);
}
/**
 * Check `value` as wire's Python decodes a Msg, in place (URLs are
 * normalized as Python's decoder writes them); throws DecodeError with the
 * path Python names, relative to the Msg (`$`, `$.content[0].id`).
 */
export function checkMsg(value) {
    return msg(value, "$");
}
