/**
 * `appendEvent`: events in, one Msg out, with wire's Python semantics
 * (wire.reducer, which follows agentscope 2.0.11's `Msg.append_event`).
 *
 * The Msg is a plain object of `wire.d.ts`'s `Msg` type, changed in place and
 * kept in wire's JSON form (see canonical.ts), so `JSON.stringify(msg)` is
 * its wire JSON at any moment. The reducer's own state (block indexes,
 * anomalies) lives beside it in a WeakMap, built on the first event from the
 * Msg's content: a Msg read from a checkpoint resumes where the one that was
 * sent stopped.
 *
 * Cost: O(1) amortized per event. Blocks are found through Maps, text grows
 * with `+=` (JavaScript engines concatenate into ropes, not copies), and
 * base64 grows by whole 3-byte groups: a chunk after whole groups joins as
 * text, and one after a padded chunk is shifted by the 1 or 2 bytes carried,
 * in one pass over its characters (base64.ts's appendBase64).
 *
 * Determinism: a block takes `created_at` from the event that made it, and a
 * text part made inside a tool result takes the id of the delta that made it,
 * so replaying the same events gives the same JSON.
 */

import type {
  Base64Source,
  ContentBlock,
  DataBlock,
  Msg,
  TextBlock,
  ToolCallBlock,
  ToolResultBlock,
} from "../wire.js";
import { appendBase64, type Carry, tailBase64 } from "./base64.js";
import { block_, canonical, copyJson, put } from "./canonical.js";
import { StreamOrderError } from "./errors.js";
import { EVENT_TYPES, UnknownEvent, type WireEvent } from "./events.js";
import { ROLE_BLOCKS } from "./fields.js";

/** The names an `Anomaly`'s `kind` takes, as wire.reducer.AnomalyKind. */
export const AnomalyKind = {
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
  WRONG_TYPE: "wrong_type",
} as const;
export type AnomalyKind = (typeof AnomalyKind)[keyof typeof AnomalyKind];

/**
 * Something in the stream the reducer could not apply as a well-formed stream
 * would have it. `index` counts the events applied to this Msg from 0.
 * Its JSON is wire's `Anomaly` (no `id` when there is none).
 */
export interface Anomaly {
  index: number;
  kind: AnomalyKind;
  event_type: string;
  id?: string;
  detail: string;
}

export interface AppendOptions {
  /** Throw `StreamOrderError` at the first anomaly, before anything changes, instead of recording it. */
  strict?: boolean;
}

type Obj = Record<string, unknown>;
type Bytes = string | Uint8Array;

/** The reducer state of one Msg. */
interface State {
  msg: Msg;
  index: number;
  anomalies: Anomaly[];
  strict: boolean;
  allowed: ReadonlySet<string> | null;
  // First block wins for a repeated id, as agentscope's linear scan does.
  text: Map<string, TextBlock>;
  thinking: Map<string, ContentBlock & { type: "thinking" }>;
  data: Map<string, DataBlock>;
  calls: Map<string, ToolCallBlock>;
  results: Map<string, ToolResultBlock>;
  // tool_call_id -> {block_id: the first base64 source with that id in the result's output}
  resultData: Map<string, Map<string, Base64Source>>;
}

const STATES = new WeakMap<Msg, State>();

// Which block types each role's Msg may hold (null: any): the role table, generated from wire.blocks.ROLE_BLOCKS.
const ROLE_ALLOWS: Record<string, ReadonlySet<string> | null> = Object.fromEntries(
  Object.entries(ROLE_BLOCKS).map(([role, rule]) => [role, rule === null ? null : new Set(rule[0])]),
);

function stateOf(msg: Msg): State {
  let state = STATES.get(msg);
  if (state === undefined) {
    canonical(msg as unknown as Obj, "msg");
    state = {
      msg, index: 0, anomalies: [], strict: false, allowed: ROLE_ALLOWS[msg.role] ?? null,
      text: new Map(), thinking: new Map(), data: new Map(), calls: new Map(), results: new Map(),
      resultData: new Map(),
    };
    for (const block of msg.content) index(state, block);
    STATES.set(msg, state);
  }
  return state;
}

function index(s: State, block: ContentBlock): void {
  const id = block.id;
  if (id === undefined) return;
  switch (block.type) {
    case "text":
      if (!s.text.has(id)) s.text.set(id, block);
      return;
    case "thinking":
      if (!s.thinking.has(id)) s.thinking.set(id, block);
      return;
    case "data":
      if (!s.data.has(id)) s.data.set(id, block);
      return;
    case "tool_call":
      if (!s.calls.has(id)) s.calls.set(id, block);
      return;
    case "tool_result":
      if (!s.results.has(id)) s.results.set(id, block);
      return;
    default:
      return;
  }
}

/** The anomalies `appendEvent` recorded for `msg` so far, in order. */
export function anomaliesOf(msg: Msg): readonly Anomaly[] {
  return STATES.get(msg)?.anomalies ?? [];
}

/**
 * Apply one event of this reply to `msg` in place, as wire's
 * `Msg.append_event` does, and return the anomaly it found, if any.
 *
 * Events for another reply, deltas for unknown blocks and the other anomalies
 * of `AnomalyKind` are recorded (see `anomaliesOf`) and handled as agentscope
 * does; with `{ strict: true }` the first one throws `StreamOrderError` and
 * leaves the Msg unchanged. The first call puts `msg` in wire's form (fields
 * in order, defaults left out), so `JSON.stringify(msg)` is its wire JSON.
 */
export function appendEvent(msg: Msg, event: WireEvent | UnknownEvent, options?: AppendOptions): Anomaly | undefined {
  const s = stateOf(msg);
  s.strict = options?.strict ?? false;
  const before = s.anomalies.length;
  try {
    apply(s, event);
  } finally {
    s.index++;
  }
  return s.anomalies.length > before ? s.anomalies[s.anomalies.length - 1] : undefined;
}

/** `appendEvent` for each event in order; returns the anomalies they caused. */
export function extendEvents(msg: Msg, events: Iterable<WireEvent | UnknownEvent>, options?: AppendOptions): Anomaly[] {
  const s = stateOf(msg);
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

function anomaly(s: State, kind: AnomalyKind, eventType: string, id: string | undefined, detail: string): void {
  if (s.strict) {
    throw new StreamOrderError(`${eventType}: ${detail}${id ? ` (id ${JSON.stringify(id)})` : ""}`, kind, s.index);
  }
  // wire's field order: index, kind, event_type, id (left out when there is none), detail
  s.anomalies.push(id !== undefined && id !== null
    ? { index: s.index, kind, event_type: eventType, id, detail }
    : { index: s.index, kind, event_type: eventType, detail });
}

function find<B>(s: State, table: Map<string, B>, type: string, id: string): B | undefined {
  const block = table.get(id);
  if (block === undefined) anomaly(s, AnomalyKind.UNKNOWN_BLOCK, type, id, "no block was started with this id");
  return block;
}

/** Append a block the reducer made (or copied); `table` set: an existing id is a duplicate START. */
function add(s: State, block: ContentBlock, type: string, table: Map<string, unknown> | null): void {
  if (typeof block.id !== "string") {
    anomaly(s, AnomalyKind.WRONG_TYPE, type, undefined, wrong("the block's id", block.id, "a string"));
    return;
  }
  if (s.msg.finished_at != null) { // agentscope appends it all the same
    anomaly(s, AnomalyKind.AFTER_REPLY_END, type, block.id, "the reply had already ended; the block is still appended");
  }
  if (s.allowed !== null && !s.allowed.has(block.type)) {
    anomaly(s, AnomalyKind.ROLE_FORBIDS, type, block.id,
      `a ${s.msg.role} message cannot hold a ${JSON.stringify(block.type)} block`);
    return;
  }
  if (table !== null && block.id !== undefined && table.has(block.id)) {
    anomaly(s, AnomalyKind.DUPLICATE_START, type, block.id, "a block with this id exists; the new one is an orphan");
    s.msg.content.push(block);
    return;
  }
  s.msg.content.push(block);
  index(s, block);
}

function finish<B extends { finished_at?: string | null }>(
  s: State, table: Map<string, B>, type: string, id: string, at: string,
): B | undefined {
  const block = find(s, table, type, id);
  if (block !== undefined) {
    if (block.finished_at != null) anomaly(s, AnomalyKind.AFTER_END, type, id, "the block had already ended");
    block.finished_at = at;
  }
  return block;
}

/** Whether `value` is a string; a WRONG_TYPE anomaly otherwise (before anything changes). */
function isText(s: State, type: string, field: string, value: unknown): value is string {
  if (typeof value === "string") return true;
  anomaly(s, AnomalyKind.WRONG_TYPE, type, undefined, wrong(field, value, "a string"));
  return false;
}

function wrong(field: string, value: unknown, wanted: string): string {
  const kind = value === null ? "null" : value === undefined ? "missing" : Array.isArray(value) ? "array" : typeof value;
  return `${field} is ${kind}, not ${wanted} (an event built without its types checked); skipped`;
}

function afterEnd(s: State, block: { finished_at?: string | null }, type: string, id: string, detail: string): void {
  if (block.finished_at != null) anomaly(s, AnomalyKind.AFTER_END, type, id, detail);
}

// -- the events ------------------------------------------------------------------------

function apply(s: State, event: WireEvent | UnknownEvent): void {
  if (event instanceof UnknownEvent || !EVENT_TYPES.has(event.type)) {
    // A newer peer's event type: nothing this version can apply.
    anomaly(s, AnomalyKind.UNKNOWN_EVENT, event.type, undefined,
      `wire does not know the event type ${JSON.stringify(event.type)}; skipped`);
    return;
  }
  if (event.type === "CUSTOM") return; // application events have no reply_id
  if (event.reply_id !== s.msg.id) {
    anomaly(s, AnomalyKind.OTHER_REPLY, event.type, event.reply_id,
      `the message's id is ${JSON.stringify(s.msg.id)}`);
    return;
  }
  const at = event.created_at ?? now();
  const msg = s.msg as unknown as Obj;
  switch (event.type) {
    case "REPLY_START": // a continuation REPLY_START must not reset anything
    case "MODEL_CALL_START":
    case "EXCEED_MAX_ITERS":
    case "USER_INTERRUPT":
      return;
    case "REPLY_END":
      put(msg, "msg", "finished_at", at);
      put(msg, "msg", "finished_reason", event.finished_reason ?? "completed");
      put(msg, "msg", "error", event.error == null ? null : canonical({ ...event.error }, "error"));
      return;
    case "MODEL_CALL_END": {
      const u = s.msg.usage;
      const usage: Obj = {
        input_tokens: (u?.input_tokens ?? 0) + event.input_tokens,
        output_tokens: (u?.output_tokens ?? 0) + event.output_tokens,
        cache_input_tokens: (u?.cache_input_tokens ?? 0) + (event.cache_input_tokens ?? 0),
        cache_creation_input_tokens: (u?.cache_creation_input_tokens ?? 0) + (event.cache_creation_input_tokens ?? 0),
      };
      put(msg, "msg", "usage", canonical(usage, "usage"));
      return;
    }
    case "TEXT_BLOCK_START":
      add(s, { type: "text", text: "", id: event.block_id, created_at: at }, event.type, s.text);
      return;
    case "TEXT_BLOCK_DELTA": {
      if (!isText(s, event.type, "delta", event.delta)) return;
      const block = find(s, s.text, event.type, event.block_id);
      if (block === undefined) return;
      afterEnd(s, block, event.type, event.block_id, "a delta after the block's END is still appended");
      block.text += event.delta;
      return;
    }
    case "TEXT_BLOCK_END": {
      if (event.text != null && !isText(s, event.type, "text", event.text)) return;
      const block = finish(s, s.text, event.type, event.block_id, at);
      if (block !== undefined && event.text != null) block.text = event.text;
      return;
    }
    case "THINKING_BLOCK_START":
      add(s, { type: "thinking", thinking: "", id: event.block_id, created_at: at }, event.type, s.thinking);
      return;
    case "THINKING_BLOCK_DELTA": {
      if (!isText(s, event.type, "delta", event.delta)) return;
      const block = find(s, s.thinking, event.type, event.block_id);
      if (block === undefined) return;
      afterEnd(s, block, event.type, event.block_id, "a delta after the block's END is still appended");
      block.thinking += event.delta;
      return;
    }
    case "THINKING_BLOCK_END":
      finish(s, s.thinking, event.type, event.block_id, at);
      return;
    case "DATA_BLOCK_START": {
      const block: Obj = { type: "data", id: event.block_id, source: { type: "base64", data: "", media_type: event.media_type } };
      if (event.name != null) block["name"] = event.name;
      block["created_at"] = at;
      add(s, block as unknown as DataBlock, event.type, s.data);
      return;
    }
    case "DATA_BLOCK_DELTA":
      if (event.url != null && !isText(s, event.type, "url", event.url)) return;
      dataDelta(s, event.type, event.block_id, event.media_type, event.data ?? null, event.url ?? null);
      return;
    case "DATA_BLOCK_END":
      finish(s, s.data, event.type, event.block_id, at);
      return;
    case "HINT_BLOCK": {
      const hint = typeof event.hint === "string" ? event.hint : event.hint.map((part) => copyBlock(part));
      const block: Obj = { type: "hint", hint, id: event.block_id };
      if (event.source != null) block["source"] = event.source;
      block["created_at"] = at;
      block["finished_at"] = at;
      add(s, block as unknown as ContentBlock, event.type, null);
      return;
    }
    case "TOOL_CALL_START":
      add(s, { type: "tool_call", id: event.tool_call_id, name: event.tool_call_name, input: "", created_at: at },
        event.type, s.calls);
      return;
    case "TOOL_CALL_DELTA": {
      if (!isText(s, event.type, "delta", event.delta)) return;
      const block = find(s, s.calls, event.type, event.tool_call_id);
      if (block === undefined) return;
      afterEnd(s, block, event.type, event.tool_call_id, "a delta after the block's END is still appended");
      block.input += event.delta;
      return;
    }
    case "TOOL_CALL_END":
      finish(s, s.calls, event.type, event.tool_call_id, at);
      return;
    case "TOOL_RESULT_START":
      add(s, { type: "tool_result", id: event.tool_call_id, name: event.tool_call_name, output: [], created_at: at },
        event.type, s.results);
      return;
    case "TOOL_RESULT_TEXT_DELTA": {
      if (!isText(s, event.type, "delta", event.delta)) return;
      const block = find(s, s.results, event.type, event.tool_call_id);
      if (block === undefined) return;
      afterEnd(s, block, event.type, event.tool_call_id, "a delta after the result's END is still appended");
      const output = outputList(block, event.id, at);
      const last = output[output.length - 1];
      if (last !== undefined && last.type === "text") last.text += event.delta;
      else output.push({ type: "text", text: event.delta, id: event.id ?? newId(), created_at: at });
      return;
    }
    case "TOOL_RESULT_DATA_DELTA":
      if (event.url != null && !isText(s, event.type, "url", event.url)) return;
      resultData(s, event.type, event.tool_call_id, event.block_id ?? newId(), event.media_type,
        event.data ?? null, event.url ?? null, event.id, at);
      return;
    case "TOOL_RESULT_END": {
      const block = finish(s, s.results, event.type, event.tool_call_id, at) as Obj | undefined;
      if (block === undefined) return;
      put(block, "tool_result", "state", event.state);
      put(block, "tool_result", "metadata", copyJson(event.metadata ?? {})); // replaced, not merged, as in agentscope
      const call = s.calls.get(event.tool_call_id);
      if (call !== undefined) put(call as unknown as Obj, "tool_call", "state", "finished");
      return;
    }
    case "REQUIRE_USER_CONFIRM": {
      const calls = lookUpCalls(s, event.type, event.tool_calls.map((c) => c.id));
      event.tool_calls.forEach((asked, i) => {
        const call = calls[i] as unknown as Obj | undefined;
        if (call === undefined) return;
        put(call, "tool_call", "state", "asking");
        put(call, "tool_call", "suggested_rules", (asked.suggested_rules ?? []).map((r) => canonical({ ...r }, "rule")));
      });
      return;
    }
    case "REQUIRE_EXTERNAL_EXECUTION":
      for (const call of lookUpCalls(s, event.type, event.tool_calls.map((c) => c.id))) {
        if (call !== undefined) put(call as unknown as Obj, "tool_call", "state", "submitted"); // from any state
      }
      return;
    case "USER_CONFIRM_RESULT": {
      // Results apply in order (a second result for one call sees the state the first
      // left, as in agentscope); they are worked out before any is applied.
      const states = new Map<string, string>();
      const calls = lookUpCalls(s, event.type, event.confirm_results.map((r) => r.tool_call.id));
      event.confirm_results.forEach((result, i) => {
        const call = calls[i];
        if (call === undefined) return;
        const state = states.get(call.id) ?? call.state ?? "pending";
        if (state !== "asking") {
          anomaly(s, AnomalyKind.NOT_ASKING, event.type, call.id, `the call is ${state}, not asking`);
        } else {
          // The user's edited name and input are not copied, as in agentscope.
          states.set(call.id, result.confirmed ? "allowed" : "finished");
        }
      });
      for (const [id, state] of states) put(s.calls.get(id) as unknown as Obj, "tool_call", "state", state);
      return;
    }
    case "EXTERNAL_EXECUTION_RESULT": {
      const existing = new Set(s.results.keys()); // taken once: duplicates inside one event both append
      for (const result of event.execution_results) {
        if (existing.has(result.id)) continue; // normal: the agent already streamed this result
        const copy = copyBlock(result) as Obj;
        if (copy["finished_at"] == null) put(copy, "tool_result", "finished_at", at);
        add(s, copy as unknown as ToolResultBlock, event.type, null);
      }
      return;
    }
    default:
      return;
  }
}

/** The Msg's tool call for each id (undefined for an unknown one, an anomaly), all looked up
 * before anything changes, so that strict mode leaves the Msg as it was. */
function lookUpCalls(s: State, type: string, ids: string[]): (ToolCallBlock | undefined)[] {
  return ids.map((id) => {
    const call = s.calls.get(id);
    if (call === undefined) anomaly(s, AnomalyKind.UNKNOWN_TOOL_CALL, type, id, "no tool call with this id");
    return call;
  });
}

function dataDelta(s: State, type: string, id: string, mediaType: string, data: Bytes | null, url: string | null): void {
  // agentscope tests truthiness here: an empty data or url chunk is a no-op.
  if (url) {
    const block = find(s, s.data, type, id);
    if (block === undefined) return;
    const normalized = normalizeUrl(url);
    if (normalized === undefined) {
      anomaly(s, AnomalyKind.INVALID_URL, type, id, `not an absolute URL: ${JSON.stringify(url)}`);
      return;
    }
    afterEnd(s, block, type, id, "a chunk after the block's END is still applied");
    block.source = { type: "url", url: normalized, media_type: mediaType }; // discards any base64 so far
  } else if (data !== null && data.length > 0) {
    const block = find(s, s.data, type, id);
    if (block === undefined) return;
    if (block.source.type !== "base64") {
      anomaly(s, AnomalyKind.DATA_AFTER_URL, type, id,
        "a base64 chunk cannot follow a URL (agentscope raises AttributeError)");
      return;
    }
    afterEnd(s, block, type, id, "a chunk after the block's END is still appended");
    // The delta's media_type is ignored: the START's stays (as in agentscope).
    appendBytes(block.source, data);
  }
}

function resultData(
  s: State, type: string, callId: string, blockId: string, mediaType: string,
  data: Bytes | null, url: string | null, eventId: string | undefined, at: string,
): void {
  const block = find(s, s.results, type, callId);
  if (block === undefined) return;
  let source: Obj;
  if (data !== null) {
    source = { type: "base64", data: "", media_type: mediaType };
  } else {
    const normalized = normalizeUrl(url ?? "");
    if (normalized === undefined) {
      anomaly(s, AnomalyKind.INVALID_URL, type, blockId, `not an absolute URL: ${JSON.stringify(url)}`);
      return;
    }
    source = { type: "url", url: normalized, media_type: mediaType };
  }
  afterEnd(s, block, type, callId, "a chunk after the result's END is still applied");
  const output = outputList(block, eventId, at);
  let chunks = s.resultData.get(block.id);
  if (chunks === undefined) {
    chunks = new Map();
    for (const part of output) {
      if (part.type === "data" && part.source.type === "base64" && part.id !== undefined && !chunks.has(part.id)) {
        chunks.set(part.id, part.source);
      }
    }
    s.resultData.set(block.id, chunks);
  }
  if (data !== null) {
    const target = chunks.get(blockId);
    if (target !== undefined) {
      appendBytes(target, data);
      if (mediaType) target.media_type = mediaType; // an empty media_type keeps the old one, as in agentscope
      return;
    }
    appendBytes(source as unknown as Base64Source, data);
    chunks.set(blockId, source as unknown as Base64Source);
  }
  output.push({ type: "data", id: blockId, source: source as unknown as Base64Source, created_at: at });
}

/** A result's output as a list: a string output becomes one text block first, as in
 * agentscope, whose id is that of the event that forced the change, so replays agree. */
function outputList(block: ToolResultBlock, eventId: string | undefined, at: string): (TextBlock | DataBlock)[] {
  if (typeof block.output === "string") {
    block.output = [{ type: "text", text: block.output, id: eventId ?? newId(), created_at: at }];
  }
  return block.output;
}

/** A deep copy of a block from an event, in wire's form. */
function copyBlock<B>(block: B): B {
  return block_(copyJson(block) as Obj) as B;
}


// -- base64 that grows --------------------------------------------------------------------

/** A growing source: its base64 so far without the last, padded group, and the 0 to 2 bytes of that group. */
interface Growth {
  body: string;
  carry: Carry;
}
const GROWTH = new WeakMap<Base64Source, Growth>();

/**
 * Append bytes (base64 or raw) to a source's data, as the bytes joined would
 * encode (wire.reducer joins the decoded bytes). Whole groups after whole
 * groups join as text; a chunk after a padded one is shifted by the 1 or 2
 * bytes carried, in one pass over its characters (base64.ts).
 */
function appendBytes(source: Base64Source, chunk: Bytes): void {
  let growth = GROWTH.get(source);
  if (growth === undefined) {
    const carry: Carry = { bytes: 0, value: 0 };
    const data = source.data;
    const padded = data.endsWith("=");
    growth = { body: appendBase64(padded ? data.slice(0, -4) : data, carry, padded ? data.slice(-4) : ""), carry };
    GROWTH.set(source, growth);
  }
  growth.body = appendBase64(growth.body, growth.carry, chunk);
  source.data = growth.carry.bytes ? growth.body + tailBase64(growth.carry) : growth.body;
}

// -- small helpers ---------------------------------------------------------------------------

/** A URL as agentscope stores it (WHATWG URL serialization, which pydantic's AnyUrl follows
 * too), or undefined when it is not an absolute URL. */
function normalizeUrl(url: string): string | undefined {
  try {
    return new URL(url).href;
  } catch {
    return undefined;
  }
}

/** A fresh id, as wire.clock.new_id: 32 lowercase hex digits. Used only for fields an event left out. */
function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}

/** Now as wire.clock.now writes it (UTC, microseconds). Used only when an event has no created_at. */
function now(): string {
  return `${new Date().toISOString().slice(0, 23)}000+00:00`;
}

