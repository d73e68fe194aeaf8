// A frontend's use of @wire/agentscope-types: validate incoming events with
// ajv, fold them into the replies they belong to with the package's runtime,
// render the replies, and read a reply's stream over fetch.
// schemas/README.md (the TypeScript guide) shows this
// file; tests/test_schema.py compiles it with `tsc --strict` and runs it over
// agentscope's conformance vectors, comparing its rendering of the replies it
// built with its rendering of the messages agentscope built.

import Ajv2020 from "ajv/dist/2020.js";
import type { AgentEvent, ContentBlock, DataBlock, Msg, ReplyStartEvent, TextBlock } from "@wire/agentscope-types";
import { appendEvent, readCheckpoint, SSEDecoder } from "@wire/agentscope-types";
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
    if (reply === undefined) return;
    // wire's reducer: agentscope's semantics, anything odd in the stream recorded and returned.
    const anomaly = appendEvent(reply, event);
    if (anomaly !== undefined) console.warn(`event ${anomaly.index} of ${reply.id}: ${anomaly.kind}`, anomaly.detail);
  }
}

export function startReply(event: ReplyStartEvent): Msg {
  return { id: event.reply_id, name: event.name, role: event.role ?? "assistant", content: [] };
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

// --- reading a reply's stream over fetch ----------------------------------------------------

/**
 * Reads a reply's SSE stream with `fetch` into `msg`, as wire's server sends
 * it, and returns the Msg at the end: `msg` itself, or the Msg of a checkpoint
 * the server sent in its place when `lastEventId` asked it to resume.
 */
export async function readReply(url: string, msg: Msg, lastEventId = ""): Promise<Msg> {
  const response = await fetch(url, { headers: lastEventId ? { "Last-Event-ID": lastEventId } : {} });
  if (!response.ok || response.body === null) throw new Error(`${url}: HTTP ${response.status}`);
  const decoder = new SSEDecoder({ lastEventId });
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    for (const event of done ? decoder.close() : decoder.feed(value)) {
      const snapshot = readCheckpoint(event);
      if (snapshot !== undefined) msg = snapshot; // the reply so far, in place of ours
      else appendEvent(msg, event);
    }
    if (done) return msg;
  }
}
