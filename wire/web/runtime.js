// wire's TypeScript runtime (schemas/src), bundled by tests/browser/bundle-runtime.mjs. Do not edit.
var __defProp = Object.defineProperty;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __esm = (fn, res, err) => function __init() {
  if (err) throw err[0];
  try {
    return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
  } catch (e) {
    throw err = [e], e;
  }
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// schemas/dist/base64.js
function isBase64(text2) {
  if (text2.length % 4 !== 0 || OUTSIDE.test(text2))
    return false;
  const pad = text2.indexOf("=");
  const last = text2.length - 1;
  return pad < 0 || pad === last || pad === last - 1 && text2.charCodeAt(last) === 61;
}
function encodeBase64(bytes2) {
  const carry = { bytes: 0, value: 0 };
  return appendBase64("", carry, bytes2) + tailBase64(carry);
}
function tailBase64(carry) {
  const v = carry.value;
  if (carry.bytes === 1)
    return ALPHABET[v >>> 2] + ALPHABET[(v & 3) << 4] + "==";
  if (carry.bytes === 2)
    return ALPHABET[v >>> 10] + ALPHABET[v >>> 4 & 63] + ALPHABET[(v & 15) << 2] + "=";
  return "";
}
function appendBase64(text2, carry, chunk) {
  if (typeof chunk === "string") {
    if (chunk.length === 0)
      return text2;
    const pad = chunk.charCodeAt(chunk.length - 1) !== 61 ? 0 : chunk.charCodeAt(chunk.length - 2) === 61 ? 2 : 1;
    const whole = pad ? chunk.length - 4 : chunk.length;
    if (carry.bytes === 0)
      text2 += pad ? chunk.slice(0, whole) : chunk;
    else
      text2 += shifted(chunk, whole, carry);
    if (pad) {
      const a = CODES[chunk.charCodeAt(whole)], b = CODES[chunk.charCodeAt(whole + 1)];
      if (pad === 2)
        text2 = push(text2, carry, a << 2 | b >>> 4, 1);
      else
        text2 = push(text2, carry, a << 10 | b << 4 | CODES[chunk.charCodeAt(whole + 2)] >>> 2, 2);
    }
    return text2;
  }
  let at = 0;
  while (carry.bytes !== 0 && at < chunk.length)
    text2 = push(text2, carry, chunk[at++], 1);
  const end = chunk.length - (chunk.length - at) % 3;
  const out = buffer((end - at) / 3 * 4);
  let o = 0;
  for (let i = at; i < end; i += 3) {
    o = group(out, o, chunk[i] << 16 | chunk[i + 1] << 8 | chunk[i + 2]);
  }
  text2 += ascii(out, o);
  for (let i = end; i < chunk.length; i++)
    text2 = push(text2, carry, chunk[i], 1);
  return text2;
}
function shifted(chunk, whole, carry) {
  const out = buffer(whole / 4 * 4);
  let o = 0;
  let p = carry.value;
  const keep = carry.bytes * 8;
  const mask = (1 << keep) - 1;
  for (let i = 0; i < whole; i += 4) {
    const n = CODES[chunk.charCodeAt(i)] << 18 | CODES[chunk.charCodeAt(i + 1)] << 12 | CODES[chunk.charCodeAt(i + 2)] << 6 | CODES[chunk.charCodeAt(i + 3)];
    o = group(out, o, p << 24 - keep | n >>> keep);
    p = n & mask;
  }
  carry.value = p;
  return ascii(out, o);
}
function push(text2, carry, value, count) {
  let bytes2 = carry.bytes + count;
  let v = carry.value * (1 << 8 * count) + value;
  if (bytes2 >= 3) {
    const rest = 2 ** (8 * (bytes2 - 3));
    const n = Math.floor(v / rest);
    text2 += ALPHABET[n >>> 18] + ALPHABET[n >>> 12 & 63] + ALPHABET[n >>> 6 & 63] + ALPHABET[n & 63];
    v %= rest;
    bytes2 -= 3;
  }
  carry.bytes = bytes2;
  carry.value = v;
  return text2;
}
function group(out, o, n) {
  out[o] = CHARS[n >>> 18];
  out[o + 1] = CHARS[n >>> 12 & 63];
  out[o + 2] = CHARS[n >>> 6 & 63];
  out[o + 3] = CHARS[n & 63];
  return o + 4;
}
function buffer(size) {
  if (scratch.length < size)
    scratch = new Uint8Array(Math.max(size, scratch.length * 2));
  return scratch;
}
function ascii(out, length) {
  return length === 0 ? "" : LATIN1.decode(out.subarray(0, length));
}
function decodeBase64(text2) {
  const padding = text2.endsWith("==") ? 2 : text2.endsWith("=") ? 1 : 0;
  const out = new Uint8Array(text2.length / 4 * 3 - padding);
  let o = 0;
  for (let i = 0; i < text2.length; i += 4) {
    const n = CODES[text2.charCodeAt(i)] << 18 | CODES[text2.charCodeAt(i + 1)] << 12 | (CODES[text2.charCodeAt(i + 2)] & 63) << 6 | CODES[text2.charCodeAt(i + 3)] & 63;
    out[o++] = n >>> 16;
    if (o < out.length)
      out[o++] = n >>> 8 & 255;
    if (o < out.length)
      out[o++] = n & 255;
  }
  return out;
}
var ALPHABET, CODES, OUTSIDE, CHARS, scratch, LATIN1;
var init_base64 = __esm({
  "schemas/dist/base64.js"() {
    "use strict";
    ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    CODES = new Uint8Array(128).fill(255);
    for (let i = 0; i < ALPHABET.length; i++)
      CODES[ALPHABET.charCodeAt(i)] = i;
    OUTSIDE = /[^A-Za-z0-9+/=]/;
    CHARS = new Uint8Array(64);
    for (let i = 0; i < 64; i++)
      CHARS[i] = ALPHABET.charCodeAt(i);
    scratch = new Uint8Array(8192);
    LATIN1 = new TextDecoder("latin1");
  }
});

// schemas/dist/fields.js
var ALWAYS, EMPTY_OBJECT, EMPTY_ARRAY, FIELDS, ROLE_BLOCKS;
var init_fields = __esm({
  "schemas/dist/fields.js"() {
    "use strict";
    ALWAYS = /* @__PURE__ */ Symbol("always");
    EMPTY_OBJECT = /* @__PURE__ */ Symbol("{}");
    EMPTY_ARRAY = /* @__PURE__ */ Symbol("[]");
    FIELDS = {
      msg: [
        ["name", ALWAYS],
        ["content", ALWAYS],
        ["role", ALWAYS],
        ["id", ALWAYS],
        ["metadata", EMPTY_OBJECT],
        ["created_at", ALWAYS],
        ["usage", null],
        ["finished_at", null],
        ["finished_reason", null],
        ["structured_output", null],
        ["error", null]
      ],
      text: [["type", ALWAYS], ["text", ALWAYS], ["id", ALWAYS], ["created_at", ALWAYS], ["finished_at", null]],
      thinking: [["type", ALWAYS], ["thinking", ALWAYS], ["id", ALWAYS], ["created_at", ALWAYS], ["finished_at", null]],
      hint: [
        ["type", ALWAYS],
        ["hint", ALWAYS],
        ["id", ALWAYS],
        ["source", null],
        ["created_at", ALWAYS],
        ["finished_at", ALWAYS]
      ],
      data: [
        ["type", ALWAYS],
        ["id", ALWAYS],
        ["source", ALWAYS],
        ["name", null],
        ["created_at", ALWAYS],
        ["finished_at", null]
      ],
      tool_call: [
        ["type", ALWAYS],
        ["id", ALWAYS],
        ["name", ALWAYS],
        ["input", ALWAYS],
        ["state", "pending"],
        ["suggested_rules", EMPTY_ARRAY],
        ["created_at", ALWAYS],
        ["finished_at", null]
      ],
      tool_result: [
        ["type", ALWAYS],
        ["id", ALWAYS],
        ["name", ALWAYS],
        ["output", ALWAYS],
        ["state", "running"],
        ["metadata", EMPTY_OBJECT],
        ["created_at", ALWAYS],
        ["finished_at", null]
      ],
      base64: [["type", ALWAYS], ["data", ALWAYS], ["media_type", ALWAYS]],
      url: [["type", ALWAYS], ["url", ALWAYS], ["media_type", ALWAYS]],
      usage: [
        ["input_tokens", ALWAYS],
        ["output_tokens", ALWAYS],
        ["cache_input_tokens", 0],
        ["cache_creation_input_tokens", 0]
      ],
      error: [["type", "unknown"], ["message", ALWAYS]],
      rule: [["tool_name", ALWAYS], ["rule_content", ALWAYS], ["behavior", ALWAYS], ["source", ALWAYS]]
    };
    ROLE_BLOCKS = {
      user: [["data", "text"], "text and data blocks"],
      system: [["text"], "text blocks"],
      assistant: null
    };
  }
});

// schemas/dist/errors.js
var WireError, RemoteProtocolError, DecodeError, FrameError, StreamOrderError, LocalProtocolError;
var init_errors = __esm({
  "schemas/dist/errors.js"() {
    "use strict";
    WireError = class extends Error {
      name = "WireError";
    };
    RemoteProtocolError = class extends WireError {
      name = "RemoteProtocolError";
      reason;
      path;
      offset;
      index;
      events = [];
      constructor(reason, place = {}) {
        super(reason);
        this.reason = reason;
        this.path = place.path;
        this.offset = place.offset;
        this.index = place.index;
        this.message = this.render();
      }
      /** The message with its place: `reason (event 3, byte 120, at $.delta)`. */
      render() {
        const where = [];
        if (this.index !== void 0)
          where.push(`event ${this.index}`);
        if (this.offset !== void 0)
          where.push(`byte ${this.offset}`);
        if (this.path !== void 0)
          where.push(`at ${this.path}`);
        return where.length ? `${this.reason} (${where.join(", ")})` : this.reason;
      }
    };
    DecodeError = class extends RemoteProtocolError {
      name = "DecodeError";
    };
    FrameError = class extends RemoteProtocolError {
      name = "FrameError";
    };
    StreamOrderError = class extends RemoteProtocolError {
      name = "StreamOrderError";
      kind;
      constructor(reason, kind, index2) {
        super(reason, { index: index2 });
        this.kind = kind;
      }
    };
    LocalProtocolError = class extends WireError {
      name = "LocalProtocolError";
    };
  }
});

// schemas/dist/msgcheck.js
function fail(message, path) {
  throw new DecodeError(message, { path });
}
function got(value) {
  if (value === null)
    return "null";
  if (Array.isArray(value))
    return "array";
  if (value instanceof Uint8Array)
    return "bytes";
  switch (typeof value) {
    case "string":
      return "str";
    case "boolean":
      return "bool";
    case "number":
      return Number.isInteger(value) ? "int" : "float";
    case "object":
      return "object";
    default:
      return typeof value;
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
function strOrList(item) {
  const items = list(item);
  return (v, path) => typeof v === "string" ? v : Array.isArray(v) ? items(v, path) : expected("str | array", v, path);
}
function struct(spec, tagged2 = false) {
  return (v, path) => {
    if (!isObject(v))
      return expected("object", v, path);
    for (const key of Object.keys(v)) {
      if (tagged2 && key === "type")
        continue;
      const check = Object.hasOwn(spec.fields, key) ? spec.fields[key] : void 0;
      if (check !== void 0)
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
function tagged(members) {
  return (v, path) => {
    if (!isObject(v))
      return expected("object", v, path);
    if (!Object.hasOwn(v, "type"))
      fail("Object missing required field `type`", path);
    const tag = v["type"];
    if (typeof tag !== "string")
      return expected("str", tag, `${path}.type`);
    const check = Object.hasOwn(members, tag) ? members[tag] : void 0;
    if (check === void 0)
      fail(`Invalid value ${repr(tag)}`, `${path}.type`);
    return check(v, path);
  };
}
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
function normalizeUrl(url2) {
  try {
    return new URL(url2).href;
  } catch {
    return void 0;
  }
}
function checkEventBlocks(type, event) {
  const spec = Object.hasOwn(EVENT_FIELDS, type) ? EVENT_FIELDS[type] : void 0;
  if (spec === void 0 || event[spec[0]] === void 0)
    return;
  event[spec[0]] = spec[1](event[spec[0]], `$.${spec[0]}`);
}
function checkMsg(value) {
  return msg(value, "$");
}
var str, strOrNull, object, objectOrNull, INT_MIN, INT_MAX, int, bytes, stamps, base64, url, text, thinking, data, textOrData, hint, rule, toolCall, toolResult, checkBlock, TOKENS, usage, error, ROLE_RULES, msg, confirmResult, EVENT_FIELDS;
var init_msgcheck = __esm({
  "schemas/dist/msgcheck.js"() {
    "use strict";
    init_fields();
    init_base64();
    init_errors();
    str = (v, path) => typeof v === "string" ? v : expected("str", v, path);
    strOrNull = (v, path) => v === null || typeof v === "string" ? v : expected("str | null", v, path);
    object = (v, path) => isObject(v) ? v : expected("object", v, path);
    objectOrNull = (v, path) => v === null || isObject(v) ? v : expected("object | null", v, path);
    INT_MIN = -(2 ** 63);
    INT_MAX = 2 ** 64 - 1;
    int = (v, path) => {
      if (typeof v !== "number" || !Number.isInteger(v))
        return expected("int", v, path);
      return v;
    };
    bytes = (v, path) => {
      if (v instanceof Uint8Array)
        return v;
      if (typeof v !== "string")
        return expected("bytes", v, path);
      if (!isBase64(v))
        fail("Invalid base64 encoded string", path);
      return v;
    };
    stamps = { id: str, created_at: str, finished_at: strOrNull };
    base64 = struct({ fields: { data: bytes, media_type: str }, required: ["data", "media_type"] }, true);
    url = struct({
      fields: { url: str, media_type: str },
      required: ["url", "media_type"],
      after: (source, path) => {
        const normalized = normalizeUrl(source["url"]);
        if (normalized === void 0)
          fail(`not an absolute URL: ${repr(source["url"])}`, path);
        source["url"] = normalized;
      }
    }, true);
    text = struct({ fields: { text: str, ...stamps }, required: ["text"] }, true);
    thinking = struct({ fields: { thinking: str, ...stamps }, required: ["thinking"] }, true);
    data = struct({
      fields: { ...stamps, source: tagged({ base64, url }), name: strOrNull },
      required: ["source"]
    }, true);
    textOrData = tagged({ text, data });
    hint = struct({
      fields: { hint: strOrList(textOrData), ...stamps, source: strOrNull },
      required: ["hint"]
    }, true);
    rule = struct({
      fields: {
        tool_name: str,
        rule_content: strOrNull,
        behavior: oneOf(["allow", "deny", "ask", "passthrough"]),
        source: str
      },
      required: ["tool_name", "rule_content", "behavior", "source"]
    });
    toolCall = struct({
      fields: {
        id: str,
        name: str,
        input: str,
        state: oneOf(["pending", "asking", "allowed", "submitted", "finished"]),
        suggested_rules: list(rule),
        created_at: str,
        finished_at: strOrNull
      },
      required: ["id", "name", "input"]
    }, true);
    toolResult = struct({
      fields: {
        id: str,
        name: str,
        output: strOrList(textOrData),
        state: oneOf(["success", "error", "interrupted", "denied", "running"]),
        metadata: object,
        created_at: str,
        finished_at: strOrNull
      },
      required: ["id", "name", "output"]
    }, true);
    checkBlock = tagged({
      text,
      thinking,
      hint,
      data,
      tool_call: toolCall,
      tool_result: toolResult
    });
    TOKENS = ["input_tokens", "output_tokens", "cache_input_tokens", "cache_creation_input_tokens"];
    usage = orNull(struct({
      fields: Object.fromEntries(TOKENS.map((name) => [name, int])),
      required: ["input_tokens", "output_tokens"],
      after: (counts, path) => {
        for (const name of TOKENS) {
          const n = counts[name];
          if (typeof n === "number" && (n < INT_MIN || n > INT_MAX)) {
            fail(`an integer outside -2**63 .. 2**64-1, which MessagePack cannot carry - in \`${name}\``, path);
          }
        }
      }
    }));
    error = orNull(struct({
      fields: {
        type: oneOf([
          "authentication",
          "permission",
          "rate_limit",
          "invalid_request",
          "upstream",
          "connection",
          "internal",
          "setup",
          "unknown"
        ]),
        message: str
      },
      required: ["message"]
    }));
    ROLE_RULES = Object.fromEntries(Object.entries(ROLE_BLOCKS).map(([role, rule2]) => [role, rule2 === null ? null : [new Set(rule2[0]), rule2[1]]]));
    msg = struct({
      fields: {
        name: str,
        content: list(checkBlock),
        role: oneOf(["user", "assistant", "system"]),
        id: str,
        metadata: object,
        created_at: str,
        usage,
        finished_at: strOrNull,
        finished_reason: oneOf(["completed", "interrupted", "exceed_max_iters", "error"], true),
        structured_output: objectOrNull,
        error
      },
      required: ["name", "content", "role"],
      after: (m, path) => {
        const rule2 = ROLE_RULES[m["role"]];
        if (!rule2)
          return;
        m["content"].forEach((block, i) => {
          if (!rule2[0].has(block["type"])) {
            fail(`content[${i}] is a ${repr(block["type"])} block, but a ${m["role"]} message can only contain ${rule2[1]}`, `${path}.content[${i}]`);
          }
        });
      }
    });
    confirmResult = struct({
      fields: {
        confirmed: (v, path) => typeof v === "boolean" ? v : expected("bool", v, path),
        tool_call: only("tool_call", toolCall),
        rules: (v, path) => v === null ? v : list(rule)(v, path)
      },
      required: ["confirmed", "tool_call"]
    });
    EVENT_FIELDS = {
      REPLY_END: ["error", error],
      HINT_BLOCK: ["hint", strOrList(textOrData)],
      REQUIRE_USER_CONFIRM: ["tool_calls", list(only("tool_call", toolCall))],
      REQUIRE_EXTERNAL_EXECUTION: ["tool_calls", list(only("tool_call", toolCall))],
      USER_CONFIRM_RESULT: ["confirm_results", list(confirmResult)],
      EXTERNAL_EXECUTION_RESULT: ["execution_results", list(only("tool_result", toolResult))]
    };
  }
});

// schemas/dist/events.js
function isObject2(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
function fieldError(type, field, kind, value) {
  const optional = kind.endsWith("?");
  if (value === void 0 || value === null && kind === "n?") {
    return optional ? void 0 : `Object missing required field \`${field}\``;
  }
  const values = type === "MODEL_CALL_END" && field === "finished_reason" ? MODEL_CALL_REASONS : ENUMS[field];
  if (values !== void 0 && !values.has(value))
    return `Invalid enum value ${JSON.stringify(value)}`;
  const base = optional ? kind.slice(0, -1) : kind;
  const ok = base === "s" ? typeof value === "string" : base === "i" ? Number.isInteger(value) : base === "a" ? Array.isArray(value) : base === "h" ? typeof value === "string" || Array.isArray(value) : isObject2(value);
  return ok ? void 0 : `Expected \`${WHAT[base] ?? base}\`, got \`${describe(value)}\` in a ${type} event`;
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
function checkEvent(value) {
  if (!isObject2(value))
    throw new DecodeError(`Expected \`object\`, got \`${describe(value)}\``, { path: "$" });
  const type = value["type"];
  if (typeof type !== "string") {
    throw new DecodeError(type === void 0 ? "Object missing required field `type`" : "Expected `str`", {
      path: "$.type"
    });
  }
  const fields = Object.hasOwn(SPECS, type) ? SPECS[type] : void 0;
  if (fields === void 0)
    return type;
  const id = value["id"];
  const at = value["created_at"];
  if (!((id === void 0 || typeof id === "string") && (at === void 0 || typeof at === "string") && value["metadata"] === void 0)) {
    for (const field in ENVELOPE) {
      const problem = fieldError(type, field, ENVELOPE[field], value[field]);
      if (problem !== void 0)
        throw new DecodeError(problem, { path: `$.${field}` });
    }
  }
  for (let i = 0; i < fields.length; i++) {
    const [field, kind, plain] = fields[i];
    const got2 = value[field];
    if (plain && typeof got2 === "string")
      continue;
    if (kind === "b") {
      checkDataOrUrl(value);
      continue;
    }
    const problem = fieldError(type, field, kind, got2);
    if (problem !== void 0)
      throw new DecodeError(problem, { path: `$.${field}` });
  }
  if (NESTED.has(type))
    checkEventBlocks(type, value);
  return void 0;
}
function checkDataOrUrl(value) {
  const data2 = value["data"] ?? null;
  const url2 = value["url"] ?? null;
  if (data2 === null === (url2 === null)) {
    throw new DecodeError("Exactly one of `data` or `url` must be provided.", { path: "$" });
  }
  if (url2 !== null && typeof url2 !== "string") {
    throw new DecodeError(`Expected \`str | null\`, got \`${describe(url2)}\``, { path: "$.url" });
  }
  if (data2 !== null && !(data2 instanceof Uint8Array) && !(typeof data2 === "string" && isBase64(data2))) {
    throw new DecodeError(typeof data2 === "string" ? "Invalid base64 encoded string" : "Expected `bytes | null`", {
      path: "$.data"
    });
  }
}
var EVENT_TYPES, UnknownEvent, REPLY, BLOCK, CALL, REQUIRED, ENVELOPE, WHAT, ENUMS, MODEL_CALL_REASONS, NESTED, SPECS;
var init_events = __esm({
  "schemas/dist/events.js"() {
    "use strict";
    init_base64();
    init_errors();
    init_msgcheck();
    EVENT_TYPES = /* @__PURE__ */ new Set([
      "REPLY_START",
      "REPLY_END",
      "MODEL_CALL_START",
      "MODEL_CALL_END",
      "TEXT_BLOCK_START",
      "TEXT_BLOCK_DELTA",
      "TEXT_BLOCK_END",
      "DATA_BLOCK_START",
      "DATA_BLOCK_DELTA",
      "DATA_BLOCK_END",
      "THINKING_BLOCK_START",
      "THINKING_BLOCK_DELTA",
      "THINKING_BLOCK_END",
      "HINT_BLOCK",
      "TOOL_CALL_START",
      "TOOL_CALL_DELTA",
      "TOOL_CALL_END",
      "TOOL_RESULT_START",
      "TOOL_RESULT_TEXT_DELTA",
      "TOOL_RESULT_DATA_DELTA",
      "TOOL_RESULT_END",
      "EXCEED_MAX_ITERS",
      "REQUIRE_USER_CONFIRM",
      "REQUIRE_EXTERNAL_EXECUTION",
      "USER_CONFIRM_RESULT",
      "USER_INTERRUPT",
      "EXTERNAL_EXECUTION_RESULT",
      "CUSTOM"
    ]);
    UnknownEvent = class {
      type;
      raw;
      format;
      constructor(type, raw, format) {
        this.type = type;
        this.raw = raw;
        this.format = format;
      }
    };
    REPLY = { reply_id: "s" };
    BLOCK = { reply_id: "s", block_id: "s" };
    CALL = { reply_id: "s", tool_call_id: "s" };
    REQUIRED = {
      REPLY_START: { session_id: "s", reply_id: "s", name: "s", role: "s?" },
      REPLY_END: { session_id: "s", reply_id: "s", finished_reason: "s?", error: "n?" },
      MODEL_CALL_START: { reply_id: "s", model_name: "s" },
      MODEL_CALL_END: {
        reply_id: "s",
        input_tokens: "i",
        output_tokens: "i",
        cache_input_tokens: "i?",
        cache_creation_input_tokens: "i?",
        finished_reason: "s?"
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
      CUSTOM: { name: "s", value: "o?" }
    };
    ENVELOPE = { id: "s?", created_at: "s?", metadata: "o?" };
    WHAT = {
      s: "a string",
      i: "an integer",
      a: "an array",
      h: "a string or an array",
      o: "an object",
      n: "an object or null"
    };
    ENUMS = {
      role: /* @__PURE__ */ new Set(["user", "assistant", "system"]),
      finished_reason: /* @__PURE__ */ new Set(["completed", "interrupted", "exceed_max_iters", "error"]),
      state: /* @__PURE__ */ new Set(["success", "error", "interrupted", "denied", "running"])
    };
    MODEL_CALL_REASONS = /* @__PURE__ */ new Set(["completed", "interrupted"]);
    NESTED = /* @__PURE__ */ new Set([
      "REPLY_END",
      "HINT_BLOCK",
      "REQUIRE_USER_CONFIRM",
      "REQUIRE_EXTERNAL_EXECUTION",
      "USER_CONFIRM_RESULT",
      "EXTERNAL_EXECUTION_RESULT"
    ]);
    SPECS = Object.fromEntries(Object.entries(REQUIRED).map(([type, fields]) => [type, Object.entries(fields).map(([field, kind]) => [field, kind, kind === "s" && !Object.hasOwn(ENUMS, field)])]));
  }
});

// schemas/dist/streaming.js
function utf8(chunk) {
  return typeof chunk === "string" ? UTF8.encode(chunk) : chunk;
}
function concat(parts, total) {
  if (parts.length === 1)
    return parts[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
function unknownTypeReason(tag) {
  const shown = tag.slice(0, 64);
  let text2 = `unknown event type ${JSON.stringify(shown).replace(/^"|"$/g, "'")}`;
  const upper = shown.toUpperCase();
  let best;
  let bestDistance = Math.max(2, Math.floor(upper.length / 5)) + 1;
  for (const known of EVENT_TYPES) {
    const distance = editDistance(upper, known);
    if (distance < bestDistance)
      [best, bestDistance] = [known, distance];
  }
  if (best !== void 0)
    text2 += `: did you mean '${best}'?`;
  return text2;
}
function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    previous = row;
  }
  return previous[b.length];
}
function mayBeOutOfRange(value) {
  if (typeof value !== "object" || value === null)
    return typeof value === "number" && !(Math.abs(value) < LARGE);
  let stack;
  let item = value;
  for (; ; ) {
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) {
        const v = item[i];
        if (typeof v === "number") {
          if (!(Math.abs(v) < LARGE))
            return true;
        } else if (typeof v === "object" && v !== null) {
          (stack ??= []).push(v);
        }
      }
    } else {
      for (const key in item) {
        const v = item[key];
        if (typeof v === "number") {
          if (!(Math.abs(v) < LARGE))
            return true;
        } else if (typeof v === "object" && v !== null) {
          (stack ??= []).push(v);
        }
      }
    }
    const next = stack?.pop();
    if (next === void 0)
      return false;
    item = next;
  }
}
function refusedNumber(value, text2) {
  return mayBeOutOfRange(value) ? numberOutOfRange(text2) : void 0;
}
function numberOutOfRange(text2) {
  let inString = false;
  for (let i = 0; i < text2.length; i++) {
    const c = text2.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++;
      else if (c === 34)
        inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
    } else if (c === 45 || c >= 48 && c <= 57) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(text2);
      if (match === null)
        continue;
      const token = match[0];
      if (match[1] !== void 0 || match[2] !== void 0) {
        if (!Number.isFinite(Number(token)))
          return "Number out of range";
      } else if (token.length > 15) {
        const value = BigInt(token);
        if (value < INT_MIN2 || value > INT_MAX2) {
          return "an integer outside -2**63 .. 2**64-1, which MessagePack cannot carry";
        }
      }
      i += token.length - 1;
    }
  }
  return void 0;
}
var DEFAULT_MAX_FRAME_BYTES, UTF8, STRICT_UTF8, StreamDecoder, LARGE, NUMBER, INT_MIN2, INT_MAX2;
var init_streaming = __esm({
  "schemas/dist/streaming.js"() {
    "use strict";
    init_errors();
    init_events();
    DEFAULT_MAX_FRAME_BYTES = 32 * 1024 * 1024;
    UTF8 = new TextEncoder();
    STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    StreamDecoder = class {
      unknown;
      max;
      /** Frames that carried an event so far: the `index` errors report. */
      index = 0;
      state = "open";
      constructor(options = {}) {
        const unknown = options.unknown ?? "raise";
        if (!["raise", "skip", "keep"].includes(unknown))
          throw new TypeError(`unknown must be raise, skip or keep, not ${unknown}`);
        const max = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
        if (!(max >= 1))
          throw new RangeError(`maxFrameBytes must be positive, not ${max}`);
        this.unknown = unknown;
        this.max = max;
      }
      get maxFrameBytes() {
        return this.max;
      }
      /** How many frames carrying an event were read. */
      get frames() {
        return this.index;
      }
      /** The events of every frame `chunk` completes, in stream order. */
      feed(chunk) {
        if (this.state !== "open")
          throw new LocalProtocolError(`feed() on a decoder that is ${this.state}`);
        const out = [];
        try {
          this.take(utf8(chunk), out);
        } catch (error2) {
          this.fail(error2, out);
        }
        return out;
      }
      /** End of stream: the events of a frame the end completes; FrameError if it ended inside one. */
      close() {
        if (this.state === "closed")
          return [];
        if (this.state === "failed")
          throw new LocalProtocolError("close() on a decoder that is failed");
        const out = [];
        try {
          this.end(out);
        } catch (error2) {
          this.fail(error2, out);
        }
        this.state = "closed";
        return out;
      }
      fail(error2, out) {
        this.state = "failed";
        if (error2 instanceof RemoteProtocolError)
          error2.events = [...out, ...error2.events];
        throw error2;
      }
      /**
       * One JSON payload (its bytes, or its text when it was decoded with the
       * others of its chunk) into `out`, under the unknown-event policy.
       * `offset` is where it starts in the stream; `exact` says the payload is
       * contiguous there, so that a position inside it can be added.
       */
      json(payload, out, offset, exact = true) {
        let text2;
        if (typeof payload === "string") {
          text2 = payload;
        } else {
          try {
            text2 = STRICT_UTF8.decode(payload);
          } catch {
            throw new DecodeError("invalid UTF-8", { offset, index: this.index });
          }
        }
        let value;
        try {
          value = JSON.parse(text2);
        } catch (error2) {
          const at = /position (\d+)/.exec(String(error2))?.[1];
          const inside = at !== void 0 && exact ? UTF8.encode(text2.slice(0, Number(at))).length : 0;
          throw new DecodeError(`JSON is malformed: ${error2.message}`, {
            offset: offset + inside,
            index: this.index
          });
        }
        if (mayBeOutOfRange(value)) {
          const reason = numberOutOfRange(text2);
          if (reason !== void 0)
            throw new DecodeError(reason, { offset, index: this.index });
        }
        this.event(value, out, offset, () => typeof payload === "string" ? UTF8.encode(payload) : payload.slice(), "json");
      }
      /** A parsed payload checked and put into `out` under the unknown-event policy. */
      event(value, out, offset, raw, format) {
        let unknownType;
        try {
          unknownType = checkEvent(value);
        } catch (error2) {
          if (error2 instanceof DecodeError) {
            error2.offset = offset;
            error2.index = this.index;
            error2.message = error2.render();
          }
          throw error2;
        }
        if (unknownType !== void 0) {
          if (this.unknown === "raise") {
            throw new DecodeError(unknownTypeReason(unknownType), { path: "$.type", offset, index: this.index });
          }
          this.index++;
          if (this.unknown === "keep")
            out.push(new UnknownEvent(unknownType, raw(), format));
          return;
        }
        this.index++;
        out.push(value);
      }
    };
    LARGE = 2 ** 53;
    NUMBER = /-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
    INT_MIN2 = -(2n ** 63n);
    INT_MAX2 = 2n ** 64n - 1n;
  }
});

// schemas/node_modules/@msgpack/msgpack/dist.esm/utils/utf8.mjs
function utf8Count(str2) {
  const strLength = str2.length;
  let byteLength = 0;
  let pos = 0;
  while (pos < strLength) {
    let value = str2.charCodeAt(pos++);
    if ((value & 4294967168) === 0) {
      byteLength++;
      continue;
    } else if ((value & 4294965248) === 0) {
      byteLength += 2;
    } else {
      if (value >= 55296 && value <= 56319) {
        if (pos < strLength) {
          const extra = str2.charCodeAt(pos);
          if ((extra & 64512) === 56320) {
            ++pos;
            value = ((value & 1023) << 10) + (extra & 1023) + 65536;
          }
        }
      }
      if ((value & 4294901760) === 0) {
        byteLength += 3;
      } else {
        byteLength += 4;
      }
    }
  }
  return byteLength;
}
function utf8EncodeJs(str2, output, outputOffset) {
  const strLength = str2.length;
  let offset = outputOffset;
  let pos = 0;
  while (pos < strLength) {
    let value = str2.charCodeAt(pos++);
    if ((value & 4294967168) === 0) {
      output[offset++] = value;
      continue;
    } else if ((value & 4294965248) === 0) {
      output[offset++] = value >> 6 & 31 | 192;
    } else {
      if (value >= 55296 && value <= 56319) {
        if (pos < strLength) {
          const extra = str2.charCodeAt(pos);
          if ((extra & 64512) === 56320) {
            ++pos;
            value = ((value & 1023) << 10) + (extra & 1023) + 65536;
          }
        }
      }
      if ((value & 4294901760) === 0) {
        output[offset++] = value >> 12 & 15 | 224;
        output[offset++] = value >> 6 & 63 | 128;
      } else {
        output[offset++] = value >> 18 & 7 | 240;
        output[offset++] = value >> 12 & 63 | 128;
        output[offset++] = value >> 6 & 63 | 128;
      }
    }
    output[offset++] = value & 63 | 128;
  }
}
function utf8EncodeTE(str2, output, outputOffset) {
  sharedTextEncoder.encodeInto(str2, output.subarray(outputOffset));
}
function utf8Encode(str2, output, outputOffset) {
  if (str2.length > TEXT_ENCODER_THRESHOLD) {
    utf8EncodeTE(str2, output, outputOffset);
  } else {
    utf8EncodeJs(str2, output, outputOffset);
  }
}
function utf8DecodeJs(bytes2, inputOffset, byteLength) {
  let offset = inputOffset;
  const end = offset + byteLength;
  const units = [];
  let result = "";
  while (offset < end) {
    const byte1 = bytes2[offset++];
    if ((byte1 & 128) === 0) {
      units.push(byte1);
    } else if ((byte1 & 224) === 192) {
      const byte2 = bytes2[offset++] & 63;
      units.push((byte1 & 31) << 6 | byte2);
    } else if ((byte1 & 240) === 224) {
      const byte2 = bytes2[offset++] & 63;
      const byte3 = bytes2[offset++] & 63;
      units.push((byte1 & 31) << 12 | byte2 << 6 | byte3);
    } else if ((byte1 & 248) === 240) {
      const byte2 = bytes2[offset++] & 63;
      const byte3 = bytes2[offset++] & 63;
      const byte4 = bytes2[offset++] & 63;
      let unit = (byte1 & 7) << 18 | byte2 << 12 | byte3 << 6 | byte4;
      if (unit > 65535) {
        unit -= 65536;
        units.push(unit >>> 10 & 1023 | 55296);
        unit = 56320 | unit & 1023;
      }
      units.push(unit);
    } else {
      units.push(byte1);
    }
    if (units.length >= CHUNK_SIZE) {
      result += String.fromCharCode(...units);
      units.length = 0;
    }
  }
  if (units.length > 0) {
    result += String.fromCharCode(...units);
  }
  return result;
}
function utf8DecodeTD(bytes2, inputOffset, byteLength) {
  const stringBytes = bytes2.subarray(inputOffset, inputOffset + byteLength);
  return sharedTextDecoder.decode(stringBytes);
}
function utf8Decode(bytes2, inputOffset, byteLength) {
  if (byteLength > TEXT_DECODER_THRESHOLD) {
    return utf8DecodeTD(bytes2, inputOffset, byteLength);
  } else {
    return utf8DecodeJs(bytes2, inputOffset, byteLength);
  }
}
var sharedTextEncoder, TEXT_ENCODER_THRESHOLD, CHUNK_SIZE, sharedTextDecoder, TEXT_DECODER_THRESHOLD;
var init_utf8 = __esm({
  "schemas/node_modules/@msgpack/msgpack/dist.esm/utils/utf8.mjs"() {
    sharedTextEncoder = new TextEncoder();
    TEXT_ENCODER_THRESHOLD = 50;
    CHUNK_SIZE = 4096;
    sharedTextDecoder = new TextDecoder();
    TEXT_DECODER_THRESHOLD = 200;
  }
});

// schemas/node_modules/@msgpack/msgpack/dist.esm/ExtData.mjs
var ExtData;
var init_ExtData = __esm({
  "schemas/node_modules/@msgpack/msgpack/dist.esm/ExtData.mjs"() {
    ExtData = class {
      type;
      data;
      constructor(type, data2) {
        this.type = type;
        this.data = data2;
      }
    };
  }
});

// schemas/node_modules/@msgpack/msgpack/dist.esm/DecodeError.mjs
var DecodeError2;
var init_DecodeError = __esm({
  "schemas/node_modules/@msgpack/msgpack/dist.esm/DecodeError.mjs"() {
    DecodeError2 = class _DecodeError extends Error {
      constructor(message) {
        super(message);
        const proto = Object.create(_DecodeError.prototype);
        Object.setPrototypeOf(this, proto);
        Object.defineProperty(this, "name", {
          configurable: true,
          enumerable: false,
          value: _DecodeError.name
        });
      }
    };
  }
});

// schemas/node_modules/@msgpack/msgpack/dist.esm/utils/int.mjs
function setUint64(view, offset, value) {
  const high = value / 4294967296;
  const low = value;
  view.setUint32(offset, high);
  view.setUint32(offset + 4, low);
}
function setInt64(view, offset, value) {
  const high = Math.floor(value / 4294967296);
  const low = value;
  view.setUint32(offset, high);
  view.setUint32(offset + 4, low);
}
function getInt64(view, offset) {
  const high = view.getInt32(offset);
  const low = view.getUint32(offset + 4);
  return high * 4294967296 + low;
}
function getUint64(view, offset) {
  const high = view.getUint32(offset);
  const low = view.getUint32(offset + 4);
  return high * 4294967296 + low;
}
var UINT32_MAX;
var init_int = __esm({
  "schemas/node_modules/@msgpack/msgpack/dist.esm/utils/int.mjs"() {
    UINT32_MAX = 4294967295;
  }
});

// schemas/node_modules/@msgpack/msgpack/dist.esm/timestamp.mjs
function encodeTimeSpecToTimestamp({ sec, nsec }) {
  if (sec >= 0 && nsec >= 0 && sec <= TIMESTAMP64_MAX_SEC) {
    if (nsec === 0 && sec <= TIMESTAMP32_MAX_SEC) {
      const rv = new Uint8Array(4);
      const view = new DataView(rv.buffer);
      view.setUint32(0, sec);
      return rv;
    } else {
      const secHigh = sec / 4294967296;
      const secLow = sec & 4294967295;
      const rv = new Uint8Array(8);
      const view = new DataView(rv.buffer);
      view.setUint32(0, nsec << 2 | secHigh & 3);
      view.setUint32(4, secLow);
      return rv;
    }
  } else {
    const rv = new Uint8Array(12);
    const view = new DataView(rv.buffer);
    view.setUint32(0, nsec);
    setInt64(view, 4, sec);
    return rv;
  }
}
function encodeDateToTimeSpec(date) {
  const msec = date.getTime();
  const sec = Math.floor(msec / 1e3);
  const nsec = (msec - sec * 1e3) * 1e6;
  const nsecInSec = Math.floor(nsec / 1e9);
  return {
    sec: sec + nsecInSec,
    nsec: nsec - nsecInSec * 1e9
  };
}
function encodeTimestampExtension(object2) {
  if (object2 instanceof Date) {
    const timeSpec = encodeDateToTimeSpec(object2);
    return encodeTimeSpecToTimestamp(timeSpec);
  } else {
    return null;
  }
}
function decodeTimestampToTimeSpec(data2) {
  const view = new DataView(data2.buffer, data2.byteOffset, data2.byteLength);
  switch (data2.byteLength) {
    case 4: {
      const sec = view.getUint32(0);
      const nsec = 0;
      return { sec, nsec };
    }
    case 8: {
      const nsec30AndSecHigh2 = view.getUint32(0);
      const secLow32 = view.getUint32(4);
      const sec = (nsec30AndSecHigh2 & 3) * 4294967296 + secLow32;
      const nsec = nsec30AndSecHigh2 >>> 2;
      return { sec, nsec };
    }
    case 12: {
      const sec = getInt64(view, 4);
      const nsec = view.getUint32(0);
      return { sec, nsec };
    }
    default:
      throw new DecodeError2(`Unrecognized data size for timestamp (expected 4, 8, or 12): ${data2.length}`);
  }
}
function decodeTimestampExtension(data2) {
  const timeSpec = decodeTimestampToTimeSpec(data2);
  return new Date(timeSpec.sec * 1e3 + timeSpec.nsec / 1e6);
}
var EXT_TIMESTAMP, TIMESTAMP32_MAX_SEC, TIMESTAMP64_MAX_SEC, timestampExtension;
var init_timestamp = __esm({
  "schemas/node_modules/@msgpack/msgpack/dist.esm/timestamp.mjs"() {
    init_DecodeError();
    init_int();
    EXT_TIMESTAMP = -1;
    TIMESTAMP32_MAX_SEC = 4294967296 - 1;
    TIMESTAMP64_MAX_SEC = 17179869184 - 1;
    timestampExtension = {
      type: EXT_TIMESTAMP,
      encode: encodeTimestampExtension,
      decode: decodeTimestampExtension
    };
  }
});

// schemas/node_modules/@msgpack/msgpack/dist.esm/ExtensionCodec.mjs
var ExtensionCodec;
var init_ExtensionCodec = __esm({
  "schemas/node_modules/@msgpack/msgpack/dist.esm/ExtensionCodec.mjs"() {
    init_ExtData();
    init_timestamp();
    ExtensionCodec = class _ExtensionCodec {
      static defaultCodec = new _ExtensionCodec();
      // ensures ExtensionCodecType<X> matches ExtensionCodec<X>
      // this will make type errors a lot more clear
      // eslint-disable-next-line @typescript-eslint/naming-convention
      __brand;
      // built-in extensions
      builtInEncoders = [];
      builtInDecoders = [];
      // custom extensions
      encoders = [];
      decoders = [];
      constructor() {
        this.register(timestampExtension);
      }
      register({ type, encode: encode2, decode: decode2 }) {
        if (type >= 0) {
          this.encoders[type] = encode2;
          this.decoders[type] = decode2;
        } else {
          const index2 = -1 - type;
          this.builtInEncoders[index2] = encode2;
          this.builtInDecoders[index2] = decode2;
        }
      }
      tryToEncode(object2, context) {
        for (let i = 0; i < this.builtInEncoders.length; i++) {
          const encodeExt = this.builtInEncoders[i];
          if (encodeExt != null) {
            const data2 = encodeExt(object2, context);
            if (data2 != null) {
              const type = -1 - i;
              return new ExtData(type, data2);
            }
          }
        }
        for (let i = 0; i < this.encoders.length; i++) {
          const encodeExt = this.encoders[i];
          if (encodeExt != null) {
            const data2 = encodeExt(object2, context);
            if (data2 != null) {
              const type = i;
              return new ExtData(type, data2);
            }
          }
        }
        if (object2 instanceof ExtData) {
          return object2;
        }
        return null;
      }
      decode(data2, type, context) {
        const decodeExt = type < 0 ? this.builtInDecoders[-1 - type] : this.decoders[type];
        if (decodeExt) {
          return decodeExt(data2, type, context);
        } else {
          return new ExtData(type, data2);
        }
      }
    };
  }
});

// schemas/node_modules/@msgpack/msgpack/dist.esm/utils/typedArrays.mjs
function isArrayBufferLike(buffer2) {
  return buffer2 instanceof ArrayBuffer || typeof SharedArrayBuffer !== "undefined" && buffer2 instanceof SharedArrayBuffer;
}
function ensureUint8Array(buffer2) {
  if (buffer2 instanceof Uint8Array) {
    return buffer2;
  } else if (ArrayBuffer.isView(buffer2)) {
    return new Uint8Array(buffer2.buffer, buffer2.byteOffset, buffer2.byteLength);
  } else if (isArrayBufferLike(buffer2)) {
    return new Uint8Array(buffer2);
  } else {
    return Uint8Array.from(buffer2);
  }
}
var init_typedArrays = __esm({
  "schemas/node_modules/@msgpack/msgpack/dist.esm/utils/typedArrays.mjs"() {
  }
});

// schemas/node_modules/@msgpack/msgpack/dist.esm/Encoder.mjs
var DEFAULT_MAX_DEPTH, DEFAULT_INITIAL_BUFFER_SIZE, Encoder;
var init_Encoder = __esm({
  "schemas/node_modules/@msgpack/msgpack/dist.esm/Encoder.mjs"() {
    init_utf8();
    init_ExtensionCodec();
    init_int();
    init_typedArrays();
    DEFAULT_MAX_DEPTH = 100;
    DEFAULT_INITIAL_BUFFER_SIZE = 2048;
    Encoder = class _Encoder {
      extensionCodec;
      context;
      useBigInt64;
      maxDepth;
      initialBufferSize;
      sortKeys;
      forceFloat32;
      ignoreUndefined;
      forceIntegerToFloat;
      pos;
      view;
      bytes;
      entered = false;
      constructor(options) {
        this.extensionCodec = options?.extensionCodec ?? ExtensionCodec.defaultCodec;
        this.context = options?.context;
        this.useBigInt64 = options?.useBigInt64 ?? false;
        this.maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
        this.initialBufferSize = options?.initialBufferSize ?? DEFAULT_INITIAL_BUFFER_SIZE;
        this.sortKeys = options?.sortKeys ?? false;
        this.forceFloat32 = options?.forceFloat32 ?? false;
        this.ignoreUndefined = options?.ignoreUndefined ?? false;
        this.forceIntegerToFloat = options?.forceIntegerToFloat ?? false;
        this.pos = 0;
        this.view = new DataView(new ArrayBuffer(this.initialBufferSize));
        this.bytes = new Uint8Array(this.view.buffer);
      }
      clone() {
        return new _Encoder({
          extensionCodec: this.extensionCodec,
          context: this.context,
          useBigInt64: this.useBigInt64,
          maxDepth: this.maxDepth,
          initialBufferSize: this.initialBufferSize,
          sortKeys: this.sortKeys,
          forceFloat32: this.forceFloat32,
          ignoreUndefined: this.ignoreUndefined,
          forceIntegerToFloat: this.forceIntegerToFloat
        });
      }
      reinitializeState() {
        this.pos = 0;
      }
      /**
       * This is almost equivalent to {@link Encoder#encode}, but it returns an reference of the encoder's internal buffer and thus much faster than {@link Encoder#encode}.
       *
       * @returns Encodes the object and returns a shared reference the encoder's internal buffer.
       */
      encodeSharedRef(object2) {
        if (this.entered) {
          const instance = this.clone();
          return instance.encodeSharedRef(object2);
        }
        try {
          this.entered = true;
          this.reinitializeState();
          this.doEncode(object2, 1);
          return this.bytes.subarray(0, this.pos);
        } finally {
          this.entered = false;
        }
      }
      /**
       * @returns Encodes the object and returns a copy of the encoder's internal buffer.
       */
      encode(object2) {
        if (this.entered) {
          const instance = this.clone();
          return instance.encode(object2);
        }
        try {
          this.entered = true;
          this.reinitializeState();
          this.doEncode(object2, 1);
          return this.bytes.slice(0, this.pos);
        } finally {
          this.entered = false;
        }
      }
      doEncode(object2, depth) {
        if (depth > this.maxDepth) {
          throw new Error(`Too deep objects in depth ${depth}`);
        }
        if (object2 == null) {
          this.encodeNil();
        } else if (typeof object2 === "boolean") {
          this.encodeBoolean(object2);
        } else if (typeof object2 === "number") {
          if (!this.forceIntegerToFloat) {
            this.encodeNumber(object2);
          } else {
            this.encodeNumberAsFloat(object2);
          }
        } else if (typeof object2 === "string") {
          this.encodeString(object2);
        } else if (this.useBigInt64 && typeof object2 === "bigint") {
          this.encodeBigInt64(object2);
        } else {
          this.encodeObject(object2, depth);
        }
      }
      ensureBufferSizeToWrite(sizeToWrite) {
        const requiredSize = this.pos + sizeToWrite;
        if (this.view.byteLength < requiredSize) {
          this.resizeBuffer(requiredSize * 2);
        }
      }
      resizeBuffer(newSize) {
        const newBuffer = new ArrayBuffer(newSize);
        const newBytes = new Uint8Array(newBuffer);
        const newView = new DataView(newBuffer);
        newBytes.set(this.bytes);
        this.view = newView;
        this.bytes = newBytes;
      }
      encodeNil() {
        this.writeU8(192);
      }
      encodeBoolean(object2) {
        if (object2 === false) {
          this.writeU8(194);
        } else {
          this.writeU8(195);
        }
      }
      encodeNumber(object2) {
        if (!this.forceIntegerToFloat && Number.isSafeInteger(object2)) {
          if (object2 >= 0) {
            if (object2 < 128) {
              this.writeU8(object2);
            } else if (object2 < 256) {
              this.writeU8(204);
              this.writeU8(object2);
            } else if (object2 < 65536) {
              this.writeU8(205);
              this.writeU16(object2);
            } else if (object2 < 4294967296) {
              this.writeU8(206);
              this.writeU32(object2);
            } else if (!this.useBigInt64) {
              this.writeU8(207);
              this.writeU64(object2);
            } else {
              this.encodeNumberAsFloat(object2);
            }
          } else {
            if (object2 >= -32) {
              this.writeU8(224 | object2 + 32);
            } else if (object2 >= -128) {
              this.writeU8(208);
              this.writeI8(object2);
            } else if (object2 >= -32768) {
              this.writeU8(209);
              this.writeI16(object2);
            } else if (object2 >= -2147483648) {
              this.writeU8(210);
              this.writeI32(object2);
            } else if (!this.useBigInt64) {
              this.writeU8(211);
              this.writeI64(object2);
            } else {
              this.encodeNumberAsFloat(object2);
            }
          }
        } else {
          this.encodeNumberAsFloat(object2);
        }
      }
      encodeNumberAsFloat(object2) {
        if (this.forceFloat32) {
          this.writeU8(202);
          this.writeF32(object2);
        } else {
          this.writeU8(203);
          this.writeF64(object2);
        }
      }
      encodeBigInt64(object2) {
        if (object2 >= BigInt(0)) {
          this.writeU8(207);
          this.writeBigUint64(object2);
        } else {
          this.writeU8(211);
          this.writeBigInt64(object2);
        }
      }
      writeStringHeader(byteLength) {
        if (byteLength < 32) {
          this.writeU8(160 + byteLength);
        } else if (byteLength < 256) {
          this.writeU8(217);
          this.writeU8(byteLength);
        } else if (byteLength < 65536) {
          this.writeU8(218);
          this.writeU16(byteLength);
        } else if (byteLength < 4294967296) {
          this.writeU8(219);
          this.writeU32(byteLength);
        } else {
          throw new Error(`Too long string: ${byteLength} bytes in UTF-8`);
        }
      }
      encodeString(object2) {
        const maxHeaderSize = 1 + 4;
        const byteLength = utf8Count(object2);
        this.ensureBufferSizeToWrite(maxHeaderSize + byteLength);
        this.writeStringHeader(byteLength);
        utf8Encode(object2, this.bytes, this.pos);
        this.pos += byteLength;
      }
      encodeObject(object2, depth) {
        const ext = this.extensionCodec.tryToEncode(object2, this.context);
        if (ext != null) {
          this.encodeExtension(ext);
        } else if (Array.isArray(object2)) {
          this.encodeArray(object2, depth);
        } else if (ArrayBuffer.isView(object2)) {
          this.encodeBinary(object2);
        } else if (typeof object2 === "object") {
          this.encodeMap(object2, depth);
        } else {
          throw new Error(`Unrecognized object: ${Object.prototype.toString.apply(object2)}`);
        }
      }
      encodeBinary(object2) {
        const size = object2.byteLength;
        if (size < 256) {
          this.writeU8(196);
          this.writeU8(size);
        } else if (size < 65536) {
          this.writeU8(197);
          this.writeU16(size);
        } else if (size < 4294967296) {
          this.writeU8(198);
          this.writeU32(size);
        } else {
          throw new Error(`Too large binary: ${size}`);
        }
        const bytes2 = ensureUint8Array(object2);
        this.writeU8a(bytes2);
      }
      encodeArray(object2, depth) {
        const size = object2.length;
        if (size < 16) {
          this.writeU8(144 + size);
        } else if (size < 65536) {
          this.writeU8(220);
          this.writeU16(size);
        } else if (size < 4294967296) {
          this.writeU8(221);
          this.writeU32(size);
        } else {
          throw new Error(`Too large array: ${size}`);
        }
        for (const item of object2) {
          this.doEncode(item, depth + 1);
        }
      }
      countWithoutUndefined(object2, keys) {
        let count = 0;
        for (const key of keys) {
          if (object2[key] !== void 0) {
            count++;
          }
        }
        return count;
      }
      encodeMap(object2, depth) {
        const keys = Object.keys(object2);
        if (this.sortKeys) {
          keys.sort();
        }
        const size = this.ignoreUndefined ? this.countWithoutUndefined(object2, keys) : keys.length;
        if (size < 16) {
          this.writeU8(128 + size);
        } else if (size < 65536) {
          this.writeU8(222);
          this.writeU16(size);
        } else if (size < 4294967296) {
          this.writeU8(223);
          this.writeU32(size);
        } else {
          throw new Error(`Too large map object: ${size}`);
        }
        for (const key of keys) {
          const value = object2[key];
          if (!(this.ignoreUndefined && value === void 0)) {
            this.encodeString(key);
            this.doEncode(value, depth + 1);
          }
        }
      }
      encodeExtension(ext) {
        if (typeof ext.data === "function") {
          const data2 = ext.data(this.pos + 6);
          const size2 = data2.length;
          if (size2 >= 4294967296) {
            throw new Error(`Too large extension object: ${size2}`);
          }
          this.writeU8(201);
          this.writeU32(size2);
          this.writeI8(ext.type);
          this.writeU8a(data2);
          return;
        }
        const size = ext.data.length;
        if (size === 1) {
          this.writeU8(212);
        } else if (size === 2) {
          this.writeU8(213);
        } else if (size === 4) {
          this.writeU8(214);
        } else if (size === 8) {
          this.writeU8(215);
        } else if (size === 16) {
          this.writeU8(216);
        } else if (size < 256) {
          this.writeU8(199);
          this.writeU8(size);
        } else if (size < 65536) {
          this.writeU8(200);
          this.writeU16(size);
        } else if (size < 4294967296) {
          this.writeU8(201);
          this.writeU32(size);
        } else {
          throw new Error(`Too large extension object: ${size}`);
        }
        this.writeI8(ext.type);
        this.writeU8a(ext.data);
      }
      writeU8(value) {
        this.ensureBufferSizeToWrite(1);
        this.view.setUint8(this.pos, value);
        this.pos++;
      }
      writeU8a(values) {
        const size = values.length;
        this.ensureBufferSizeToWrite(size);
        this.bytes.set(values, this.pos);
        this.pos += size;
      }
      writeI8(value) {
        this.ensureBufferSizeToWrite(1);
        this.view.setInt8(this.pos, value);
        this.pos++;
      }
      writeU16(value) {
        this.ensureBufferSizeToWrite(2);
        this.view.setUint16(this.pos, value);
        this.pos += 2;
      }
      writeI16(value) {
        this.ensureBufferSizeToWrite(2);
        this.view.setInt16(this.pos, value);
        this.pos += 2;
      }
      writeU32(value) {
        this.ensureBufferSizeToWrite(4);
        this.view.setUint32(this.pos, value);
        this.pos += 4;
      }
      writeI32(value) {
        this.ensureBufferSizeToWrite(4);
        this.view.setInt32(this.pos, value);
        this.pos += 4;
      }
      writeF32(value) {
        this.ensureBufferSizeToWrite(4);
        this.view.setFloat32(this.pos, value);
        this.pos += 4;
      }
      writeF64(value) {
        this.ensureBufferSizeToWrite(8);
        this.view.setFloat64(this.pos, value);
        this.pos += 8;
      }
      writeU64(value) {
        this.ensureBufferSizeToWrite(8);
        setUint64(this.view, this.pos, value);
        this.pos += 8;
      }
      writeI64(value) {
        this.ensureBufferSizeToWrite(8);
        setInt64(this.view, this.pos, value);
        this.pos += 8;
      }
      writeBigUint64(value) {
        this.ensureBufferSizeToWrite(8);
        this.view.setBigUint64(this.pos, value);
        this.pos += 8;
      }
      writeBigInt64(value) {
        this.ensureBufferSizeToWrite(8);
        this.view.setBigInt64(this.pos, value);
        this.pos += 8;
      }
    };
  }
});

// schemas/node_modules/@msgpack/msgpack/dist.esm/encode.mjs
function encode(value, options) {
  const encoder = new Encoder(options);
  return encoder.encodeSharedRef(value);
}
var init_encode = __esm({
  "schemas/node_modules/@msgpack/msgpack/dist.esm/encode.mjs"() {
    init_Encoder();
  }
});

// schemas/node_modules/@msgpack/msgpack/dist.esm/utils/prettyByte.mjs
function prettyByte(byte) {
  return `${byte < 0 ? "-" : ""}0x${Math.abs(byte).toString(16).padStart(2, "0")}`;
}
var init_prettyByte = __esm({
  "schemas/node_modules/@msgpack/msgpack/dist.esm/utils/prettyByte.mjs"() {
  }
});

// schemas/node_modules/@msgpack/msgpack/dist.esm/CachedKeyDecoder.mjs
var DEFAULT_MAX_KEY_LENGTH, DEFAULT_MAX_LENGTH_PER_KEY, CachedKeyDecoder;
var init_CachedKeyDecoder = __esm({
  "schemas/node_modules/@msgpack/msgpack/dist.esm/CachedKeyDecoder.mjs"() {
    init_utf8();
    DEFAULT_MAX_KEY_LENGTH = 16;
    DEFAULT_MAX_LENGTH_PER_KEY = 16;
    CachedKeyDecoder = class {
      hit = 0;
      miss = 0;
      caches;
      maxKeyLength;
      maxLengthPerKey;
      constructor(maxKeyLength = DEFAULT_MAX_KEY_LENGTH, maxLengthPerKey = DEFAULT_MAX_LENGTH_PER_KEY) {
        this.maxKeyLength = maxKeyLength;
        this.maxLengthPerKey = maxLengthPerKey;
        this.caches = [];
        for (let i = 0; i < this.maxKeyLength; i++) {
          this.caches.push([]);
        }
      }
      canBeCached(byteLength) {
        return byteLength > 0 && byteLength <= this.maxKeyLength;
      }
      find(bytes2, inputOffset, byteLength) {
        const records = this.caches[byteLength - 1];
        FIND_CHUNK: for (const record of records) {
          const recordBytes = record.bytes;
          for (let j = 0; j < byteLength; j++) {
            if (recordBytes[j] !== bytes2[inputOffset + j]) {
              continue FIND_CHUNK;
            }
          }
          return record.str;
        }
        return null;
      }
      store(bytes2, value) {
        const records = this.caches[bytes2.length - 1];
        const record = { bytes: bytes2, str: value };
        if (records.length >= this.maxLengthPerKey) {
          records[Math.random() * records.length | 0] = record;
        } else {
          records.push(record);
        }
      }
      decode(bytes2, inputOffset, byteLength) {
        const cachedValue = this.find(bytes2, inputOffset, byteLength);
        if (cachedValue != null) {
          this.hit++;
          return cachedValue;
        }
        this.miss++;
        const str2 = utf8DecodeJs(bytes2, inputOffset, byteLength);
        const slicedCopyOfBytes = Uint8Array.prototype.slice.call(bytes2, inputOffset, inputOffset + byteLength);
        this.store(slicedCopyOfBytes, str2);
        return str2;
      }
    };
  }
});

// schemas/node_modules/@msgpack/msgpack/dist.esm/Decoder.mjs
var STATE_ARRAY, STATE_MAP_KEY, STATE_MAP_VALUE, mapKeyConverter, StackPool, HEAD_BYTE_REQUIRED, EMPTY_VIEW, EMPTY_BYTES, MORE_DATA, sharedCachedKeyDecoder, Decoder;
var init_Decoder = __esm({
  "schemas/node_modules/@msgpack/msgpack/dist.esm/Decoder.mjs"() {
    init_prettyByte();
    init_ExtensionCodec();
    init_int();
    init_utf8();
    init_typedArrays();
    init_CachedKeyDecoder();
    init_DecodeError();
    STATE_ARRAY = "array";
    STATE_MAP_KEY = "map_key";
    STATE_MAP_VALUE = "map_value";
    mapKeyConverter = (key) => {
      if (typeof key === "string" || typeof key === "number") {
        return key;
      }
      throw new DecodeError2("The type of key must be string or number but " + typeof key);
    };
    StackPool = class {
      stack = [];
      stackHeadPosition = -1;
      get length() {
        return this.stackHeadPosition + 1;
      }
      top() {
        return this.stack[this.stackHeadPosition];
      }
      pushArrayState(size) {
        const state = this.getUninitializedStateFromPool();
        state.type = STATE_ARRAY;
        state.position = 0;
        state.size = size;
        state.array = new Array(size);
      }
      pushMapState(size) {
        const state = this.getUninitializedStateFromPool();
        state.type = STATE_MAP_KEY;
        state.readCount = 0;
        state.size = size;
        state.map = {};
      }
      getUninitializedStateFromPool() {
        this.stackHeadPosition++;
        if (this.stackHeadPosition === this.stack.length) {
          const partialState = {
            type: void 0,
            size: 0,
            array: void 0,
            position: 0,
            readCount: 0,
            map: void 0,
            key: null
          };
          this.stack.push(partialState);
        }
        return this.stack[this.stackHeadPosition];
      }
      release(state) {
        const topStackState = this.stack[this.stackHeadPosition];
        if (topStackState !== state) {
          throw new Error("Invalid stack state. Released state is not on top of the stack.");
        }
        if (state.type === STATE_ARRAY) {
          const partialState = state;
          partialState.size = 0;
          partialState.array = void 0;
          partialState.position = 0;
          partialState.type = void 0;
        }
        if (state.type === STATE_MAP_KEY || state.type === STATE_MAP_VALUE) {
          const partialState = state;
          partialState.size = 0;
          partialState.map = void 0;
          partialState.readCount = 0;
          partialState.type = void 0;
        }
        this.stackHeadPosition--;
      }
      reset() {
        this.stack.length = 0;
        this.stackHeadPosition = -1;
      }
    };
    HEAD_BYTE_REQUIRED = -1;
    EMPTY_VIEW = new DataView(new ArrayBuffer(0));
    EMPTY_BYTES = new Uint8Array(EMPTY_VIEW.buffer);
    try {
      EMPTY_VIEW.getInt8(0);
    } catch (e) {
      if (!(e instanceof RangeError)) {
        throw new Error("This module is not supported in the current JavaScript engine because DataView does not throw RangeError on out-of-bounds access");
      }
    }
    MORE_DATA = new RangeError("Insufficient data");
    sharedCachedKeyDecoder = new CachedKeyDecoder();
    Decoder = class _Decoder {
      extensionCodec;
      context;
      useBigInt64;
      rawStrings;
      maxStrLength;
      maxBinLength;
      maxArrayLength;
      maxMapLength;
      maxExtLength;
      keyDecoder;
      mapKeyConverter;
      totalPos = 0;
      pos = 0;
      view = EMPTY_VIEW;
      bytes = EMPTY_BYTES;
      headByte = HEAD_BYTE_REQUIRED;
      stack = new StackPool();
      entered = false;
      constructor(options) {
        this.extensionCodec = options?.extensionCodec ?? ExtensionCodec.defaultCodec;
        this.context = options?.context;
        this.useBigInt64 = options?.useBigInt64 ?? false;
        this.rawStrings = options?.rawStrings ?? false;
        this.maxStrLength = options?.maxStrLength ?? UINT32_MAX;
        this.maxBinLength = options?.maxBinLength ?? UINT32_MAX;
        this.maxArrayLength = options?.maxArrayLength ?? UINT32_MAX;
        this.maxMapLength = options?.maxMapLength ?? UINT32_MAX;
        this.maxExtLength = options?.maxExtLength ?? UINT32_MAX;
        this.keyDecoder = options?.keyDecoder !== void 0 ? options.keyDecoder : sharedCachedKeyDecoder;
        this.mapKeyConverter = options?.mapKeyConverter ?? mapKeyConverter;
      }
      clone() {
        return new _Decoder({
          extensionCodec: this.extensionCodec,
          context: this.context,
          useBigInt64: this.useBigInt64,
          rawStrings: this.rawStrings,
          maxStrLength: this.maxStrLength,
          maxBinLength: this.maxBinLength,
          maxArrayLength: this.maxArrayLength,
          maxMapLength: this.maxMapLength,
          maxExtLength: this.maxExtLength,
          keyDecoder: this.keyDecoder
        });
      }
      reinitializeState() {
        this.totalPos = 0;
        this.headByte = HEAD_BYTE_REQUIRED;
        this.stack.reset();
      }
      setBuffer(buffer2) {
        const bytes2 = ensureUint8Array(buffer2);
        this.bytes = bytes2;
        this.view = new DataView(bytes2.buffer, bytes2.byteOffset, bytes2.byteLength);
        this.pos = 0;
      }
      appendBuffer(buffer2) {
        if (this.headByte === HEAD_BYTE_REQUIRED && !this.hasRemaining(1)) {
          this.setBuffer(buffer2);
        } else {
          const remainingData = this.bytes.subarray(this.pos);
          const newData = ensureUint8Array(buffer2);
          const newBuffer = new Uint8Array(remainingData.length + newData.length);
          newBuffer.set(remainingData);
          newBuffer.set(newData, remainingData.length);
          this.setBuffer(newBuffer);
        }
      }
      hasRemaining(size) {
        return this.view.byteLength - this.pos >= size;
      }
      createExtraByteError(posToShow) {
        const { view, pos } = this;
        return new RangeError(`Extra ${view.byteLength - pos} of ${view.byteLength} byte(s) found at buffer[${posToShow}]`);
      }
      /**
       * @throws {@link DecodeError}
       * @throws {@link RangeError}
       */
      decode(buffer2) {
        if (this.entered) {
          const instance = this.clone();
          return instance.decode(buffer2);
        }
        try {
          this.entered = true;
          this.reinitializeState();
          this.setBuffer(buffer2);
          const object2 = this.doDecodeSync();
          if (this.hasRemaining(1)) {
            throw this.createExtraByteError(this.pos);
          }
          return object2;
        } finally {
          this.entered = false;
        }
      }
      *decodeMulti(buffer2) {
        if (this.entered) {
          const instance = this.clone();
          yield* instance.decodeMulti(buffer2);
          return;
        }
        try {
          this.entered = true;
          this.reinitializeState();
          this.setBuffer(buffer2);
          while (this.hasRemaining(1)) {
            yield this.doDecodeSync();
          }
        } finally {
          this.entered = false;
        }
      }
      async decodeAsync(stream) {
        if (this.entered) {
          const instance = this.clone();
          return instance.decodeAsync(stream);
        }
        try {
          this.entered = true;
          let decoded = false;
          let object2;
          for await (const buffer2 of stream) {
            if (decoded) {
              this.entered = false;
              throw this.createExtraByteError(this.totalPos);
            }
            this.appendBuffer(buffer2);
            try {
              object2 = this.doDecodeSync();
              decoded = true;
            } catch (e) {
              if (!(e instanceof RangeError)) {
                throw e;
              }
            }
            this.totalPos += this.pos;
          }
          if (decoded) {
            if (this.hasRemaining(1)) {
              throw this.createExtraByteError(this.totalPos);
            }
            return object2;
          }
          const { headByte, pos, totalPos } = this;
          throw new RangeError(`Insufficient data in parsing ${prettyByte(headByte)} at ${totalPos} (${pos} in the current buffer)`);
        } finally {
          this.entered = false;
        }
      }
      decodeArrayStream(stream) {
        return this.decodeMultiAsync(stream, true);
      }
      decodeStream(stream) {
        return this.decodeMultiAsync(stream, false);
      }
      async *decodeMultiAsync(stream, isArray) {
        if (this.entered) {
          const instance = this.clone();
          yield* instance.decodeMultiAsync(stream, isArray);
          return;
        }
        try {
          this.entered = true;
          let isArrayHeaderRequired = isArray;
          let arrayItemsLeft = -1;
          for await (const buffer2 of stream) {
            if (isArray && arrayItemsLeft === 0) {
              throw this.createExtraByteError(this.totalPos);
            }
            this.appendBuffer(buffer2);
            if (isArrayHeaderRequired) {
              arrayItemsLeft = this.readArraySize();
              isArrayHeaderRequired = false;
              this.complete();
            }
            try {
              while (true) {
                yield this.doDecodeSync();
                if (--arrayItemsLeft === 0) {
                  break;
                }
              }
            } catch (e) {
              if (!(e instanceof RangeError)) {
                throw e;
              }
            }
            this.totalPos += this.pos;
          }
        } finally {
          this.entered = false;
        }
      }
      doDecodeSync() {
        DECODE: while (true) {
          const headByte = this.readHeadByte();
          let object2;
          if (headByte >= 224) {
            object2 = headByte - 256;
          } else if (headByte < 192) {
            if (headByte < 128) {
              object2 = headByte;
            } else if (headByte < 144) {
              const size = headByte - 128;
              if (size !== 0) {
                this.pushMapState(size);
                this.complete();
                continue DECODE;
              } else {
                object2 = {};
              }
            } else if (headByte < 160) {
              const size = headByte - 144;
              if (size !== 0) {
                this.pushArrayState(size);
                this.complete();
                continue DECODE;
              } else {
                object2 = [];
              }
            } else {
              const byteLength = headByte - 160;
              object2 = this.decodeString(byteLength, 0);
            }
          } else if (headByte === 192) {
            object2 = null;
          } else if (headByte === 194) {
            object2 = false;
          } else if (headByte === 195) {
            object2 = true;
          } else if (headByte === 202) {
            object2 = this.readF32();
          } else if (headByte === 203) {
            object2 = this.readF64();
          } else if (headByte === 204) {
            object2 = this.readU8();
          } else if (headByte === 205) {
            object2 = this.readU16();
          } else if (headByte === 206) {
            object2 = this.readU32();
          } else if (headByte === 207) {
            if (this.useBigInt64) {
              object2 = this.readU64AsBigInt();
            } else {
              object2 = this.readU64();
            }
          } else if (headByte === 208) {
            object2 = this.readI8();
          } else if (headByte === 209) {
            object2 = this.readI16();
          } else if (headByte === 210) {
            object2 = this.readI32();
          } else if (headByte === 211) {
            if (this.useBigInt64) {
              object2 = this.readI64AsBigInt();
            } else {
              object2 = this.readI64();
            }
          } else if (headByte === 217) {
            const byteLength = this.lookU8();
            object2 = this.decodeString(byteLength, 1);
          } else if (headByte === 218) {
            const byteLength = this.lookU16();
            object2 = this.decodeString(byteLength, 2);
          } else if (headByte === 219) {
            const byteLength = this.lookU32();
            object2 = this.decodeString(byteLength, 4);
          } else if (headByte === 220) {
            const size = this.readU16();
            if (size !== 0) {
              this.pushArrayState(size);
              this.complete();
              continue DECODE;
            } else {
              object2 = [];
            }
          } else if (headByte === 221) {
            const size = this.readU32();
            if (size !== 0) {
              this.pushArrayState(size);
              this.complete();
              continue DECODE;
            } else {
              object2 = [];
            }
          } else if (headByte === 222) {
            const size = this.readU16();
            if (size !== 0) {
              this.pushMapState(size);
              this.complete();
              continue DECODE;
            } else {
              object2 = {};
            }
          } else if (headByte === 223) {
            const size = this.readU32();
            if (size !== 0) {
              this.pushMapState(size);
              this.complete();
              continue DECODE;
            } else {
              object2 = {};
            }
          } else if (headByte === 196) {
            const size = this.lookU8();
            object2 = this.decodeBinary(size, 1);
          } else if (headByte === 197) {
            const size = this.lookU16();
            object2 = this.decodeBinary(size, 2);
          } else if (headByte === 198) {
            const size = this.lookU32();
            object2 = this.decodeBinary(size, 4);
          } else if (headByte === 212) {
            object2 = this.decodeExtension(1, 0);
          } else if (headByte === 213) {
            object2 = this.decodeExtension(2, 0);
          } else if (headByte === 214) {
            object2 = this.decodeExtension(4, 0);
          } else if (headByte === 215) {
            object2 = this.decodeExtension(8, 0);
          } else if (headByte === 216) {
            object2 = this.decodeExtension(16, 0);
          } else if (headByte === 199) {
            const size = this.lookU8();
            object2 = this.decodeExtension(size, 1);
          } else if (headByte === 200) {
            const size = this.lookU16();
            object2 = this.decodeExtension(size, 2);
          } else if (headByte === 201) {
            const size = this.lookU32();
            object2 = this.decodeExtension(size, 4);
          } else {
            throw new DecodeError2(`Unrecognized type byte: ${prettyByte(headByte)}`);
          }
          this.complete();
          const stack = this.stack;
          while (stack.length > 0) {
            const state = stack.top();
            if (state.type === STATE_ARRAY) {
              state.array[state.position] = object2;
              state.position++;
              if (state.position === state.size) {
                object2 = state.array;
                stack.release(state);
              } else {
                continue DECODE;
              }
            } else if (state.type === STATE_MAP_KEY) {
              if (object2 === "__proto__") {
                throw new DecodeError2("The key __proto__ is not allowed");
              }
              state.key = this.mapKeyConverter(object2);
              state.type = STATE_MAP_VALUE;
              continue DECODE;
            } else {
              state.map[state.key] = object2;
              state.readCount++;
              if (state.readCount === state.size) {
                object2 = state.map;
                stack.release(state);
              } else {
                state.key = null;
                state.type = STATE_MAP_KEY;
                continue DECODE;
              }
            }
          }
          return object2;
        }
      }
      readHeadByte() {
        if (this.headByte === HEAD_BYTE_REQUIRED) {
          this.headByte = this.readU8();
        }
        return this.headByte;
      }
      complete() {
        this.headByte = HEAD_BYTE_REQUIRED;
      }
      readArraySize() {
        const headByte = this.readHeadByte();
        switch (headByte) {
          case 220:
            return this.readU16();
          case 221:
            return this.readU32();
          default: {
            if (headByte < 160) {
              return headByte - 144;
            } else {
              throw new DecodeError2(`Unrecognized array type byte: ${prettyByte(headByte)}`);
            }
          }
        }
      }
      pushMapState(size) {
        if (size > this.maxMapLength) {
          throw new DecodeError2(`Max length exceeded: map length (${size}) > maxMapLengthLength (${this.maxMapLength})`);
        }
        this.stack.pushMapState(size);
      }
      pushArrayState(size) {
        if (size > this.maxArrayLength) {
          throw new DecodeError2(`Max length exceeded: array length (${size}) > maxArrayLength (${this.maxArrayLength})`);
        }
        this.stack.pushArrayState(size);
      }
      decodeString(byteLength, headerOffset) {
        if (!this.rawStrings || this.stateIsMapKey()) {
          return this.decodeUtf8String(byteLength, headerOffset);
        }
        return this.decodeBinary(byteLength, headerOffset);
      }
      /**
       * @throws {@link RangeError}
       */
      decodeUtf8String(byteLength, headerOffset) {
        if (byteLength > this.maxStrLength) {
          throw new DecodeError2(`Max length exceeded: UTF-8 byte length (${byteLength}) > maxStrLength (${this.maxStrLength})`);
        }
        if (this.bytes.byteLength < this.pos + headerOffset + byteLength) {
          throw MORE_DATA;
        }
        const offset = this.pos + headerOffset;
        let object2;
        if (this.stateIsMapKey() && this.keyDecoder?.canBeCached(byteLength)) {
          object2 = this.keyDecoder.decode(this.bytes, offset, byteLength);
        } else {
          object2 = utf8Decode(this.bytes, offset, byteLength);
        }
        this.pos += headerOffset + byteLength;
        return object2;
      }
      stateIsMapKey() {
        if (this.stack.length > 0) {
          const state = this.stack.top();
          return state.type === STATE_MAP_KEY;
        }
        return false;
      }
      /**
       * @throws {@link RangeError}
       */
      decodeBinary(byteLength, headOffset) {
        if (byteLength > this.maxBinLength) {
          throw new DecodeError2(`Max length exceeded: bin length (${byteLength}) > maxBinLength (${this.maxBinLength})`);
        }
        if (!this.hasRemaining(byteLength + headOffset)) {
          throw MORE_DATA;
        }
        const offset = this.pos + headOffset;
        const object2 = this.bytes.subarray(offset, offset + byteLength);
        this.pos += headOffset + byteLength;
        return object2;
      }
      decodeExtension(size, headOffset) {
        if (size > this.maxExtLength) {
          throw new DecodeError2(`Max length exceeded: ext length (${size}) > maxExtLength (${this.maxExtLength})`);
        }
        const extType = this.view.getInt8(this.pos + headOffset);
        const data2 = this.decodeBinary(
          size,
          headOffset + 1
          /* extType */
        );
        return this.extensionCodec.decode(data2, extType, this.context);
      }
      lookU8() {
        return this.view.getUint8(this.pos);
      }
      lookU16() {
        return this.view.getUint16(this.pos);
      }
      lookU32() {
        return this.view.getUint32(this.pos);
      }
      readU8() {
        const value = this.view.getUint8(this.pos);
        this.pos++;
        return value;
      }
      readI8() {
        const value = this.view.getInt8(this.pos);
        this.pos++;
        return value;
      }
      readU16() {
        const value = this.view.getUint16(this.pos);
        this.pos += 2;
        return value;
      }
      readI16() {
        const value = this.view.getInt16(this.pos);
        this.pos += 2;
        return value;
      }
      readU32() {
        const value = this.view.getUint32(this.pos);
        this.pos += 4;
        return value;
      }
      readI32() {
        const value = this.view.getInt32(this.pos);
        this.pos += 4;
        return value;
      }
      readU64() {
        const value = getUint64(this.view, this.pos);
        this.pos += 8;
        return value;
      }
      readI64() {
        const value = getInt64(this.view, this.pos);
        this.pos += 8;
        return value;
      }
      readU64AsBigInt() {
        const value = this.view.getBigUint64(this.pos);
        this.pos += 8;
        return value;
      }
      readI64AsBigInt() {
        const value = this.view.getBigInt64(this.pos);
        this.pos += 8;
        return value;
      }
      readF32() {
        const value = this.view.getFloat32(this.pos);
        this.pos += 4;
        return value;
      }
      readF64() {
        const value = this.view.getFloat64(this.pos);
        this.pos += 8;
        return value;
      }
    };
  }
});

// schemas/node_modules/@msgpack/msgpack/dist.esm/index.mjs
var init_dist = __esm({
  "schemas/node_modules/@msgpack/msgpack/dist.esm/index.mjs"() {
    init_encode();
    init_Decoder();
  }
});

// schemas/dist/msgpack.js
var msgpack_exports = {};
__export(msgpack_exports, {
  MsgpackFrameDecoder: () => MsgpackFrameDecoder,
  decodeMsgpack: () => decodeMsgpack,
  encodeMsgpack: () => encodeMsgpack
});
function refused(payload) {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  let pos = 0;
  const open = [{ left: 1, map: false, read: 0 }];
  while (open.length > 0 && pos < payload.length) {
    const inside = open[open.length - 1];
    if (inside.left === 0) {
      open.pop();
      continue;
    }
    inside.left -= 1;
    const isKey = inside.map && inside.read % 2 === 0;
    inside.read += 1;
    const head = payload[pos];
    if (isKey && !(head >= 160 && head <= 191) && !(head >= 217 && head <= 219)) {
      return { at: pos, reason: "a map key that is no str; keys must be strings" };
    }
    let items = 0;
    let map = false;
    let size = 0;
    let header = 1;
    let str2 = false;
    if (head <= 127 || head >= 224 || head >= 192 && head <= 195) {
    } else if (head <= 143) {
      [items, map] = [2 * (head & 15), true];
    } else if (head <= 159) {
      items = head & 15;
    } else if (head <= 191) {
      [str2, size] = [true, head & 31];
    } else if (head >= 199 && head <= 201 || head >= 212 && head <= 216) {
      return { at: pos, reason: "a value of type Ext, which JSON and MessagePack do not both carry" };
    } else if ((head === 202 || head === 203) && pos + (head === 202 ? 5 : 9) <= payload.length && !Number.isFinite(head === 202 ? view.getFloat32(pos + 1) : view.getFloat64(pos + 1))) {
      const value = head === 202 ? view.getFloat32(pos + 1) : view.getFloat64(pos + 1);
      return { at: pos, reason: `the float ${Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf"}, which JSON cannot carry` };
    } else if (pos + 5 > payload.length && head >= 196) {
      return void 0;
    } else {
      switch (head) {
        case 217:
          [str2, size, header] = [true, view.getUint8(pos + 1), 2];
          break;
        case 218:
          [str2, size, header] = [true, view.getUint16(pos + 1), 3];
          break;
        case 219:
          [str2, size, header] = [true, view.getUint32(pos + 1), 5];
          break;
        case 196:
          [size, header] = [view.getUint8(pos + 1), 2];
          break;
        case 197:
          [size, header] = [view.getUint16(pos + 1), 3];
          break;
        case 198:
          [size, header] = [view.getUint32(pos + 1), 5];
          break;
        case 199:
          [size, header] = [view.getUint8(pos + 1), 3];
          break;
        case 200:
          [size, header] = [view.getUint16(pos + 1), 4];
          break;
        case 201:
          [size, header] = [view.getUint32(pos + 1), 6];
          break;
        case 202:
          header = 5;
          break;
        case 203:
          header = 9;
          break;
        case 204:
        case 208:
          header = 2;
          break;
        case 205:
        case 209:
          header = 3;
          break;
        case 206:
        case 210:
          header = 5;
          break;
        case 207:
        case 211:
          header = 9;
          break;
        case 212:
          header = 3;
          break;
        case 213:
          header = 4;
          break;
        case 214:
          header = 6;
          break;
        case 215:
          header = 10;
          break;
        case 216:
          header = 18;
          break;
        case 220:
          [items, header] = [view.getUint16(pos + 1), 3];
          break;
        case 221:
          [items, header] = [view.getUint32(pos + 1), 5];
          break;
        case 222:
          [items, map, header] = [2 * view.getUint16(pos + 1), true, 3];
          break;
        case 223:
          [items, map, header] = [2 * view.getUint32(pos + 1), true, 5];
          break;
        default:
          return void 0;
      }
    }
    if (str2 && size && !(isKey && open.length === 2)) {
      const body = payload.subarray(pos + header, pos + header + size);
      if (body.some((byte) => byte >= 128)) {
        try {
          STRICT_UTF8.decode(body);
        } catch {
          return { at: pos, reason: "invalid UTF-8 in a str" };
        }
      }
    }
    pos += header + size;
    if (items > 0)
      open.push({ left: items, map, read: 0 });
  }
  return void 0;
}
function decodeMsgpack(payload) {
  const bad = refused(payload);
  if (bad !== void 0)
    throw new DecodeError(bad.reason, { offset: bad.at });
  try {
    return MSGPACK.decode(payload);
  } catch (error2) {
    throw new DecodeError(`MessagePack data is malformed: ${error2.message}`, { offset: 0 });
  }
}
function encodeMsgpack(value) {
  return encode(value, { ignoreUndefined: true });
}
var MSGPACK, MsgpackFrameDecoder;
var init_msgpack = __esm({
  "schemas/dist/msgpack.js"() {
    "use strict";
    init_dist();
    init_errors();
    init_streaming();
    MSGPACK = new Decoder();
    MsgpackFrameDecoder = class extends StreamDecoder {
      parts = [];
      // the start of an incomplete frame
      have = 0;
      // its length
      need = 4;
      // the length at which a frame may be complete
      offset = 0;
      // stream offset of the first buffered byte
      take(data2, out) {
        if (!data2.length)
          return;
        this.parts.push(data2);
        this.have += data2.length;
        if (this.have < this.need) {
          this.parts[this.parts.length - 1] = data2.slice();
          return;
        }
        const buf = concat(this.parts, this.have);
        const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
        let pos = 0;
        try {
          while (buf.length - pos >= 4) {
            const size = view.getUint32(pos);
            if (size > this.max) {
              throw new FrameError(`frame length ${size} exceeds maxFrameBytes (${this.max})`, {
                offset: this.offset + pos,
                index: this.index
              });
            }
            const end = pos + 4 + size;
            if (end > buf.length)
              break;
            const payload = buf.subarray(pos + 4, end);
            let value;
            const bad = refused(payload);
            if (bad !== void 0) {
              throw new DecodeError(bad.reason, { offset: this.offset + pos + 4 + bad.at, index: this.index });
            }
            try {
              value = MSGPACK.decode(payload);
            } catch (error2) {
              throw new DecodeError(`MessagePack data is malformed: ${error2.message}`, {
                offset: this.offset + pos + 4,
                index: this.index
              });
            }
            this.event(value, out, this.offset + pos + 4, () => payload.slice(), "msgpack");
            pos = end;
          }
        } finally {
          const rest = buf.slice(pos);
          this.parts = rest.length ? [rest] : [];
          this.have = rest.length;
          this.offset += pos;
          this.need = rest.length < 4 ? 4 : 4 + new DataView(rest.buffer).getUint32(0);
        }
      }
      end() {
        if (!this.have)
          return;
        const what = this.have < 4 ? `inside a length prefix (${this.have} of 4 bytes)` : `inside a frame (${this.have - 4} of ${this.need - 4} payload bytes)`;
        throw new FrameError(`the stream ended ${what}`, { offset: this.offset, index: this.index });
      }
    };
  }
});

// schemas/dist/index.js
init_base64();

// schemas/dist/canonical.js
init_base64();
init_fields();
var ORDER = /* @__PURE__ */ new Map();
for (const fields of Object.values(FIELDS)) {
  ORDER.set(fields, new Map(fields.map(([name], i) => [name, i])));
}
function isDefault(value, fallback) {
  if (value === void 0)
    return true;
  if (fallback === ALWAYS)
    return false;
  if (fallback === EMPTY_OBJECT) {
    return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
  }
  if (fallback === EMPTY_ARRAY)
    return Array.isArray(value) && value.length === 0;
  return value === fallback;
}
function put(obj, struct2, key, value) {
  const fields = FIELDS[struct2];
  const order = ORDER.get(fields);
  const at = order.get(key);
  if (isDefault(value, fields[at][1])) {
    if (key in obj)
      delete obj[key];
    return;
  }
  if (key in obj) {
    obj[key] = value;
    return;
  }
  const moved = [];
  for (const other of Object.keys(obj)) {
    if ((order.get(other) ?? Infinity) > at) {
      moved.push([other, obj[other]]);
      delete obj[other];
    }
  }
  obj[key] = value;
  for (const [other, v] of moved)
    define(obj, other, v);
}
function define(obj, key, value) {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}
function canonical(obj, struct2) {
  const fields = FIELDS[struct2];
  const entries = [];
  for (const [name, fallback] of fields) {
    let value = obj[name];
    if (isDefault(value, fallback))
      continue;
    if (value !== null)
      value = nested(struct2, name, value);
    entries.push([name, value]);
  }
  if (struct2 === "thinking") {
    const order = ORDER.get(fields);
    for (const key of Object.keys(obj)) {
      if (!order.has(key) && obj[key] !== void 0)
        entries.push([key, obj[key]]);
    }
  }
  const keys = Object.keys(obj);
  let same = keys.length === entries.length;
  for (let i = 0; same && i < keys.length; i++)
    same = keys[i] === entries[i][0];
  if (!same)
    for (const key of keys)
      delete obj[key];
  for (const [key, value] of entries)
    define(obj, key, value);
  return obj;
}
function nested(struct2, name, value) {
  switch (`${struct2}.${name}`) {
    case "msg.content":
      for (const block of value)
        block_(block);
      return value;
    case "msg.usage":
      return canonical(value, "usage");
    case "msg.error":
      return canonical(value, "error");
    case "hint.hint":
    case "tool_result.output":
      if (Array.isArray(value))
        for (const part of value)
          block_(part);
      return value;
    case "data.source":
      return canonical(value, value["type"] === "url" ? "url" : "base64");
    case "base64.data":
      return value instanceof Uint8Array ? encodeBase64(value) : value;
    case "tool_call.suggested_rules":
      for (const rule2 of value)
        canonical(rule2, "rule");
      return value;
    default:
      return value;
  }
}
function block_(block) {
  const type = block["type"];
  return BLOCK_TYPES.has(type) ? canonical(block, type) : block;
}
var BLOCK_TYPES = /* @__PURE__ */ new Set(["text", "thinking", "hint", "data", "tool_call", "tool_result"]);
function copyJson(value) {
  if (Array.isArray(value))
    return value.map(copyJson);
  if (value instanceof Uint8Array)
    return value.slice();
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.keys(value).map((key) => [key, copyJson(value[key])]));
  }
  return value;
}

// schemas/dist/checkpoint.js
init_errors();
init_events();
init_msgcheck();
var CHECKPOINT = "wire.checkpoint";
var RESTART = "wire.restart";
var TURN = "wire.turn";
function readCheckpoint(event) {
  if (event.type !== "CUSTOM" || !("name" in event) || event.name !== CHECKPOINT)
    return void 0;
  const value = event.value ?? {};
  if (!Object.hasOwn(value, "msg"))
    throw new DecodeError("a checkpoint without a msg", { path: "$.value.msg" });
  const msg2 = value["msg"];
  if (typeof msg2 === "object" && msg2 !== null && !Array.isArray(msg2) && !Object.hasOwn(msg2, "id")) {
    throw new DecodeError("a checkpoint whose msg has no id", { path: "$.id" });
  }
  return canonical(checkMsg(copyJson(msg2)), "msg");
}
function readTurn(event) {
  if (event.type !== "CUSTOM" || !("name" in event) || event.name !== TURN)
    return void 0;
  const msgs = (event.value ?? {})["msgs"];
  if (!Array.isArray(msgs))
    throw new DecodeError("a turn without a list of msgs", { path: "$.value.msgs" });
  return msgs.map((msg2, i) => readMsg(msg2, `$.value.msgs[${i}]`));
}
function turn(msgs) {
  const items = msgs === null ? [] : Array.isArray(msgs) ? msgs : [msgs];
  return {
    type: "CUSTOM",
    id: newId(),
    created_at: now(),
    name: TURN,
    value: { msgs: items.map((msg2) => canonical(copyJson(msg2), "msg")) }
  };
}
function readMsg(msg2, path) {
  try {
    return canonical(checkMsg(copyJson(msg2)), "msg");
  } catch (error2) {
    if (error2 instanceof DecodeError && error2.path !== void 0) {
      error2.path = path + error2.path.slice(1);
      error2.message = error2.render();
    }
    throw error2;
  }
}
function beginReply(event) {
  const msg2 = {
    name: event.name,
    content: [],
    role: event.role ?? "assistant",
    id: event.reply_id,
    created_at: event.created_at
  };
  return canonical(msg2, "msg");
}
function joinReply(replyId) {
  return canonical({ name: "", content: [], role: "assistant", id: replyId, created_at: now() }, "msg");
}
function openReply(event) {
  if (event.type === "REPLY_START" && !(event instanceof UnknownEvent))
    return beginReply(event);
  const replyId = event.reply_id;
  return joinReply(typeof replyId === "string" ? replyId : "");
}
function now() {
  return (/* @__PURE__ */ new Date()).toISOString().replace("Z", "000+00:00");
}
function newId() {
  const bytes2 = globalThis.crypto.getRandomValues(new Uint8Array(16));
  bytes2[6] = bytes2[6] & 15 | 64;
  bytes2[8] = bytes2[8] & 63 | 128;
  return Array.from(bytes2, (b) => b.toString(16).padStart(2, "0")).join("");
}

// schemas/dist/follow.js
init_errors();

// schemas/dist/sse.js
init_errors();
init_streaming();
var BOM = [239, 187, 191];
var NO_BYTES = new Uint8Array(0);
var MESSAGE = [109, 101, 115, 115, 97, 103, 101];
var MAX_RETRY = 9223372036854775807n;
var SSEDecoder = class extends StreamDecoder {
  /**
   * The id to send as `Last-Event-ID` when reconnecting: the id in force when
   * the last frame was dispatched.
   */
  lastEventId;
  /** The reconnection time in milliseconds the server asked for, if it did. */
  retry = void 0;
  /**
   * With `keepIds`: for each event the last `feed` or `close` returned (or
   * its error carried), in order, the id in force when it was dispatched. A
   * consumer that stops after the k-th of them resumes from `ids[k - 1]`,
   * never after an event it was not handed (`lastEventId` covers the whole
   * chunk); one that took them all, from `lastEventId`. Empty without it.
   */
  ids = [];
  head = NO_BYTES;
  // the first bytes, until a BOM is ruled in or out
  pos = 0;
  // stream offset of the next byte
  line = [];
  // an incomplete line
  lineLength = 0;
  lineStart = 0;
  cr = false;
  // the last byte was a CR: an LF next belongs to it
  frameStart = null;
  fields = false;
  // the frame has a field line (not only comments)
  data = [];
  dataOffset = 0;
  idBuffer;
  // the spec's "last event ID buffer"
  named = false;
  // the frame is named other than "message"
  decodeNamed;
  keepIds;
  constructor(options = {}) {
    super(options);
    this.lastEventId = this.idBuffer = options.lastEventId ?? "";
    const named = options.named ?? "skip";
    if (named !== "skip" && named !== "decode")
      throw new TypeError(`named must be "skip" or "decode", not ${named}`);
    this.decodeNamed = named === "decode";
    this.keepIds = options.keepIds ?? false;
  }
  feed(chunk) {
    if (this.keepIds)
      this.ids.length = 0;
    return super.feed(chunk);
  }
  close() {
    if (this.keepIds)
      this.ids.length = 0;
    return super.close();
  }
  take(data2, out) {
    if (this.head !== null) {
      const head = concat([this.head, data2], this.head.length + data2.length);
      const bom = head.length >= 3 && head[0] === BOM[0] && head[1] === BOM[1] && head[2] === BOM[2];
      if (!bom && head.length < 3 && head.every((byte, i2) => byte === BOM[i2])) {
        this.head = head.slice();
        return;
      }
      this.head = null;
      data2 = bom ? head.subarray(3) : head;
      if (bom)
        this.pos = 3;
    }
    let i = 0;
    if (this.cr && data2.length) {
      this.cr = false;
      if (data2[0] === 10) {
        i = 1;
        this.pos++;
      }
    }
    let lf = data2.indexOf(10, i);
    let cr = data2.indexOf(13, i);
    while (i < data2.length) {
      if (lf !== -1 && lf < i)
        lf = data2.indexOf(10, i);
      if (cr !== -1 && cr < i)
        cr = data2.indexOf(13, i);
      const eol = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (eol === -1)
        break;
      let next = eol + 1;
      if (data2[eol] === 13) {
        if (eol + 1 < data2.length) {
          if (data2[eol + 1] === 10)
            next++;
        } else {
          this.cr = true;
        }
      }
      let segment = data2.subarray(i, eol);
      let start = this.pos;
      if (this.line.length) {
        segment = concat([...this.line, segment], this.lineLength + segment.length);
        start = this.lineStart;
        this.line = [];
        this.lineLength = 0;
      }
      this.pos += next - i;
      this.parseLine(segment, start, this.pos, out);
      i = next;
    }
    if (i < data2.length) {
      const tail = data2.slice(i);
      if (!this.line.length)
        this.lineStart = this.pos;
      this.line.push(tail);
      this.lineLength += tail.length;
      this.pos += tail.length;
      if (this.frameStart === null)
        this.frameStart = this.lineStart;
      this.checkSize(this.pos);
    }
  }
  checkSize(end) {
    if (this.frameStart !== null && end - this.frameStart > this.max) {
      throw new FrameError(`frame longer than maxFrameBytes (${this.max})`, { offset: this.frameStart, index: this.index });
    }
  }
  /** One complete line starting at stream offset `start`; `end` is the offset after its line end. */
  parseLine(line, start, end, out) {
    if (!line.length) {
      this.dispatch(out);
      return;
    }
    if (this.frameStart === null)
      this.frameStart = start;
    this.checkSize(end);
    if (line[0] === 58)
      return;
    this.fields = true;
    let colon = line.indexOf(58);
    if (colon === -1)
      colon = line.length;
    let skip = Math.min(colon + 1, line.length);
    if (line[skip] === 32 && colon < line.length)
      skip++;
    const value = line.subarray(skip);
    const field = String.fromCharCode(...line.subarray(0, Math.min(colon, 6)));
    if (colon === 4 && field === "data") {
      if (!this.data.length)
        this.dataOffset = start + skip;
      this.data.push(value);
    } else if (colon === 2 && field === "id") {
      if (!value.includes(0)) {
        try {
          this.idBuffer = STRICT_UTF8.decode(value);
        } catch {
          throw new FrameError("an id that is not UTF-8", { offset: start, index: this.index });
        }
      }
    } else if (colon === 5 && field === "retry") {
      if (value.length && value.length <= 19 && value.every((b) => b >= 48 && b <= 57)) {
        const retry = BigInt(String.fromCharCode(...value));
        if (retry <= MAX_RETRY)
          this.retry = Number(retry);
      }
    } else if (colon === 5 && field === "event") {
      this.named = !this.decodeNamed && !(value.length === MESSAGE.length && value.every((b, i) => b === MESSAGE[i]));
    }
  }
  dispatch(out) {
    const data2 = this.data;
    if (data2.length) {
      const payload = data2.length === 1 ? data2[0] : joinLines(data2);
      if (!this.named && !payload.every((b) => b === 32 || b === 9 || b === 13 || b === 10)) {
        const before = out.length;
        this.json(payload, out, this.dataOffset, data2.length === 1);
        if (this.keepIds && out.length > before)
          this.ids.push(this.idBuffer);
      }
      this.data = [];
    }
    this.lastEventId = this.idBuffer;
    this.frameStart = null;
    this.fields = false;
    this.named = false;
  }
  end(out) {
    if (this.head !== null && this.head.length) {
      const head = this.head;
      this.head = null;
      this.take(head, out);
    }
    if (this.data.length || this.fields || this.line.length && this.line[0]?.[0] !== 58) {
      throw new FrameError("the stream ended inside a frame (no blank line after it)", {
        offset: this.frameStart ?? this.lineStart,
        index: this.index
      });
    }
  }
};
function joinLines(lines) {
  const total = lines.reduce((n, line) => n + line.length + 1, -1);
  const out = new Uint8Array(total);
  let at = 0;
  lines.forEach((line, i) => {
    if (i)
      out[at++] = 10;
    out.set(line, at);
    at += line.length;
  });
  return out;
}

// schemas/dist/follow.js
var RETRYABLE = /* @__PURE__ */ new Set([408, 425, 429, ...Array.from({ length: 100 }, (_, i) => 500 + i)]);
var RETRY_AFTER = /* @__PURE__ */ new Set([429, 503]);
var MAX_RETRY_AFTER_MS = 3e5;
var DEFAULTS = { initialMs: 250, maxMs: 8e3, retries: 5 };
var HTTPStatusError = class extends RemoteProtocolError {
  method;
  url;
  status;
  contentType;
  text;
  name = "HTTPStatusError";
  constructor(method, url2, status, contentType, text2, expected2) {
    super(`${method} ${url2} answered ${status} with ${contentType || "no content type"}, not ${expected2}` + (text2 ? `: ${text2}` : ""));
    this.method = method;
    this.url = url2;
    this.status = status;
    this.contentType = contentType;
    this.text = text2;
  }
};
var ConnectionFailed = class extends WireError {
  url;
  attempts;
  name = "ConnectionFailed";
  constructor(url2, attempts, cause) {
    super(`GET ${url2}: ${attempts} attempts in a row failed; the last: ${String(cause)}`, { cause });
    this.url = url2;
    this.attempts = attempts;
  }
};
function mediaType(response) {
  return (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
}
var SNIPPET = 300;
async function unexpected(response, method, url2, expected2) {
  let head = new Uint8Array(0);
  const reader = response.body?.getReader();
  try {
    while (reader !== void 0 && head.length < SNIPPET) {
      const { done, value } = await reader.read();
      if (done)
        break;
      const joined = new Uint8Array(head.length + value.length);
      joined.set(head);
      joined.set(value, head.length);
      head = joined;
    }
  } catch {
  } finally {
    void reader?.cancel().catch(() => void 0);
  }
  const text2 = new TextDecoder().decode(head.subarray(0, SNIPPET)).trim();
  return new HTTPStatusError(method, url2, response.status, response.headers.get("content-type") ?? "", text2, expected2);
}
function stopper(outer) {
  const stop = new AbortController();
  const onAbort = () => stop.abort(outer?.reason);
  if (outer?.aborted)
    onAbort();
  else
    outer?.addEventListener("abort", onAbort, { once: true });
  return { stop, release: () => outer?.removeEventListener("abort", onAbort) };
}
async function follow(url2, options, unknown, reader, position, signal) {
  const attempts = new Attempts(url2, options.backoff);
  let retryMs;
  let restarts = 0;
  for (; ; ) {
    signal.throwIfAborted();
    const startId = position.lastEventId;
    const decoder = new SSEDecoder({ lastEventId: position.lastEventId, unknown, keepIds: true });
    const outcome = await connect(url2, options, reader, position, signal, decoder);
    if (outcome === "done")
      return;
    retryMs = decoder.retry ?? retryMs;
    restarts = outcome.restart !== void 0 ? restarts + 1 : 0;
    const progressed = outcome.applied > 0 && position.lastEventId !== startId && outcome.restart === void 0;
    const { attempt, delayMs } = attempts.failed(lastFailure(outcome, restarts), progressed, retryMs, outcome.waitMs);
    options.onReconnect?.(attempt, delayMs, outcome.reason);
    await sleep(delayMs, signal);
  }
}
var Attempts = class {
  url;
  initialMs;
  maxMs;
  retries;
  failures = 0;
  constructor(url2, backoff = {}) {
    this.url = url2;
    this.initialMs = backoff.initialMs ?? DEFAULTS.initialMs;
    this.maxMs = backoff.maxMs ?? DEFAULTS.maxMs;
    this.retries = backoff.retries ?? backoff.maxAttempts ?? DEFAULTS.retries;
  }
  /**
   * A connection ended for `reason` and is to be made again: the attempt
   * that makes it (1 for the first in a row; a connection that `progressed`,
   * bringing a new entry id, starts the count over) and the wait before it:
   * `baseMs` (the server's SSE `retry`) or `initialMs`, doubled per failed
   * attempt up to `maxMs`, jittered, at least `atLeastMs` (a `Retry-After`).
   * Throws `ConnectionFailed` carrying `reason` past `retries`.
   */
  failed(reason, progressed, baseMs, atLeastMs) {
    this.failures = progressed ? 1 : this.failures + 1;
    if (this.failures > this.retries)
      throw new ConnectionFailed(this.url, this.failures, reason);
    const base = Math.min(this.maxMs, (baseMs ?? this.initialMs) * 2 ** (this.failures - 1));
    return { attempt: this.failures, delayMs: Math.max(base / 2 + Math.random() * (base / 2), atLeastMs ?? 0) };
  }
};
function lastFailure(outcome, restarts) {
  if (!restarts)
    return outcome.reason;
  const error2 = new RemoteProtocolError(`the server restarted the stream (wire.restart: ${outcome.restart}) on ${restarts} connection${restarts > 1 ? "s" : ""} in a row, then dropped it; the last drop: ${String(outcome.reason)}`);
  error2.cause = outcome.reason;
  return error2;
}
function restartReason(event) {
  if (event.type !== "CUSTOM" || !("name" in event) || event.name !== RESTART)
    return void 0;
  const value = event.value;
  const reason = typeof value === "object" && value !== null ? value.reason : void 0;
  return (reason === void 0 || reason === null ? "" : String(reason)) || "no reason given";
}
function request(url2, options, lastEventId) {
  const headers = new Headers(options.headers);
  headers.set("Accept", "text/event-stream");
  if (!lastEventId)
    return [url2, headers];
  if (options.cursor === "query") {
    const parsed = new URL(url2, globalThis.location?.href);
    parsed.searchParams.set("after", lastEventId);
    return [parsed.href, headers];
  }
  headers.set("Last-Event-ID", lastEventId);
  return [url2, headers];
}
function retryAfterMs(value, nowMs = Date.now()) {
  if (value === null)
    return void 0;
  const text2 = value.trim();
  let ms;
  if (/^\d+$/.test(text2))
    ms = Number(text2) * 1e3;
  else {
    const at = Date.parse(text2);
    if (Number.isNaN(at))
      return void 0;
    ms = at - nowMs;
  }
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}
async function connect(url2, options, reader, position, signal, decoder) {
  let applied = 0;
  let restart;
  const apply2 = (events) => {
    for (let i = 0; i < events.length; i++) {
      signal.throwIfAborted();
      const event = events[i];
      const finished = reader.apply(event);
      applied++;
      position.lastEventId = decoder.ids[i];
      restart = restartReason(event) ?? restart;
      reader.handed?.(event);
      if (finished) {
        reader.applied?.();
        return true;
      }
    }
    position.lastEventId = decoder.lastEventId;
    reader.applied?.();
    return false;
  };
  const retry = (reason, waitMs) => ({ applied, reason, waitMs, restart });
  const network = (error2) => {
    if (signal.aborted)
      throw signal.reason;
    if (!(error2 instanceof TypeError))
      throw error2;
    return retry(error2);
  };
  const closed = () => {
    reader.closed();
    return "done";
  };
  const [target, headers] = request(url2, options, position.lastEventId);
  position.connections++;
  let response;
  try {
    response = await (options.fetch ?? globalThis.fetch)(target, { headers, signal, cache: "no-store" });
  } catch (error2) {
    return network(error2);
  }
  if (response.status === 204 && reader.closed !== void 0) {
    await response.body?.cancel();
    return closed();
  }
  if (response.status !== 200 || mediaType(response) !== "text/event-stream" || response.body === null) {
    const error2 = await unexpected(response, "GET", target, "200 with text/event-stream");
    if (!RETRYABLE.has(response.status))
      throw error2;
    const wait = RETRY_AFTER.has(response.status) ? retryAfterMs(response.headers.get("retry-after")) : void 0;
    return retry(error2, wait);
  }
  const body = response.body.getReader();
  try {
    for (; ; ) {
      let chunk;
      try {
        chunk = await body.read();
      } catch (error2) {
        return network(error2);
      }
      if (chunk.done)
        break;
      const batch = decode(() => decoder.feed(chunk.value), signal);
      if (apply2(batch.events))
        return "done";
      if (batch.error !== void 0)
        throw batch.error;
    }
    const rest = decode(() => decoder.close(), signal);
    if (apply2(rest.events))
      return "done";
    if (rest.error instanceof FrameError)
      return retry(rest.error);
    if (rest.error !== void 0)
      throw rest.error;
    return reader.closed !== void 0 ? closed() : retry(new WireError("the stream ended before REPLY_END"));
  } finally {
    void body.cancel().catch(() => void 0);
  }
}
function decode(step, signal) {
  try {
    return { events: step() };
  } catch (error2) {
    if (!(error2 instanceof RemoteProtocolError) || signal.aborted)
      throw error2;
    return { events: error2.events, error: error2 };
  }
}
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

// schemas/dist/reducer.js
init_base64();
init_errors();
init_events();
init_fields();
var AnomalyKind = {
  /** reply_id differs from the Msg's id: skipped */
  OTHER_REPLY: "other_reply",
  /** delta or END before its START, or for no block: skipped */
  UNKNOWN_BLOCK: "unknown_block",
  /** START for an id that exists: the orphan block is appended */
  DUPLICATE_START: "duplicate_start",
  /** delta or END for a finished block: applied anyway */
  AFTER_END: "after_end",
  /** base64 chunk into a URL-sourced block: skipped */
  DATA_AFTER_URL: "data_after_url",
  /** a URL that is not absolute: skipped */
  INVALID_URL: "invalid_url",
  /** REQUIRE_* or USER_CONFIRM_RESULT for no call: ignored */
  UNKNOWN_TOOL_CALL: "unknown_tool_call",
  /** USER_CONFIRM_RESULT for a call that was not asking: ignored */
  NOT_ASKING: "not_asking",
  /** a block the Msg's role does not allow: skipped */
  ROLE_FORBIDS: "role_forbids",
  /** an event of a type newer than this runtime: skipped */
  UNKNOWN_EVENT: "unknown_event",
  /** a block started after the reply's REPLY_END: applied anyway, as agentscope does */
  AFTER_REPLY_END: "after_reply_end",
  /** a value of the wrong type (an event built in code, e.g. `text` where `delta` belongs): skipped */
  WRONG_TYPE: "wrong_type"
};
var STATES = /* @__PURE__ */ new WeakMap();
var ROLE_ALLOWS = Object.fromEntries(Object.entries(ROLE_BLOCKS).map(([role, rule2]) => [role, rule2 === null ? null : new Set(rule2[0])]));
function stateOf(msg2) {
  let state = STATES.get(msg2);
  if (state === void 0) {
    canonical(msg2, "msg");
    state = {
      msg: msg2,
      index: 0,
      anomalies: [],
      strict: false,
      allowed: ROLE_ALLOWS[msg2.role] ?? null,
      text: /* @__PURE__ */ new Map(),
      thinking: /* @__PURE__ */ new Map(),
      data: /* @__PURE__ */ new Map(),
      calls: /* @__PURE__ */ new Map(),
      results: /* @__PURE__ */ new Map(),
      resultData: /* @__PURE__ */ new Map()
    };
    for (const block of msg2.content)
      index(state, block);
    STATES.set(msg2, state);
  }
  return state;
}
function index(s, block) {
  const id = block.id;
  if (id === void 0)
    return;
  switch (block.type) {
    case "text":
      if (!s.text.has(id))
        s.text.set(id, block);
      return;
    case "thinking":
      if (!s.thinking.has(id))
        s.thinking.set(id, block);
      return;
    case "data":
      if (!s.data.has(id))
        s.data.set(id, block);
      return;
    case "tool_call":
      if (!s.calls.has(id))
        s.calls.set(id, block);
      return;
    case "tool_result":
      if (!s.results.has(id))
        s.results.set(id, block);
      return;
    default:
      return;
  }
}
function anomaliesOf(msg2) {
  return STATES.get(msg2)?.anomalies ?? [];
}
function appendEvent(msg2, event, options) {
  const s = stateOf(msg2);
  s.strict = options?.strict ?? false;
  const before = s.anomalies.length;
  try {
    apply(s, event);
  } finally {
    s.index++;
  }
  return s.anomalies.length > before ? s.anomalies[s.anomalies.length - 1] : void 0;
}
function extendEvents(msg2, events, options) {
  const s = stateOf(msg2);
  s.strict = options?.strict ?? false;
  const before = s.anomalies.length;
  for (const event of events) {
    try {
      apply(s, event);
    } finally {
      s.index++;
    }
  }
  return s.anomalies.slice(before);
}
function anomaly(s, kind, eventType, id, detail) {
  if (s.strict) {
    throw new StreamOrderError(`${eventType}: ${detail}${id ? ` (id ${JSON.stringify(id)})` : ""}`, kind, s.index);
  }
  s.anomalies.push(id !== void 0 && id !== null ? { index: s.index, kind, event_type: eventType, id, detail } : { index: s.index, kind, event_type: eventType, detail });
}
function find(s, table, type, id) {
  const block = table.get(id);
  if (block === void 0)
    anomaly(s, AnomalyKind.UNKNOWN_BLOCK, type, id, "no block was started with this id");
  return block;
}
function add(s, block, type, table) {
  if (typeof block.id !== "string") {
    anomaly(s, AnomalyKind.WRONG_TYPE, type, void 0, wrong("the block's id", block.id, "a string"));
    return;
  }
  if (s.msg.finished_at != null) {
    anomaly(s, AnomalyKind.AFTER_REPLY_END, type, block.id, "the reply had already ended; the block is still appended");
  }
  if (s.allowed !== null && !s.allowed.has(block.type)) {
    anomaly(s, AnomalyKind.ROLE_FORBIDS, type, block.id, `a ${s.msg.role} message cannot hold a ${JSON.stringify(block.type)} block`);
    return;
  }
  if (table !== null && block.id !== void 0 && table.has(block.id)) {
    anomaly(s, AnomalyKind.DUPLICATE_START, type, block.id, "a block with this id exists; the new one is an orphan");
    s.msg.content.push(block);
    return;
  }
  s.msg.content.push(block);
  index(s, block);
}
function finish(s, table, type, id, at) {
  const block = find(s, table, type, id);
  if (block !== void 0) {
    if (block.finished_at != null)
      anomaly(s, AnomalyKind.AFTER_END, type, id, "the block had already ended");
    block.finished_at = at;
  }
  return block;
}
function isText(s, type, field, value) {
  if (typeof value === "string")
    return true;
  anomaly(s, AnomalyKind.WRONG_TYPE, type, void 0, wrong(field, value, "a string"));
  return false;
}
function wrong(field, value, wanted) {
  const kind = value === null ? "null" : value === void 0 ? "missing" : Array.isArray(value) ? "array" : typeof value;
  return `${field} is ${kind}, not ${wanted} (an event built without its types checked); skipped`;
}
function afterEnd(s, block, type, id, detail) {
  if (block.finished_at != null)
    anomaly(s, AnomalyKind.AFTER_END, type, id, detail);
}
function apply(s, event) {
  if (event instanceof UnknownEvent || !EVENT_TYPES.has(event.type)) {
    anomaly(s, AnomalyKind.UNKNOWN_EVENT, event.type, void 0, `wire does not know the event type ${JSON.stringify(event.type)}; skipped`);
    return;
  }
  if (event.type === "CUSTOM")
    return;
  if (event.reply_id !== s.msg.id) {
    anomaly(s, AnomalyKind.OTHER_REPLY, event.type, event.reply_id, `the message's id is ${JSON.stringify(s.msg.id)}`);
    return;
  }
  const at = event.created_at ?? now2();
  const msg2 = s.msg;
  switch (event.type) {
    case "REPLY_START":
    // a continuation REPLY_START must not reset anything
    case "MODEL_CALL_START":
    case "EXCEED_MAX_ITERS":
    case "USER_INTERRUPT":
      return;
    case "REPLY_END":
      put(msg2, "msg", "finished_at", at);
      put(msg2, "msg", "finished_reason", event.finished_reason ?? "completed");
      put(msg2, "msg", "error", event.error == null ? null : canonical({ ...event.error }, "error"));
      return;
    case "MODEL_CALL_END": {
      const u = s.msg.usage;
      const usage2 = {
        input_tokens: (u?.input_tokens ?? 0) + event.input_tokens,
        output_tokens: (u?.output_tokens ?? 0) + event.output_tokens,
        cache_input_tokens: (u?.cache_input_tokens ?? 0) + (event.cache_input_tokens ?? 0),
        cache_creation_input_tokens: (u?.cache_creation_input_tokens ?? 0) + (event.cache_creation_input_tokens ?? 0)
      };
      put(msg2, "msg", "usage", canonical(usage2, "usage"));
      return;
    }
    case "TEXT_BLOCK_START":
      add(s, { type: "text", text: "", id: event.block_id, created_at: at }, event.type, s.text);
      return;
    case "TEXT_BLOCK_DELTA": {
      if (!isText(s, event.type, "delta", event.delta))
        return;
      const block = find(s, s.text, event.type, event.block_id);
      if (block === void 0)
        return;
      afterEnd(s, block, event.type, event.block_id, "a delta after the block's END is still appended");
      block.text += event.delta;
      return;
    }
    case "TEXT_BLOCK_END": {
      if (event.text != null && !isText(s, event.type, "text", event.text))
        return;
      const block = finish(s, s.text, event.type, event.block_id, at);
      if (block !== void 0 && event.text != null)
        block.text = event.text;
      return;
    }
    case "THINKING_BLOCK_START":
      add(s, { type: "thinking", thinking: "", id: event.block_id, created_at: at }, event.type, s.thinking);
      return;
    case "THINKING_BLOCK_DELTA": {
      if (!isText(s, event.type, "delta", event.delta))
        return;
      const block = find(s, s.thinking, event.type, event.block_id);
      if (block === void 0)
        return;
      afterEnd(s, block, event.type, event.block_id, "a delta after the block's END is still appended");
      block.thinking += event.delta;
      return;
    }
    case "THINKING_BLOCK_END":
      finish(s, s.thinking, event.type, event.block_id, at);
      return;
    case "DATA_BLOCK_START": {
      const block = { type: "data", id: event.block_id, source: { type: "base64", data: "", media_type: event.media_type } };
      if (event.name != null)
        block["name"] = event.name;
      block["created_at"] = at;
      add(s, block, event.type, s.data);
      return;
    }
    case "DATA_BLOCK_DELTA":
      if (event.url != null && !isText(s, event.type, "url", event.url))
        return;
      dataDelta(s, event.type, event.block_id, event.media_type, event.data ?? null, event.url ?? null);
      return;
    case "DATA_BLOCK_END":
      finish(s, s.data, event.type, event.block_id, at);
      return;
    case "HINT_BLOCK": {
      const hint2 = typeof event.hint === "string" ? event.hint : event.hint.map((part) => copyBlock(part));
      const block = { type: "hint", hint: hint2, id: event.block_id };
      if (event.source != null)
        block["source"] = event.source;
      block["created_at"] = at;
      block["finished_at"] = at;
      add(s, block, event.type, null);
      return;
    }
    case "TOOL_CALL_START":
      add(s, { type: "tool_call", id: event.tool_call_id, name: event.tool_call_name, input: "", created_at: at }, event.type, s.calls);
      return;
    case "TOOL_CALL_DELTA": {
      if (!isText(s, event.type, "delta", event.delta))
        return;
      const block = find(s, s.calls, event.type, event.tool_call_id);
      if (block === void 0)
        return;
      afterEnd(s, block, event.type, event.tool_call_id, "a delta after the block's END is still appended");
      block.input += event.delta;
      return;
    }
    case "TOOL_CALL_END":
      finish(s, s.calls, event.type, event.tool_call_id, at);
      return;
    case "TOOL_RESULT_START":
      add(s, { type: "tool_result", id: event.tool_call_id, name: event.tool_call_name, output: [], created_at: at }, event.type, s.results);
      return;
    case "TOOL_RESULT_TEXT_DELTA": {
      if (!isText(s, event.type, "delta", event.delta))
        return;
      const block = find(s, s.results, event.type, event.tool_call_id);
      if (block === void 0)
        return;
      afterEnd(s, block, event.type, event.tool_call_id, "a delta after the result's END is still appended");
      const output = outputList(block, event.id, at);
      const last = output[output.length - 1];
      if (last !== void 0 && last.type === "text")
        last.text += event.delta;
      else
        output.push({ type: "text", text: event.delta, id: event.id ?? newId2(), created_at: at });
      return;
    }
    case "TOOL_RESULT_DATA_DELTA":
      if (event.url != null && !isText(s, event.type, "url", event.url))
        return;
      resultData(s, event.type, event.tool_call_id, event.block_id ?? newId2(), event.media_type, event.data ?? null, event.url ?? null, event.id, at);
      return;
    case "TOOL_RESULT_END": {
      const block = finish(s, s.results, event.type, event.tool_call_id, at);
      if (block === void 0)
        return;
      put(block, "tool_result", "state", event.state);
      put(block, "tool_result", "metadata", copyJson(event.metadata ?? {}));
      const call = s.calls.get(event.tool_call_id);
      if (call !== void 0)
        put(call, "tool_call", "state", "finished");
      return;
    }
    case "REQUIRE_USER_CONFIRM": {
      const calls = lookUpCalls(s, event.type, event.tool_calls.map((c) => c.id));
      event.tool_calls.forEach((asked, i) => {
        const call = calls[i];
        if (call === void 0)
          return;
        put(call, "tool_call", "state", "asking");
        put(call, "tool_call", "suggested_rules", (asked.suggested_rules ?? []).map((r) => canonical({ ...r }, "rule")));
      });
      return;
    }
    case "REQUIRE_EXTERNAL_EXECUTION":
      for (const call of lookUpCalls(s, event.type, event.tool_calls.map((c) => c.id))) {
        if (call !== void 0)
          put(call, "tool_call", "state", "submitted");
      }
      return;
    case "USER_CONFIRM_RESULT": {
      const states = /* @__PURE__ */ new Map();
      const calls = lookUpCalls(s, event.type, event.confirm_results.map((r) => r.tool_call.id));
      event.confirm_results.forEach((result, i) => {
        const call = calls[i];
        if (call === void 0)
          return;
        const state = states.get(call.id) ?? call.state ?? "pending";
        if (state !== "asking") {
          anomaly(s, AnomalyKind.NOT_ASKING, event.type, call.id, `the call is ${state}, not asking`);
        } else {
          states.set(call.id, result.confirmed ? "allowed" : "finished");
        }
      });
      for (const [id, state] of states)
        put(s.calls.get(id), "tool_call", "state", state);
      return;
    }
    case "EXTERNAL_EXECUTION_RESULT": {
      const existing = new Set(s.results.keys());
      for (const result of event.execution_results) {
        if (existing.has(result.id))
          continue;
        const copy = copyBlock(result);
        if (copy["finished_at"] == null)
          put(copy, "tool_result", "finished_at", at);
        add(s, copy, event.type, null);
      }
      return;
    }
    default:
      return;
  }
}
function lookUpCalls(s, type, ids) {
  return ids.map((id) => {
    const call = s.calls.get(id);
    if (call === void 0)
      anomaly(s, AnomalyKind.UNKNOWN_TOOL_CALL, type, id, "no tool call with this id");
    return call;
  });
}
function dataDelta(s, type, id, mediaType2, data2, url2) {
  if (url2) {
    const block = find(s, s.data, type, id);
    if (block === void 0)
      return;
    const normalized = normalizeUrl2(url2);
    if (normalized === void 0) {
      anomaly(s, AnomalyKind.INVALID_URL, type, id, `not an absolute URL: ${JSON.stringify(url2)}`);
      return;
    }
    afterEnd(s, block, type, id, "a chunk after the block's END is still applied");
    block.source = { type: "url", url: normalized, media_type: mediaType2 };
  } else if (data2 !== null && data2.length > 0) {
    const block = find(s, s.data, type, id);
    if (block === void 0)
      return;
    if (block.source.type !== "base64") {
      anomaly(s, AnomalyKind.DATA_AFTER_URL, type, id, "a base64 chunk cannot follow a URL (agentscope raises AttributeError)");
      return;
    }
    afterEnd(s, block, type, id, "a chunk after the block's END is still appended");
    appendBytes(block.source, data2);
  }
}
function resultData(s, type, callId, blockId, mediaType2, data2, url2, eventId, at) {
  const block = find(s, s.results, type, callId);
  if (block === void 0)
    return;
  let source;
  if (data2 !== null) {
    source = { type: "base64", data: "", media_type: mediaType2 };
  } else {
    const normalized = normalizeUrl2(url2 ?? "");
    if (normalized === void 0) {
      anomaly(s, AnomalyKind.INVALID_URL, type, blockId, `not an absolute URL: ${JSON.stringify(url2)}`);
      return;
    }
    source = { type: "url", url: normalized, media_type: mediaType2 };
  }
  afterEnd(s, block, type, callId, "a chunk after the result's END is still applied");
  const output = outputList(block, eventId, at);
  let chunks = s.resultData.get(block.id);
  if (chunks === void 0) {
    chunks = /* @__PURE__ */ new Map();
    for (const part of output) {
      if (part.type === "data" && part.source.type === "base64" && part.id !== void 0 && !chunks.has(part.id)) {
        chunks.set(part.id, part.source);
      }
    }
    s.resultData.set(block.id, chunks);
  }
  if (data2 !== null) {
    const target = chunks.get(blockId);
    if (target !== void 0) {
      appendBytes(target, data2);
      if (mediaType2)
        target.media_type = mediaType2;
      return;
    }
    appendBytes(source, data2);
    chunks.set(blockId, source);
  }
  output.push({ type: "data", id: blockId, source, created_at: at });
}
function outputList(block, eventId, at) {
  if (typeof block.output === "string") {
    block.output = [{ type: "text", text: block.output, id: eventId ?? newId2(), created_at: at }];
  }
  return block.output;
}
function copyBlock(block) {
  return block_(copyJson(block));
}
var GROWTH = /* @__PURE__ */ new WeakMap();
function appendBytes(source, chunk) {
  let growth = GROWTH.get(source);
  if (growth === void 0) {
    const carry = { bytes: 0, value: 0 };
    const data2 = source.data;
    const padded = data2.endsWith("=");
    growth = { body: appendBase64(padded ? data2.slice(0, -4) : data2, carry, padded ? data2.slice(-4) : ""), carry };
    GROWTH.set(source, growth);
  }
  growth.body = appendBase64(growth.body, growth.carry, chunk);
  source.data = growth.carry.bytes ? growth.body + tailBase64(growth.carry) : growth.body;
}
function normalizeUrl2(url2) {
  try {
    return new URL(url2).href;
  } catch {
    return void 0;
  }
}
function newId2() {
  const bytes2 = crypto.getRandomValues(new Uint8Array(16));
  let out = "";
  for (const byte of bytes2)
    out += byte.toString(16).padStart(2, "0");
  return out;
}
function now2() {
  return `${(/* @__PURE__ */ new Date()).toISOString().slice(0, 23)}000+00:00`;
}

// schemas/dist/client.js
var ReplyRequestError = HTTPStatusError;
function followReply(url2, options = {}) {
  const { stop, release } = stopper(options.signal);
  const state = {
    msg: options.msg,
    lastEventId: options.lastEventId ?? "",
    connections: 0
  };
  const reader = {
    apply: (event) => applyOne(event, state),
    // After a wire.restart, an empty Msg, so that a page clears what it showed.
    handed: (event) => options.onEvent?.(event, state.msg ?? { name: "", content: [], role: "assistant" })
  };
  const done = follow(String(url2), options, options.unknown ?? "skip", reader, state, stop.signal).then(() => {
    const msg2 = state.msg;
    options.onComplete?.(msg2);
    return msg2;
  }).finally(release);
  return {
    get msg() {
      return state.msg;
    },
    get lastEventId() {
      return state.lastEventId;
    },
    get connections() {
      return state.connections;
    },
    done,
    close: () => stop.abort(new DOMException("followReply closed", "AbortError"))
  };
}
function applyOne(event, state) {
  if (event.type === "CUSTOM" && "name" in event && event.name === RESTART) {
    state.msg = void 0;
    return false;
  }
  const snapshot = readCheckpoint(event);
  if (snapshot !== void 0) {
    state.msg = snapshot;
  } else {
    state.msg ??= openReply(event);
    appendEvent(state.msg, event);
  }
  return event.type === "REPLY_END" || snapshot !== void 0 && snapshot.finished_at != null;
}

// schemas/dist/conversation.js
init_errors();
init_events();
var TERMINAL = /* @__PURE__ */ new Set(["REPLY_END", "REQUIRE_USER_CONFIRM", "REQUIRE_EXTERNAL_EXECUTION"]);
var OPENING = /* @__PURE__ */ new Set(["REPLY_START", "USER_CONFIRM_RESULT", "EXTERNAL_EXECUTION_RESULT"]);
var Session = class {
  /** Every reply's Msg by reply id, in the order the replies began. */
  replies = /* @__PURE__ */ new Map();
  /** The replies between their start (or answer) and their end or park. */
  open = /* @__PURE__ */ new Set();
  /** The `wire.turn` event whose reply has not begun yet. */
  turn = void 0;
  /** The replies a USER_INTERRUPT named that have not ended since. */
  interrupted = /* @__PURE__ */ new Set();
  /** The CUSTOM events that are neither checkpoints nor restarts, in order. */
  custom = [];
  /** Whether the session is closed: every input is refused. */
  closed = false;
  constructor(...msgs) {
    for (const msg2 of msgs)
      this.replies.set(msg2.id ?? "", msg2);
  }
  /** The Msg of the reply that began last. */
  get last() {
    let last;
    for (const msg2 of this.replies.values())
      last = msg2;
    return last;
  }
  /**
   * Apply `events` in order; what they changed. A checkpoint of the Msg this
   * session holds already (a reconnect's) changes nothing; a checkpoint
   * whose Msg is not one throws DecodeError. Each event is applied on its
   * own, so any split of a log into batches builds the same state.
   */
  apply(events) {
    if (typeof events?.[Symbol.iterator] !== "function") {
      throw new LocalProtocolError("Session.apply takes a list of events: apply([event]) for one");
    }
    const touched = /* @__PURE__ */ new Set();
    let turned = false;
    for (const event of events) {
      if (event instanceof UnknownEvent)
        continue;
      if (event.type === "CUSTOM") {
        const changed = this.custom_(event);
        if (changed === RESTART) {
          touched.clear();
          turned = true;
        } else if (changed !== void 0) {
          touched.add(changed);
        }
        continue;
      }
      const replyId = event.reply_id;
      if (typeof replyId !== "string")
        continue;
      if (event.type === "USER_INTERRUPT" && this.turn !== void 0 && this.turn.id === replyId) {
        this.turn = void 0;
        turned = true;
        continue;
      }
      touched.add(replyId);
      turned = this.one(replyId, event) || turned;
    }
    return { replies: [...touched], turned };
  }
  /** The name wire.resume.Conversation had: `apply`. */
  extend(events) {
    return this.apply(events);
  }
  /** A CUSTOM event: the reply a checkpoint changed, RESTART, or undefined. */
  custom_(event) {
    if (event.name === CHECKPOINT) {
      const msg2 = readCheckpoint(event);
      const id = msg2.id ?? "";
      const held = this.replies.get(id);
      if (held !== void 0 && sameMsg(held, msg2))
        return void 0;
      this.replies.set(id, msg2);
      return id;
    }
    if (event.name === RESTART) {
      this.replies.clear();
      this.open.clear();
      this.interrupted.clear();
      this.custom.length = 0;
      this.turn = void 0;
      return RESTART;
    }
    if (event.name === TURN)
      this.turn = event;
    this.custom.push(event);
    return void 0;
  }
  /** An event of reply `replyId`; whether the reply began, was taken on, ended or parked. */
  one(replyId, event) {
    let msg2 = this.replies.get(replyId);
    if (msg2 === void 0) {
      msg2 = event.type === "REPLY_START" ? beginReply(event) : joinReply(replyId);
      this.replies.set(replyId, msg2);
      if (event.type === "REPLY_START")
        this.turn = void 0;
    }
    appendEvent(msg2, event);
    if (TERMINAL.has(event.type)) {
      this.open.delete(replyId);
      if (event.type === "REPLY_END")
        this.interrupted.delete(replyId);
      return true;
    }
    if (OPENING.has(event.type) && !this.open.has(replyId)) {
      this.open.add(replyId);
      return true;
    }
    if (event.type === "USER_INTERRUPT")
      this.interrupted.add(replyId);
    return false;
  }
  /**
   * Why the session cannot take `input` now, or `undefined` when it can; the
   * server's reason word for word (wire.session.Session.refusal), so a page
   * can tell before posting:
   *
   * - nothing is taken once the session is closed;
   * - an answer must name a reply of the session that waits for that kind of
   *   answer; a confirmation must name only calls that await one, each once
   *   (answering twice is refused); an external result likewise. Answering
   *   some of the waiting calls is taken (the others keep waiting). A reply
   *   that was interrupted waits for nothing more;
   * - an interrupt must name a reply that is running or parked (and not
   *   interrupted already), or the pending turn;
   * - a new turn (a Msg, a list of them, or null) is refused while a turn is
   *   pending (its reply has not begun: a double submit), or a reply is
   *   parked (answer or interrupt it first) or running.
   */
  refusal(input) {
    if (this.closed)
      return "the session is closed";
    if (isAnswer(input))
      return this.answerRefusal(input);
    if (this.turn !== void 0) {
      return `turn ${pyRepr(this.turn.id ?? "")} is waiting for its reply to begin: wait for it, or interrupt it (a USER_INTERRUPT naming the turn's id)`;
    }
    for (const msg2 of this.replies.values()) {
      const state = waiting(msg2);
      if (state.state === "parked" && !this.interrupted.has(msg2.id ?? "")) {
        const calls = [...state.confirm, ...state.external].map((call) => call.id).join(", ");
        return `reply ${pyRepr(msg2.id ?? "")} waits for an answer about ${calls}: answer or interrupt it first`;
      }
      if (state.state !== "ended")
        return `reply ${pyRepr(msg2.id ?? "")} is still running`;
    }
    return void 0;
  }
  /**
   * Whether a reader's run is over: the reply asked for (or, for a turn, the
   * latest reply, once the reader had news of it: `news` holds the replies
   * it had news of) has ended or parked (wire.session.Session.finished).
   */
  finished(options, news = /* @__PURE__ */ new Set()) {
    let replyId = options.replyId;
    if (replyId === void 0 && options.turn) {
      const last = this.last;
      if (last === void 0 || !news.has(last.id ?? ""))
        return false;
      replyId = last.id ?? "";
    }
    if (replyId === void 0)
      return false;
    const msg2 = this.replies.get(replyId);
    return msg2 !== void 0 && waiting(msg2).state !== "running";
  }
  answerRefusal(input) {
    if (input.type === "USER_INTERRUPT" && this.turn !== void 0 && this.turn.id === input.reply_id)
      return void 0;
    const msg2 = this.replies.get(input.reply_id);
    if (msg2 === void 0)
      return `the session has no reply ${pyRepr(input.reply_id)}`;
    const state = waiting(msg2);
    const id = pyRepr(msg2.id ?? "");
    if (state.state === "ended")
      return `reply ${id} is over: it waits for nothing`;
    if (this.interrupted.has(msg2.id ?? ""))
      return `reply ${id} was interrupted: it waits for nothing more`;
    if (input.type === "USER_INTERRUPT")
      return void 0;
    const [kind, pending, named] = input.type === "USER_CONFIRM_RESULT" ? ["confirmation", state.confirm, input.confirm_results.map((result) => result.tool_call.id)] : ["external result", state.external, input.execution_results.map((result) => result.id)];
    if (pending.length === 0)
      return `reply ${id} waits for no ${kind}`;
    const seen = /* @__PURE__ */ new Set();
    for (const callId of named) {
      if (seen.has(callId))
        return `the ${kind} names tool call ${pyRepr(callId)} twice`;
      seen.add(callId);
    }
    if (named.length === 0)
      return `the ${kind} answers no tool call`;
    const awaited = new Set(pending.map((call) => call.id));
    const stray = named.find((callId) => !awaited.has(callId));
    if (stray !== void 0) {
      return `tool call ${pyRepr(stray)} awaits no ${kind} (reply ${id} waits for ${[...awaited].sort(byCodePoint).join(", ")})`;
    }
    return void 0;
  }
};
function sameMsg(held, msg2) {
  return sameJson(canonical(copyJson(held), "msg"), msg2);
}
function sameJson(a, b) {
  if (a === b)
    return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null)
    return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length)
      return false;
    return a.every((item, i) => sameJson(item, b[i]));
  }
  const x = a;
  const y = b;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length)
    return false;
  return keys.every((key) => Object.hasOwn(y, key) && sameJson(x[key], y[key]));
}
function waiting(msg2) {
  const replyId = msg2.id ?? "";
  if (msg2.finished_at != null)
    return { replyId, state: "ended", confirm: [], external: [] };
  const results = new Set(msg2.content.filter((block) => block.type === "tool_result").map((block) => block.id));
  const confirm = [];
  const external = [];
  for (const block of msg2.content) {
    if (block.type !== "tool_call")
      continue;
    if (block.state === "asking")
      confirm.push(block);
    else if (block.state === "submitted" && !results.has(block.id))
      external.push(block);
  }
  return { replyId, state: confirm.length || external.length ? "parked" : "running", confirm, external };
}
function confirmation(msg2, confirmed) {
  const results = waiting(msg2).confirm.map((call) => {
    const allowed = typeof confirmed === "boolean" ? confirmed : confirmed[call.id];
    if (typeof allowed !== "boolean")
      throw new LocalProtocolError(`no decision for tool call ${JSON.stringify(call.id)}`);
    return { confirmed: allowed, tool_call: call };
  });
  return { type: "USER_CONFIRM_RESULT", reply_id: msg2.id ?? "", confirm_results: results };
}
var ANSWERS = /* @__PURE__ */ new Set(["USER_CONFIRM_RESULT", "EXTERNAL_EXECUTION_RESULT", "USER_INTERRUPT"]);
function isAnswer(input) {
  return input !== null && !Array.isArray(input) && ANSWERS.has(input.type);
}
function refusal(input, replies) {
  return new Session(...replies.values()).refusal(input);
}
function byCodePoint(a, b) {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d !== 0)
      return d;
  }
  return x.length - y.length;
}
var UNPRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;
function pyRepr(text2) {
  const quote2 = text2.includes("'") && !text2.includes('"') ? '"' : "'";
  let out = quote2;
  for (const ch of text2) {
    const code = ch.codePointAt(0);
    if (ch === quote2 || ch === "\\")
      out += "\\" + ch;
    else if (ch === "\n")
      out += "\\n";
    else if (ch === "\r")
      out += "\\r";
    else if (ch === "	")
      out += "\\t";
    else if (ch !== " " && UNPRINTABLE.test(ch)) {
      out += code < 256 ? `\\x${hex(code, 2)}` : code < 65536 ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
    } else
      out += ch;
  }
  return out + quote2;
}
function hex(code, width) {
  return code.toString(16).padStart(width, "0");
}
function userMsg(name, text2) {
  return {
    name,
    content: [{ type: "text", text: text2, id: randomId() }],
    role: "user",
    id: randomId(),
    created_at: (/* @__PURE__ */ new Date()).toISOString()
  };
}
function randomId() {
  const bytes2 = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes2);
  return Array.from(bytes2, (b) => b.toString(16).padStart(2, "0")).join("");
}

// schemas/dist/index.js
init_errors();
init_events();
init_msgpack();

// schemas/dist/ndjson.js
init_errors();
init_streaming();
var BLANK = /^[ \t\r]*$/;
var NDJSONDecoder = class extends StreamDecoder {
  parts = [];
  // the incomplete last line, as it came
  pending = 0;
  // its length
  offset = 0;
  // stream offset of the incomplete line
  take(data2, out) {
    const last = data2.lastIndexOf(10);
    if (last < 0) {
      this.keep(data2);
      return;
    }
    const head = data2.subarray(0, last + 1);
    const region = this.parts.length ? concat([...this.parts, head], this.pending + head.length) : head;
    this.parts = [];
    this.pending = 0;
    const base = this.offset;
    this.offset = base + region.length;
    if (!this.fast(region, out))
      this.lines(region, base, out);
    if (last + 1 < data2.length)
      this.keep(data2.slice(last + 1));
  }
  keep(data2) {
    if (this.pending + data2.length > this.max) {
      throw new FrameError(`line longer than maxFrameBytes (${this.max})`, { offset: this.offset, index: this.index });
    }
    if (data2.length) {
      this.parts.push(data2.slice());
      this.pending += data2.length;
    }
  }
  /** The lines of `region` (whole lines) decoded in one go; false, with nothing changed, if any is wrong. */
  fast(region, out) {
    let text2;
    try {
      text2 = STRICT_UTF8.decode(region);
    } catch {
      return false;
    }
    const lines = text2.split("\n");
    lines.pop();
    if (region.length - lines.length > this.max)
      return false;
    const start = out.length;
    const index2 = this.index;
    try {
      for (let line of lines) {
        if (line.charCodeAt(line.length - 1) === 13)
          line = line.slice(0, -1);
        const first = line.charCodeAt(0);
        if ((first === 32 || first === 9 || first === 13 || line.length === 0) && BLANK.test(line))
          continue;
        this.json(line, out, 0, false);
      }
    } catch (error2) {
      if (!(error2 instanceof DecodeError))
        throw error2;
      out.length = start;
      this.index = index2;
      return false;
    }
    return true;
  }
  /** Whole lines one by one from stream offset `base`: exact offsets and indexes. */
  lines(region, base, out) {
    let start = 0;
    while (start < region.length) {
      const end = region.indexOf(10, start);
      const line = region.subarray(start, end);
      if (line.length > this.max) {
        throw new FrameError(`line longer than maxFrameBytes (${this.max})`, { offset: base + start, index: this.index });
      }
      this.line(line, base + start, out);
      start = end + 1;
    }
  }
  line(line, offset, out) {
    if (line[line.length - 1] === 13)
      line = line.subarray(0, -1);
    if (line.every((byte) => byte === 32 || byte === 9 || byte === 13))
      return;
    this.json(line, out, offset);
  }
  end(out) {
    if (!this.parts.length)
      return;
    const line = concat(this.parts, this.pending);
    this.parts = [];
    try {
      this.line(line, this.offset, out);
    } catch (error2) {
      if (!(error2 instanceof DecodeError))
        throw error2;
      const framing = new FrameError("the stream ended inside a line that is not a whole event", {
        offset: this.offset,
        index: this.index
      });
      framing.cause = error2;
      throw framing;
    }
  }
};

// schemas/dist/partial.js
init_errors();
var PartialJSONError = class extends DecodeError {
  name = "PartialJSONError";
  position;
  constructor(reason, position, path) {
    super(reason, { path });
    this.position = position;
    this.message = this.render();
  }
  render() {
    return this.position === void 0 ? super.render() : `${this.reason} (character ${this.position}, at ${this.path})`;
  }
};
var NUMBER_MOVES = [
  {
    "-": 1,
    "0": 2,
    "1": 3
    /* N.Int */
  },
  // Start
  {
    "0": 2,
    "1": 3
    /* N.Int */
  },
  // Minus
  {
    ".": 4,
    e: 6
    /* N.E */
  },
  // Zero
  {
    "0": 3,
    "1": 3,
    ".": 4,
    e: 6
    /* N.E */
  },
  // Int
  {
    "0": 5,
    "1": 5
    /* N.Frac */
  },
  // Dot
  {
    "0": 5,
    "1": 5,
    e: 6
    /* N.E */
  },
  // Frac
  {
    "-": 7,
    "+": 7,
    "0": 8,
    "1": 8
    /* N.Exp */
  },
  // E
  {
    "0": 8,
    "1": 8
    /* N.Exp */
  },
  // ESign
  {
    "0": 8,
    "1": 8
    /* N.Exp */
  }
  // Exp
];
var NUMBER_ENDS = /* @__PURE__ */ new Set([
  2,
  3,
  5,
  8
  /* N.Exp */
]);
function numberClass(char) {
  if (char >= "1" && char <= "9")
    return "1";
  switch (char) {
    case "0":
    case "-":
    case "+":
    case ".":
      return char;
    case "e":
    case "E":
      return "e";
    default:
      return void 0;
  }
}
var ESCAPES = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "	"
};
var LITERALS = {
  t: ["true", true],
  f: ["false", false],
  n: ["null", null]
};
var WHITESPACE = /[ \t\n\r]*/y;
var PLAIN = /[^"\\\u0000-\u001f]+/y;
var HEX = /^[0-9a-fA-F]$/;
var IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
var PartialJSON = class {
  #mode = 0;
  #offset = 0;
  // characters fed before the current fragment
  #root = void 0;
  // Open containers, outermost first, and for each its current key (objects) or undefined (arrays).
  #stack = [];
  #keys = [];
  #string = "";
  #stringIsKey = false;
  #escape = "";
  #high = -1;
  // a high surrogate escape waiting for its pair, or -1
  #number = "";
  #numberState = 0;
  #literal = "";
  #literalValue = null;
  #matched = 0;
  #closed = false;
  #error = void 0;
  /**
   * The value parsed so far, open strings, arrays and objects closed;
   * `undefined` before any value has begun. The containers are the parser's
   * own and keep growing in place (copy them to keep a snapshot).
   */
  get value() {
    return this.#root;
  }
  /** Whether the whole top-level value has been read. */
  get complete() {
    return this.#mode === 6;
  }
  /** The number of characters (UTF-16 code units) fed so far. */
  get length() {
    return this.#offset;
  }
  /**
   * Parse the next fragment. Throws PartialJSONError at the first character
   * that cannot be JSON; `value` then still holds what came before it.
   */
  feed(fragment) {
    if (this.#error !== void 0)
      throw new LocalProtocolError("feed() after a PartialJSONError: the text is not JSON");
    if (this.#closed)
      throw new LocalProtocolError("feed() after close()");
    try {
      this.#parse(fragment);
    } catch (error2) {
      if (error2 instanceof PartialJSONError)
        this.#error = error2;
      throw error2;
    }
    this.#offset += fragment.length;
  }
  /** End the text and return the complete value; throws PartialJSONError if it stopped inside a value. */
  close() {
    if (this.#error !== void 0)
      throw new LocalProtocolError("close() after a PartialJSONError: the text is not JSON");
    if (!this.#closed) {
      this.#closed = true;
      if (this.#mode === 9 && NUMBER_ENDS.has(this.#numberState) && this.#stack.length === 0) {
        this.#endNumber(this.#offset);
      }
      if (this.#mode !== 6) {
        const empty = this.#mode === 0 && this.#stack.length === 0;
        this.#error = this.#fail(empty ? "no JSON value" : "the JSON text ends inside a value", this.#offset);
        throw this.#error;
      }
    }
    return this.#root;
  }
  #parse(text2) {
    let i = 0;
    const n = text2.length;
    while (i < n) {
      const mode = this.#mode;
      if (mode === 7) {
        i = this.#stringRun(text2, i, n);
        continue;
      }
      if (mode === 8) {
        i = this.#escapeRun(text2, i, n);
        continue;
      }
      if (mode === 9) {
        i = this.#numberRun(text2, i, n);
        continue;
      }
      if (mode === 10) {
        i = this.#literalRun(text2, i, n);
        continue;
      }
      WHITESPACE.lastIndex = i;
      WHITESPACE.test(text2);
      i = WHITESPACE.lastIndex;
      if (i === n)
        break;
      const char = text2[i];
      const at = this.#offset + i;
      if (mode === 5) {
        const isObject3 = !Array.isArray(this.#stack[this.#stack.length - 1]);
        if (char === ",") {
          this.#mode = isObject3 ? 3 : 0;
        } else if (char === (isObject3 ? "}" : "]")) {
          this.#endContainer();
        } else {
          throw this.#fail(`expected ',' or '${isObject3 ? "}" : "]"}' after a value, not ${quote(char)}`, at);
        }
        i += 1;
      } else if (mode === 0 || mode === 1) {
        if (char === "]" && mode === 1) {
          this.#endContainer();
          i += 1;
        } else {
          i = this.#beginValue(char, i, at);
        }
      } else if (mode === 3 || mode === 2) {
        if (char === '"') {
          this.#beginString(true);
        } else if (char === "}" && mode === 2) {
          this.#endContainer();
        } else {
          const expected2 = mode === 2 ? "a key or '}'" : "a key";
          throw this.#fail(`expected ${expected2} (a string), not ${quote(char)}`, at);
        }
        i += 1;
      } else if (mode === 4) {
        if (char !== ":")
          throw this.#fail(`expected ':' after an object key, not ${quote(char)}`, at);
        this.#mode = 0;
        i += 1;
      } else {
        throw this.#fail(`extra data after the JSON value: ${quote(char)}`, at);
      }
    }
  }
  #beginValue(char, i, at) {
    if (char === '"') {
      this.#beginString(false);
      this.#placeNew("");
      return i + 1;
    }
    if (char === "{" || char === "[") {
      const container = char === "{" ? {} : [];
      this.#placeNew(container);
      this.#stack.push(container);
      this.#keys.push(void 0);
      this.#mode = char === "{" ? 2 : 1;
      return i + 1;
    }
    if (char === "-" || char >= "0" && char <= "9") {
      this.#number = "";
      this.#numberState = 0;
      this.#mode = 9;
      return i;
    }
    const literal = LITERALS[char];
    if (literal !== void 0) {
      [this.#literal, this.#literalValue] = literal;
      this.#matched = 0;
      this.#mode = 10;
      return i;
    }
    throw this.#fail(`expected a JSON value, not ${quote(char)}`, at);
  }
  #beginString(isKey) {
    this.#string = "";
    this.#stringIsKey = isKey;
    this.#mode = 7;
  }
  /** Append decoded text to the open string, and show it if it is a value. */
  #grow(piece) {
    this.#string += piece;
    if (!this.#stringIsKey)
      this.#place(this.#string);
  }
  #stringRun(text2, i, n) {
    PLAIN.lastIndex = i;
    if (PLAIN.test(text2)) {
      if (this.#high >= 0)
        this.#flushHigh();
      this.#grow(text2.slice(i, PLAIN.lastIndex));
      i = PLAIN.lastIndex;
      if (i === n)
        return i;
    }
    const char = text2[i];
    if (char === '"') {
      this.#endString();
    } else if (char === "\\") {
      this.#escape = "\\";
      this.#mode = 8;
    } else {
      throw this.#fail(`control character ${quote(char)} in a string: it must be escaped`, this.#offset + i);
    }
    return i + 1;
  }
  #escapeRun(text2, i, n) {
    let escape = this.#escape;
    for (; i < n; i++) {
      const char = text2[i];
      if (escape.length === 1) {
        if (char === "u") {
          escape = "\\u";
          continue;
        }
        const decoded = ESCAPES[char];
        if (decoded === void 0)
          throw this.#fail(`invalid escape '\\${char}' in a string`, this.#offset + i);
        if (this.#high >= 0)
          this.#flushHigh();
        this.#grow(decoded);
        this.#mode = 7;
        return i + 1;
      }
      if (!HEX.test(char)) {
        throw this.#fail(`invalid \\u escape: ${quote(char)} is not a hex digit`, this.#offset + i);
      }
      escape += char;
      if (escape.length === 6) {
        this.#codeUnit(parseInt(escape.slice(2), 16));
        this.#mode = 7;
        return i + 1;
      }
    }
    this.#escape = escape;
    return i;
  }
  /** One \uXXXX escape; a high surrogate waits to see whether its low one follows, so that the view never ends in half a character. */
  #codeUnit(unit) {
    if (this.#high >= 0) {
      if (unit >= 56320 && unit <= 57343) {
        this.#grow(String.fromCharCode(this.#high, unit));
        this.#high = -1;
        return;
      }
      this.#flushHigh();
    }
    if (unit >= 55296 && unit <= 56319)
      this.#high = unit;
    else
      this.#grow(String.fromCharCode(unit));
  }
  #flushHigh() {
    const high = this.#high;
    this.#high = -1;
    this.#grow(String.fromCharCode(high));
  }
  #endString() {
    if (this.#high >= 0)
      this.#flushHigh();
    const text2 = this.#string;
    this.#string = "";
    if (this.#stringIsKey) {
      this.#keys[this.#keys.length - 1] = text2;
      this.#mode = 4;
    } else {
      this.#place(text2);
      this.#endValue();
    }
  }
  #numberRun(text2, i, n) {
    let state = this.#numberState;
    const start = i;
    for (; i < n; i++) {
      const cls = numberClass(text2[i]);
      if (cls === void 0)
        break;
      const moved = NUMBER_MOVES[state][cls];
      if (moved === void 0) {
        const before = this.#number + text2.slice(start, i);
        throw this.#fail(`invalid number: ${quote(text2[i])} cannot follow ${quote(before)}`, this.#offset + i);
      }
      state = moved;
    }
    this.#number += text2.slice(start, i);
    this.#numberState = state;
    if (i < n)
      this.#endNumber(this.#offset + i);
    return i;
  }
  #endNumber(at) {
    if (!NUMBER_ENDS.has(this.#numberState))
      throw this.#fail(`incomplete number ${quote(this.#number)}`, at);
    this.#placeNew(Number(this.#number));
    this.#endValue();
  }
  #literalRun(text2, i, n) {
    const want = this.#literal.slice(this.#matched);
    const take = text2.slice(i, Math.min(n, i + want.length));
    for (let k = 0; k < take.length; k++) {
      if (take[k] !== want[k])
        throw this.#fail(`invalid literal: expected '${this.#literal}'`, this.#offset + i + k);
    }
    this.#matched += take.length;
    if (this.#matched === this.#literal.length) {
      this.#placeNew(this.#literalValue);
      this.#endValue();
    }
    return i + take.length;
  }
  /** Put a value that has just begun where it belongs. */
  #placeNew(value) {
    const container = this.#stack[this.#stack.length - 1];
    if (container === void 0)
      this.#root = value;
    else if (Array.isArray(container))
      container.push(value);
    else
      setMember(container, this.#keys[this.#keys.length - 1], value);
  }
  /** Replace the value being parsed (the open string) with `value`. */
  #place(value) {
    const container = this.#stack[this.#stack.length - 1];
    if (container === void 0)
      this.#root = value;
    else if (Array.isArray(container))
      container[container.length - 1] = value;
    else
      setMember(container, this.#keys[this.#keys.length - 1], value);
  }
  #endValue() {
    this.#mode = this.#stack.length > 0 ? 5 : 6;
  }
  #endContainer() {
    this.#stack.pop();
    this.#keys.pop();
    this.#endValue();
  }
  #fail(reason, position) {
    return new PartialJSONError(reason, position, this.#path());
  }
  /** Where the parser is, as a JSON path: the keys and indexes of the open containers down to the value being read. */
  #path() {
    let path = "$";
    const last = this.#stack.length - 1;
    const mode = this.#mode;
    const readingKey = mode === 3 || mode === 2 || this.#stringIsKey && (mode === 7 || mode === 8);
    this.#stack.forEach((container, depth) => {
      const innermost = depth === last;
      if (Array.isArray(container)) {
        const pending = innermost && (mode === 0 || mode === 1 || mode === 9 || mode === 10);
        if (container.length > 0 || pending)
          path += `[${pending ? container.length : container.length - 1}]`;
      } else {
        const key = this.#keys[depth];
        if (key !== void 0 && !(innermost && readingKey)) {
          path += IDENTIFIER.test(key) ? `.${key}` : `[${asciiJSON(key)}]`;
        }
      }
    });
    return path;
  }
};
function setMember(obj, key, value) {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}
function asciiJSON(text2) {
  return JSON.stringify(text2).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
function quote(text2) {
  return `'${text2.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n")}'`;
}

// schemas/dist/session.js
init_errors();
function followSession(url2, options = {}) {
  const { stop, release } = stopper(options.signal);
  const state = {
    conversation: options.conversation ?? new Session(),
    lastEventId: options.lastEventId ?? "",
    connections: 0,
    closed: false,
    waiters: /* @__PURE__ */ new Set()
  };
  let msg2;
  const reader = {
    apply(event) {
      const changed = state.conversation.apply([event]).replies[0];
      msg2 = changed === void 0 ? void 0 : state.conversation.replies.get(changed);
      return false;
    },
    handed(event) {
      options.onEvent?.(event, msg2, state.conversation);
    },
    applied() {
      for (const waiter of state.waiters) {
        const value = waiter.check(state.conversation);
        if (value !== void 0 && value !== false) {
          state.waiters.delete(waiter);
          waiter.resolve(value);
        }
      }
    },
    closed() {
      state.closed = true;
    }
  };
  let ended;
  const done = follow(String(url2), options, options.unknown ?? "keep", reader, state, stop.signal).then(() => {
    ended = { error: new WireError(`${String(url2)}: the session ended before what was waited for`) };
    for (const waiter of state.waiters)
      waiter.reject(ended.error);
    return state.conversation;
  }, (error2) => {
    ended = { error: error2 };
    for (const waiter of state.waiters)
      waiter.reject(error2);
    throw error2;
  }).finally(release);
  done.catch(() => void 0);
  function waitFor(check) {
    const now3 = check(state.conversation);
    if (now3 !== void 0 && now3 !== false)
      return Promise.resolve(now3);
    if (ended !== void 0)
      return Promise.reject(ended.error);
    return new Promise((resolve, reject) => {
      state.waiters.add({ check, resolve, reject });
    });
  }
  return {
    get conversation() {
      return state.conversation;
    },
    get lastEventId() {
      return state.lastEventId;
    },
    get connections() {
      return state.connections;
    },
    get closed() {
      return state.closed;
    },
    done,
    waitFor,
    settled: (replyId) => waitFor((c) => {
      return c.finished({ replyId }) ? c.replies.get(replyId) : void 0;
    }),
    close: () => stop.abort(new DOMException("followSession closed", "AbortError"))
  };
}
var MAX_ANSWER_BYTES = 1 << 20;
var ResponseTooLarge = class extends RemoteProtocolError {
  method;
  url;
  limit;
  name = "ResponseTooLarge";
  constructor(method, url2, limit) {
    super(`${method} ${url2}: the response body is longer than the limit of ${limit} bytes (maxBytes)`);
    this.method = method;
    this.url = url2;
    this.limit = limit;
  }
};
async function bounded(response, method, url2, limit) {
  const length = response.headers.get("content-length")?.trim() ?? "";
  if (/^\d+$/.test(length) && Number(length) > limit) {
    void response.body?.cancel().catch(() => void 0);
    throw new ResponseTooLarge(method, url2, limit);
  }
  if (response.body === null)
    return "";
  const reader = response.body.getReader();
  const chunks = [];
  let size = 0;
  try {
    for (; ; ) {
      const { done, value } = await reader.read();
      if (done)
        break;
      size += value.length;
      if (size > limit)
        throw new ResponseTooLarge(method, url2, limit);
      chunks.push(value);
    }
  } finally {
    void reader.cancel().catch(() => void 0);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(body);
}
async function answer(url2, options) {
  const limit = options.maxBytes ?? MAX_ANSWER_BYTES;
  if (!(limit >= 1))
    throw new RangeError(`maxBytes must be positive, not ${limit}`);
  const target = String(url2);
  const body = JSON.stringify({ agent_id: options.agentId, session_id: options.sessionId, input: options.input });
  const headers = new Headers(options.headers);
  headers.set("Content-Type", "application/json");
  const init = { method: "POST", headers, body };
  if (options.signal !== void 0)
    init.signal = options.signal;
  let response;
  try {
    response = await (options.fetch ?? globalThis.fetch)(target, init);
  } catch (error2) {
    if (!(error2 instanceof TypeError))
      throw error2;
    throw new ConnectionFailed(target, 1, error2);
  }
  if (response.status < 200 || response.status >= 300 || mediaType(response) !== "application/json") {
    throw await unexpected(response, "POST", target, "2xx with application/json");
  }
  let text2;
  try {
    text2 = await bounded(response, "POST", target, limit);
  } catch (error2) {
    if (!(error2 instanceof TypeError))
      throw error2;
    throw new ConnectionFailed(target, 1, error2);
  }
  let fields;
  try {
    fields = JSON.parse(text2);
  } catch {
    fields = void 0;
  }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
    throw new HTTPStatusError("POST", target, response.status, response.headers.get("content-type") ?? "", text2.slice(0, SNIPPET), "a JSON object");
  }
  const { session_id: sessionId, entry_id: entryId } = fields;
  return {
    status: response.status,
    sessionId: typeof sessionId === "string" ? sessionId : options.sessionId,
    entryId: typeof entryId === "string" ? entryId : null
  };
}

// schemas/dist/socket.js
init_errors();
init_events();
init_streaming();
var SOCKET_PROTOCOLS = { json: "wire.v1.json", msgpack: "wire.v1.msgpack" };
var RETRY_CLOSES = /* @__PURE__ */ new Set([1e3, 1001, 1006, 1011, 1012, 1013, 1014]);
var InputRefused = class extends HTTPStatusError {
  requestId;
  name = "InputRefused";
  constructor(url2, requestId, status, detail) {
    super("INPUT", url2, status, "", detail, "200");
    this.requestId = requestId;
    this.message = `input ${requestId} on ${url2} was refused with ${status}: ${detail}`;
  }
};
var SocketClosed = class extends RemoteProtocolError {
  url;
  code;
  name = "SocketClosed";
  constructor(url2, code, reason) {
    super(`${url2}: the server closed the socket with ${code}: ${reason || "no reason"}`);
    this.url = url2;
    this.code = code;
  }
};
function connectSession(url2, options = {}) {
  return new Client(socketURL(url2), options);
}
function socketURL(url2) {
  let parsed;
  try {
    parsed = new URL(String(url2), globalThis.location?.href);
  } catch {
    throw new TypeError(`${JSON.stringify(String(url2).slice(0, 80))} is no WebSocket URL`);
  }
  const scheme = { "http:": "ws:", "https:": "wss:", "ws:": "ws:", "wss:": "wss:" }[parsed.protocol];
  if (scheme === void 0)
    throw new TypeError(`a socket's URL begins with ws:// or wss://, not ${parsed.protocol}`);
  parsed.protocol = scheme;
  return parsed.href;
}
var UTF82 = new TextEncoder();
var JSON_CODEC = {
  encode: (frame) => JSON.stringify(frame),
  decode(data2) {
    if (typeof data2 !== "string")
      throw new RemoteProtocolError("a binary frame on wire.v1.json");
    let value;
    try {
      value = JSON.parse(data2);
    } catch (error2) {
      throw new DecodeError(`JSON is malformed: ${error2.message}`);
    }
    const reason = refusedNumber(value, data2);
    if (reason !== void 0)
      throw new DecodeError(reason);
    return value;
  },
  raw: (value) => UTF82.encode(JSON.stringify(value))
};
async function msgpackCodec() {
  const { decodeMsgpack: decodeMsgpack2, encodeMsgpack: encodeMsgpack2 } = await Promise.resolve().then(() => (init_msgpack(), msgpack_exports));
  return {
    encode: encodeMsgpack2,
    decode(data2) {
      if (typeof data2 === "string")
        throw new RemoteProtocolError("a text frame on wire.v1.msgpack");
      return decodeMsgpack2(data2);
    },
    raw: encodeMsgpack2
  };
}
var Client = class {
  url;
  options;
  conversation;
  lastEventId;
  connections = 0;
  closed = false;
  done;
  stop;
  follows;
  unknown;
  codec;
  open;
  /** Sends waiting for a socket to be open. */
  opening = /* @__PURE__ */ new Set();
  waiters = /* @__PURE__ */ new Set();
  /** The replies with news since the last `run` resolved. */
  news = /* @__PURE__ */ new Set();
  running = false;
  ids = 0;
  ended;
  endLog;
  constructor(url2, options) {
    this.url = url2;
    this.options = options;
    const Socket = options.WebSocket ?? globalThis.WebSocket;
    if (Socket === void 0) {
      throw new TypeError("no WebSocket class: pass the ws package's as the WebSocket option (Node 20 has none)");
    }
    const protocol = options.protocol ?? "json";
    if (!(protocol in SOCKET_PROTOCOLS))
      throw new TypeError(`protocol must be json or msgpack, not ${protocol}`);
    this.conversation = options.conversation ?? new Session();
    this.lastEventId = options.lastEventId ?? "";
    this.follows = options.follow ?? true;
    this.unknown = options.unknown ?? "keep";
    const { stop, release } = stopper(options.signal);
    this.stop = stop;
    const logEnded = new Promise((resolve) => {
      this.endLog = resolve;
    });
    const loop = this.loop(Socket, protocol).finally(release);
    loop.catch((error2) => this.fail(error2));
    this.done = Promise.race([logEnded, loop]).then(() => this.conversation);
    this.done.catch(() => void 0);
  }
  // -- the connections -------------------------------------------------------------------
  /** Connect, and connect again after each drop, until a close that no retry mends, the retries' end or `close()`. */
  async loop(Socket, protocol) {
    this.codec = protocol === "json" ? JSON_CODEC : await msgpackCodec();
    const attempts = new Attempts(this.url, this.options.backoff);
    for (; ; ) {
      this.stop.signal.throwIfAborted();
      const drop = await this.connect(Socket, SOCKET_PROTOCOLS[protocol]);
      const { attempt, delayMs } = attempts.failed(drop.reason, drop.progressed);
      this.options.onReconnect?.(attempt, delayMs, drop.reason);
      await sleep(delayMs, this.stop.signal);
    }
  }
  /**
   * One socket, from its handshake until it drops: resolves with why (to
   * connect again), rejects with what ends the client.
   */
  connect(Socket, wanted) {
    const startId = this.lastEventId;
    const signal = this.stop.signal;
    this.connections++;
    return new Promise((resolve, reject) => {
      let socket;
      try {
        const headers = this.options.headers;
        socket = headers === void 0 ? new Socket(this.url, [wanted]) : new Socket(this.url, [wanted], { headers });
      } catch (error3) {
        reject(error3);
        return;
      }
      socket.binaryType = "arraybuffer";
      const connection = { socket, pending: /* @__PURE__ */ new Map() };
      let progressed = false;
      let error2;
      let over = false;
      let timer;
      const wait = (ms, why) => {
        clearTimeout(timer);
        timer = setTimeout(() => end(new WireError(`${this.url}: ${why}`)), ms);
      };
      const end = (reason, fatal = false) => {
        if (over)
          return;
        over = true;
        clearTimeout(timer);
        for (const [type, listener] of listeners)
          if (type !== "error")
            socket.removeEventListener(type, listener);
        signal.removeEventListener("abort", onAbort);
        if (this.open === connection)
          this.open = void 0;
        try {
          socket.close(1e3);
        } catch {
        }
        const lost = fatal ? reason : new ConnectionFailed(this.url, 1, reason);
        for (const waiting2 of connection.pending.values())
          waiting2.reject(lost);
        connection.pending.clear();
        if (fatal)
          reject(reason);
        else
          resolve({ reason, progressed: progressed || this.lastEventId !== startId });
      };
      const onAbort = () => end(signal.reason, true);
      const listeners = [
        ["open", () => {
          if (socket.protocol !== wanted) {
            end(new RemoteProtocolError(`${this.url} speaks ${socket.protocol || "no subprotocol"}, not ${wanted}`), true);
            return;
          }
          this.readTimeout(wait);
          try {
            if (this.follows)
              socket.send(this.codec.encode({ type: "follow", after: this.lastEventId || null }));
          } catch (failure) {
            end(failure);
            return;
          }
          this.open = connection;
          for (const waiter of this.opening)
            waiter.go(connection);
          this.opening.clear();
        }],
        ["message", (event) => {
          this.readTimeout(wait);
          try {
            if (this.frame(event.data, connection))
              progressed = true;
          } catch (failure) {
            end(failure, true);
          }
        }],
        ["error", (event) => {
          error2 = event.message ?? error2;
        }],
        ["close", (event) => {
          try {
            end(this.whyClosed(event.code ?? 1006, event.reason ?? "", error2));
          } catch (failure) {
            end(failure, true);
          }
        }]
      ];
      for (const [type, listener] of listeners)
        socket.addEventListener(type, listener);
      signal.addEventListener("abort", onAbort, { once: true });
      if (signal.aborted)
        onAbort();
      else
        wait(this.options.openTimeoutMs ?? 1e4, "no handshake in time");
    });
  }
  readTimeout(wait) {
    const ms = this.options.readTimeoutMs ?? 6e4;
    wait(ms, `no frame for ${ms} ms`);
  }
  /**
   * Why the socket closed, when the client is to connect again; throws for a
   * close that no retry mends (wire.transports.ws_client's rules). `error`
   * is what the WebSocket class said before: `ws` names the status of a
   * handshake the server refused; a browser never does.
   */
  whyClosed(code, reason, error2) {
    const handshake = /Unexpected server response: (\d{3})/.exec(error2 ?? "");
    if (handshake !== null) {
      const failure = new HTTPStatusError("GET", this.url, Number(handshake[1]), "", "", "101 Switching Protocols");
      if (RETRYABLE.has(failure.status))
        return failure;
      throw failure;
    }
    if (RETRY_CLOSES.has(code))
      return new WireError(`${this.url}: the socket closed with ${code}${reason ? `: ${reason}` : ""}${error2 ? ` (${error2})` : ""}`);
    if (code === 1008) {
      const refusal2 = /^(\d{3}) (.*)$/s.exec(reason);
      if (refusal2 === null)
        return new WireError(`${this.url}: the socket closed with 1008: ${reason}`);
      const failure = new HTTPStatusError("GET", this.url, Number(refusal2[1]), "", refusal2[2], "an open socket");
      if (RETRYABLE.has(failure.status))
        return failure;
      throw failure;
    }
    throw new SocketClosed(this.url, code, reason);
  }
  // -- the frames ------------------------------------------------------------------------
  /**
   * File one frame from the server; true when it brought news (entries or
   * a result). A frame that is not the protocol's throws.
   */
  frame(data2, connection) {
    const bytes2 = data2 instanceof ArrayBuffer ? new Uint8Array(data2) : ArrayBuffer.isView(data2) ? new Uint8Array(data2.buffer, data2.byteOffset, data2.byteLength) : void 0;
    if (bytes2 === void 0 && typeof data2 !== "string") {
      throw new RemoteProtocolError(`${this.url} sent a frame of neither text nor bytes`);
    }
    const frame = this.codec.decode(bytes2 ?? data2);
    if (typeof frame !== "object" || frame === null || Array.isArray(frame) || frame instanceof Uint8Array) {
      throw new RemoteProtocolError(`${this.url} sent a frame that is not an object`);
    }
    const fields = frame;
    const type = fields["type"];
    if (typeof type !== "string")
      throw new RemoteProtocolError(`${this.url} sent a frame without a type`);
    if (type === "entries")
      return this.entries(fields["entries"]);
    if (type === "result")
      return this.result(fields, connection);
    if (type === "end") {
      this.closed = true;
      this.endLog();
      for (const waiter of this.waiters) {
        this.waiters.delete(waiter);
        if (waiter.atEnd !== void 0)
          waiter.resolve(waiter.atEnd());
        else
          waiter.reject(new WireError(`${this.url}: the session ended before what was waited for`));
      }
    }
    return false;
  }
  /** An entries frame: its events, checked all before any is applied, then applied in order. */
  entries(entries) {
    if (!Array.isArray(entries))
      throw new RemoteProtocolError(`${this.url} sent an entries frame without entries`);
    const events = [];
    let last;
    for (const entry of entries) {
      if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== "string") {
        throw new RemoteProtocolError(`${this.url} sent an entry that is not [entry id, event]`);
      }
      last = entry[0];
      const value = entry[1];
      const unknownType = checkEvent(value);
      if (unknownType === void 0)
        events.push(value);
      else if (this.unknown === "raise")
        throw new DecodeError(`unknown event type ${JSON.stringify(unknownType)}`);
      else if (this.unknown === "keep") {
        events.push(new UnknownEvent(unknownType, this.codec.raw(value), this.codec === JSON_CODEC ? "json" : "msgpack"));
      }
    }
    if (last === void 0)
      return false;
    for (const event of events) {
      this.stop.signal.throwIfAborted();
      const changed = this.conversation.apply([event]).replies[0];
      const msg2 = changed === void 0 ? void 0 : this.conversation.replies.get(changed);
      if (changed !== void 0)
        this.news.add(changed);
      this.options.onEvent?.(event, msg2, this.conversation);
    }
    const before = this.lastEventId;
    this.lastEventId = last;
    for (const waiter of this.waiters) {
      const value = waiter.check();
      if (value !== void 0 && value !== false) {
        this.waiters.delete(waiter);
        waiter.resolve(value);
      }
    }
    return last !== before;
  }
  /** A result frame: settles the send waiting for it, if any on this socket; true if one was. */
  result(fields, connection) {
    const { request_id: requestId, status, detail, entry_id: entryId } = fields;
    if (typeof requestId !== "string" || !Number.isInteger(status) || typeof (detail ?? "") !== "string" || !(entryId == null || typeof entryId === "string")) {
      throw new RemoteProtocolError(`${this.url} sent a result frame whose fields are not the protocol's`);
    }
    const waiting2 = connection.pending.get(requestId);
    if (waiting2 === void 0)
      return false;
    connection.pending.delete(requestId);
    waiting2.resolve({ status, detail: detail ?? "", entryId: entryId ?? null });
    return true;
  }
  /** The client is over: `error` goes to every waiter, send and `run`. */
  fail(error2) {
    this.ended ??= { error: error2 };
    for (const waiter of this.waiters)
      waiter.reject(this.ended.error);
    this.waiters.clear();
    for (const waiter of this.opening)
      waiter.reject(this.ended.error);
    this.opening.clear();
  }
  // -- the API ---------------------------------------------------------------------------
  waitFor(check) {
    return this.wait(() => check(this.conversation), void 0);
  }
  /**
   * `check()`'s first value that is neither undefined nor false, checked now
   * and after each entries frame; at the log's end `atEnd()` (or a
   * rejection). `settled` runs when it settles, before the next frame is read.
   */
  wait(check, atEnd, settled) {
    return new Promise((resolve, reject) => {
      const waiter = {
        check,
        atEnd,
        resolve: (value) => {
          settled?.();
          resolve(value);
        },
        reject: (reason) => {
          settled?.();
          reject(reason);
        }
      };
      const now3 = check();
      if (now3 !== void 0 && now3 !== false)
        waiter.resolve(now3);
      else if (this.ended !== void 0)
        waiter.reject(this.ended.error);
      else if (this.closed && atEnd !== void 0)
        waiter.resolve(atEnd());
      else if (this.closed)
        waiter.reject(new WireError(`${this.url}: the session ended before what was waited for`));
      else
        this.waiters.add(waiter);
    });
  }
  settled(replyId) {
    return this.waitFor((c) => {
      return c.finished({ replyId }) ? c.replies.get(replyId) : void 0;
    });
  }
  run(options = {}) {
    if (!this.follows) {
      return Promise.reject(new LocalProtocolError("this socket does not follow the session (follow: false)"));
    }
    if (this.running) {
      return Promise.reject(new LocalProtocolError("run() while another run() is under way: one reader at a time"));
    }
    this.running = true;
    const over = () => this.conversation.finished(options, this.news) ? this.conversation : void 0;
    const settled = () => {
      this.running = false;
      this.news = /* @__PURE__ */ new Set();
    };
    return this.wait(over, () => this.conversation, settled);
  }
  send(input, options = {}) {
    const agentId = options.agentId ?? this.options.agentId;
    const sessionId = options.sessionId ?? this.options.sessionId;
    if (agentId === void 0 || sessionId === void 0) {
      return Promise.reject(new LocalProtocolError("send() needs an agentId and a sessionId (connectSession's options or send's)"));
    }
    if (this.ended !== void 0)
      return Promise.reject(this.ended.error);
    const requestId = String(++this.ids);
    const timeoutMs = options.timeoutMs ?? 3e4;
    return new Promise((resolve, reject) => {
      let sentOn;
      const opening = { go, reject: settle(reject) };
      const timer = setTimeout(() => {
        sentOn?.pending.delete(requestId);
        this.opening.delete(opening);
        reject(new ConnectionFailed(this.url, 1, new WireError(`no result for input ${requestId} within ${timeoutMs} ms`)));
      }, timeoutMs);
      function settle(then) {
        return (value) => {
          clearTimeout(timer);
          then(value);
        };
      }
      const url2 = this.url;
      const codec = () => this.codec;
      function go(connection) {
        sentOn = connection;
        connection.pending.set(requestId, {
          resolve: settle(({ status, detail, entryId }) => {
            if (status === 200)
              resolve({ status, sessionId, entryId });
            else
              reject(new InputRefused(url2, requestId, status, detail));
          }),
          reject: settle(reject)
        });
        try {
          connection.socket.send(codec().encode({
            type: "input",
            request_id: requestId,
            body: { agent_id: agentId, session_id: sessionId, input }
          }));
        } catch (error2) {
          connection.pending.delete(requestId);
          settle(reject)(new ConnectionFailed(url2, 1, error2));
        }
      }
      if (this.open !== void 0)
        go(this.open);
      else
        this.opening.add(opening);
    });
  }
  close() {
    this.stop.abort(new DOMException("connectSession closed", "AbortError"));
  }
};

// schemas/dist/index.js
init_streaming();
export {
  AnomalyKind,
  CHECKPOINT,
  ConnectionFailed,
  Session as Conversation,
  DEFAULT_MAX_FRAME_BYTES,
  DecodeError,
  EVENT_TYPES,
  FrameError,
  HTTPStatusError,
  InputRefused,
  LocalProtocolError,
  MAX_ANSWER_BYTES,
  MsgpackFrameDecoder,
  NDJSONDecoder,
  PartialJSON,
  PartialJSONError,
  RESTART,
  RETRYABLE,
  RemoteProtocolError,
  ReplyRequestError,
  ResponseTooLarge,
  SOCKET_PROTOCOLS,
  SSEDecoder,
  Session,
  SocketClosed,
  StreamOrderError,
  TURN,
  UnknownEvent,
  WireError,
  anomaliesOf,
  answer,
  appendEvent,
  beginReply,
  confirmation,
  connectSession,
  decodeBase64,
  encodeBase64,
  extendEvents,
  followReply,
  followSession,
  isBase64,
  joinReply,
  readCheckpoint,
  readTurn,
  refusal,
  turn,
  userMsg,
  waiting
};
