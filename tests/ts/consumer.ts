// A frontend's use of @wire/agentscope-types: validate incoming events with
// ajv, fold them into the replies they belong to, render the replies.
// schemas/README.md (the TypeScript guide) shows this
// file; tests/test_schema.py compiles it with `tsc --strict` and runs it over
// agentscope's conformance vectors, comparing its rendering of the replies it
// built with its rendering of the messages agentscope built.

import Ajv2020 from "ajv/dist/2020.js";
import type {
  AgentEvent,
  ContentBlock,
  DataBlock,
  Msg,
  ReplyStartEvent,
  TextBlock,
  ToolResultBlock,
} from "@wire/agentscope-types";
import eventSchema from "@wire/agentscope-types/agent-event.schema.json" with { type: "json" };

// --- validation -----------------------------------------------------------------

// `strict` turns ajv's strictness warnings into errors (the schemas pass).
// `discriminator` picks the event type by its `type` tag: faster, and one
// error that names the bad field instead of one per event type.
const ajv = new Ajv2020({ strict: true, discriminator: true });
const validateEvent = ajv.compile<AgentEvent>(eventSchema);

/** Parses one event (an SSE `data:` payload or an NDJSON line) and checks it against the schema. */
export function parseEvent(json: string): AgentEvent {
  const value: unknown = JSON.parse(json);
  if (!validateEvent(value)) {
    const error = validateEvent.errors?.[0];
    throw new Error(`invalid event at ${error?.instancePath || "/"}: ${error?.message ?? "unknown error"}`);
  }
  return value;
}

// --- state: one Msg per reply, built from its events ----------------------------------

/** Every reply of a session by reply id, in the order they started. */
export class Conversation {
  readonly replies = new Map<string, Msg>();

  apply(event: AgentEvent): void {
    if (event.type === "CUSTOM") return; // application events: no reply_id
    if (event.type === "REPLY_START" && !this.replies.has(event.reply_id)) {
      // A continuation (after a user confirmation) starts the same reply again: keep it.
      this.replies.set(event.reply_id, startReply(event));
    }
    const reply = this.replies.get(event.reply_id);
    if (reply !== undefined) applyEvent(reply, event);
  }
}

export function startReply(event: ReplyStartEvent): Msg {
  return { id: event.reply_id, name: event.name, role: event.role ?? "assistant", content: [] };
}

type BlockOf<T extends ContentBlock["type"]> = Extract<ContentBlock, { type: T }>;

function findBlock<T extends ContentBlock["type"]>(msg: Msg, type: T, id: string): BlockOf<T> | undefined {
  return msg.content.find((block): block is BlockOf<T> => block.type === type && block.id === id);
}

/** A tool result's output as a list of parts (a plain string output becomes one text part). */
function outputParts(result: ToolResultBlock): (TextBlock | DataBlock)[] {
  if (typeof result.output === "string") result.output = [{ type: "text", id: newId(), text: result.output }];
  return result.output;
}

/** Joins two base64 chunks: each is padded on its own, so the strings cannot be concatenated. */
function joinBase64(a: string, b: string): string {
  return btoa(atob(a) + atob(b));
}

function newId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/** Applies one event of this reply to it, as agentscope's `Msg.append_event` does. */
export function applyEvent(msg: Msg, event: AgentEvent): void {
  if (event.type === "CUSTOM" || event.reply_id !== msg.id) return;
  const now = event.created_at ?? null;
  switch (event.type) {
    case "REPLY_START":
    case "MODEL_CALL_START":
    case "EXCEED_MAX_ITERS":
    case "USER_INTERRUPT":
      return;
    case "REPLY_END":
      msg.finished_at = now;
      msg.finished_reason = event.finished_reason ?? "completed";
      msg.error = event.error ?? null;
      return;
    case "MODEL_CALL_END": {
      const usage = msg.usage ?? { input_tokens: 0, output_tokens: 0 };
      msg.usage = {
        input_tokens: usage.input_tokens + event.input_tokens,
        output_tokens: usage.output_tokens + event.output_tokens,
        cache_input_tokens: (usage.cache_input_tokens ?? 0) + (event.cache_input_tokens ?? 0),
        cache_creation_input_tokens:
          (usage.cache_creation_input_tokens ?? 0) + (event.cache_creation_input_tokens ?? 0),
      };
      return;
    }
    case "TEXT_BLOCK_START":
      msg.content.push({ type: "text", id: event.block_id, text: "" });
      return;
    case "TEXT_BLOCK_DELTA": {
      const block = findBlock(msg, "text", event.block_id);
      if (block) block.text += event.delta;
      return;
    }
    case "TEXT_BLOCK_END": {
      const block = findBlock(msg, "text", event.block_id);
      if (!block) return;
      if (event.text != null) block.text = event.text; // a final text replaces the streamed one
      block.finished_at = now;
      return;
    }
    case "THINKING_BLOCK_START":
      msg.content.push({ type: "thinking", id: event.block_id, thinking: "" });
      return;
    case "THINKING_BLOCK_DELTA": {
      const block = findBlock(msg, "thinking", event.block_id);
      if (block) block.thinking += event.delta;
      return;
    }
    case "THINKING_BLOCK_END": {
      const block = findBlock(msg, "thinking", event.block_id);
      if (block) block.finished_at = now;
      return;
    }
    case "DATA_BLOCK_START":
      msg.content.push({
        type: "data",
        id: event.block_id,
        name: event.name ?? null,
        source: { type: "base64", data: "", media_type: event.media_type },
      });
      return;
    case "DATA_BLOCK_DELTA": {
      const block = findBlock(msg, "data", event.block_id);
      if (!block) return;
      if (event.url) {
        // A URL replaces the data; `new URL` normalizes it as agentscope does.
        block.source = { type: "url", url: new URL(event.url).href, media_type: event.media_type };
      } else if (event.data && block.source.type === "base64") {
        block.source.data = joinBase64(block.source.data, event.data);
      }
      return;
    }
    case "DATA_BLOCK_END": {
      const block = findBlock(msg, "data", event.block_id);
      if (block) block.finished_at = now;
      return;
    }
    case "HINT_BLOCK":
      msg.content.push({ type: "hint", id: event.block_id, hint: event.hint, source: event.source ?? null });
      return;
    case "TOOL_CALL_START":
      msg.content.push({ type: "tool_call", id: event.tool_call_id, name: event.tool_call_name, input: "" });
      return;
    case "TOOL_CALL_DELTA": {
      const call = findBlock(msg, "tool_call", event.tool_call_id);
      if (call) call.input += event.delta;
      return;
    }
    case "TOOL_CALL_END": {
      const call = findBlock(msg, "tool_call", event.tool_call_id);
      if (call) call.finished_at = now;
      return;
    }
    case "TOOL_RESULT_START":
      msg.content.push({ type: "tool_result", id: event.tool_call_id, name: event.tool_call_name, output: [] });
      return;
    case "TOOL_RESULT_TEXT_DELTA": {
      const result = findBlock(msg, "tool_result", event.tool_call_id);
      if (!result) return;
      const parts = outputParts(result);
      const last = parts.at(-1);
      if (last?.type === "text") last.text += event.delta;
      else parts.push({ type: "text", id: newId(), text: event.delta });
      return;
    }
    case "TOOL_RESULT_DATA_DELTA": {
      const result = findBlock(msg, "tool_result", event.tool_call_id);
      if (!result) return;
      const parts = outputParts(result);
      const id = event.block_id ?? newId();
      if (event.data != null) {
        // Chunks with the same block id and inline data grow one data part.
        const part = parts.find((p): p is DataBlock => p.type === "data" && p.id === id && p.source.type === "base64");
        if (part?.source.type === "base64") {
          part.source = {
            type: "base64",
            data: joinBase64(part.source.data, event.data),
            media_type: event.media_type || part.source.media_type,
          };
        } else {
          parts.push({ type: "data", id, source: { type: "base64", data: event.data, media_type: event.media_type } });
        }
      } else if (event.url != null) {
        parts.push({ type: "data", id, source: { type: "url", url: new URL(event.url).href, media_type: event.media_type } });
      }
      return;
    }
    case "TOOL_RESULT_END": {
      const result = findBlock(msg, "tool_result", event.tool_call_id);
      if (!result) return;
      result.state = event.state;
      result.metadata = event.metadata ?? {}; // this event's metadata is the result's
      result.finished_at = now;
      const call = findBlock(msg, "tool_call", event.tool_call_id);
      if (call) call.state = "finished";
      return;
    }
    case "REQUIRE_USER_CONFIRM":
      for (const asked of event.tool_calls) {
        const call = findBlock(msg, "tool_call", asked.id);
        if (call) {
          call.state = "asking";
          call.suggested_rules = asked.suggested_rules ?? [];
        }
      }
      return;
    case "USER_CONFIRM_RESULT":
      for (const answer of event.confirm_results) {
        const call = findBlock(msg, "tool_call", answer.tool_call.id);
        if (call?.state === "asking") call.state = answer.confirmed ? "allowed" : "finished";
      }
      return;
    case "REQUIRE_EXTERNAL_EXECUTION":
      for (const submitted of event.tool_calls) {
        const call = findBlock(msg, "tool_call", submitted.id);
        if (call) call.state = "submitted";
      }
      return;
    case "EXTERNAL_EXECUTION_RESULT": {
      const known = new Set(msg.content.filter((b) => b.type === "tool_result").map((b) => b.id));
      for (const result of event.execution_results) {
        if (!known.has(result.id)) msg.content.push({ ...result, finished_at: result.finished_at ?? now });
      }
      return;
    }
    default:
      // Compile error here when the schema gains an event type this switch does not handle.
      return assertNever(event);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected value ${JSON.stringify(value)}`);
}

// --- rendering ------------------------------------------------------------------------

/** Bytes held by standard padded base64 text. */
function base64Size(data: string): number {
  return (data.length / 4) * 3 - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);
}

function renderPart(part: TextBlock | DataBlock): string {
  return part.type === "text" ? part.text : renderData(part);
}

function renderData(block: DataBlock): string {
  const label = block.name ? `${block.name}, ` : "";
  const { source } = block;
  switch (source.type) {
    case "base64":
      return `[${label}${source.media_type}, ${base64Size(source.data)} bytes]`;
    case "url":
      return `[${label}${source.media_type} at ${source.url}]`;
    default:
      return assertNever(source);
  }
}

export function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "thinking":
      return `(thinking) ${block.thinking}`;
    case "hint":
      return `(hint${block.source ? ` from ${block.source}` : ""}) ${
        typeof block.hint === "string" ? block.hint : block.hint.map(renderPart).join(" ")
      }`;
    case "data":
      return renderData(block);
    case "tool_call":
      return `${block.name}(${block.input}) [${block.state ?? "pending"}]`;
    case "tool_result": {
      const output = typeof block.output === "string" ? block.output : block.output.map(renderPart).join("");
      const metadata = Object.keys(block.metadata ?? {}).length ? ` ${JSON.stringify(block.metadata)}` : "";
      return `${block.name} -> ${block.state ?? "running"}${metadata}: ${output}`;
    }
    default:
      return assertNever(block);
  }
}

export function renderMsg(msg: Msg): string {
  const status = msg.finished_reason ?? "streaming";
  const error = msg.error ? ` (${msg.error.type ?? "unknown"}: ${msg.error.message})` : "";
  const usage = msg.usage
    ? `, tokens in ${msg.usage.input_tokens} (cached ${msg.usage.cache_input_tokens ?? 0}, ` +
      `cache writes ${msg.usage.cache_creation_input_tokens ?? 0}) out ${msg.usage.output_tokens}`
    : "";
  const header = `${msg.name} (${msg.role}): ${status}${error}${usage}`;
  return [header, ...msg.content.map((block) => `- ${renderBlock(block)}`)].join("\n");
}

// --- the render loop in a browser -------------------------------------------------------

/**
 * Streams a session's events from an SSE endpoint into `element`, one
 * rendering per animation frame however fast the deltas arrive.
 */
export function streamSession(url: string, element: HTMLElement): EventSource {
  const conversation = new Conversation();
  const source = new EventSource(url);
  let scheduled = false;
  source.onmessage = (message: MessageEvent<string>) => {
    try {
      conversation.apply(parseEvent(message.data));
    } catch (error) {
      // Skip what this build cannot read, such as an event type added by a newer server.
      console.warn(error);
      return;
    }
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      element.textContent = [...conversation.replies.values()].map(renderMsg).join("\n\n");
    });
  };
  return source;
}
