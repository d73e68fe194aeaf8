// The TypeScript side of tests/typescript/test_runtime_vs_python.py's differential test: one
// node process, one case per stdin line, one result per stdout line.
//
// A line with "decode" runs a decoder only:
// case:   {"decode": "ndjson" | "sse" | "msgpack", "stream": "<base64>", "cuts": [<offsets>],
//          "unknown": "raise" | "skip" | "keep", "limit": <maxFrameBytes>}
// result: {"items": [{"json": "<event>"} | {"unknown": "<type>", "raw": "<base64>"}, ...],
//          "error": null | {"name", "reason", "offset", "index"}, "lastEventId", "retry"}
//
// A line with "checkpoint" reads a checkpoint's Msg:
// case:   {"checkpoint": <the msg value>}
// result: {"json": "<JSON.stringify(msg)>" | null, "error": null | {"name", "path"}}
//
// Otherwise:
// case:   {"initial": <Msg>, "format": "ndjson" | "msgpack", "stream": "<base64 of the framed events>",
//          "chunk": <feed size in bytes>, "split": <events applied before a checkpoint round trip>}
// result: {"events": <how many were decoded>,
//          "lenient": {"json": "<JSON.stringify(msg)>", "anomalies": [...]},   (extendEvents)
//          "strict": {"json": "...", "error": null | {"kind", "index"}},       (appendEvent, strict)
//          "resumed": "<JSON after events[:split], a checkpoint of it as JSON, then the rest>"}

import { createInterface } from "node:readline";

import {
  appendEvent,
  decodeBase64,
  encodeBase64,
  RemoteProtocolError,
  SSEDecoder,
  UnknownEvent,
  extendEvents,
  MsgpackFrameDecoder,
  NDJSONDecoder,
  readCheckpoint,
  StreamOrderError,
} from "../../schemas/dist/index.js";

function decode(format, bytes, chunk) {
  const decoder = format === "msgpack" ? new MsgpackFrameDecoder() : new NDJSONDecoder();
  const events = [];
  for (let at = 0; at < bytes.length; at += chunk) events.push(...decoder.feed(bytes.subarray(at, at + chunk)));
  events.push(...decoder.close());
  return events;
}

const copy = (value) => JSON.parse(JSON.stringify(value));

function run({ initial, format, stream, chunk, split }) {
  const events = decode(format, decodeBase64(stream), chunk);

  const lenient = copy(initial);
  extendEvents(lenient, events);

  const strict = copy(initial);
  let error = null;
  for (const event of events) {
    try {
      appendEvent(strict, event, { strict: true });
    } catch (caught) {
      if (!(caught instanceof StreamOrderError)) throw caught;
      error = { kind: caught.kind, index: caught.index };
      break;
    }
  }

  const half = copy(initial);
  extendEvents(half, events.slice(0, split));
  const resumed = readCheckpoint({ type: "CUSTOM", name: "wire.checkpoint", value: { msg: copy(half) } });
  extendEvents(resumed, events.slice(split));

  return {
    events: events.length,
    lenient: { json: JSON.stringify(lenient), anomalies: extendEvents(copy(initial), events) },
    strict: { json: JSON.stringify(strict), error },
    resumed: JSON.stringify(resumed),
  };
}

function checkpoint({ checkpoint: msg }) {
  try {
    const read = readCheckpoint({ type: "CUSTOM", name: "wire.checkpoint", value: { msg } });
    return { json: JSON.stringify(read), error: null };
  } catch (caught) {
    if (!(caught instanceof RemoteProtocolError)) throw caught; // a TypeError is a crash
    return { json: null, error: { name: caught.name, path: caught.path ?? null } };
  }
}

const DECODERS = { ndjson: NDJSONDecoder, sse: SSEDecoder, msgpack: MsgpackFrameDecoder };

function decodeOnly({ decode: framing, stream, cuts, unknown, limit }) {
  const bytes = decodeBase64(stream);
  const decoder = new DECODERS[framing]({ unknown, maxFrameBytes: limit });
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const items = [];
  let error = null;
  try {
    let at = 0;
    for (const point of [...points, bytes.length]) {
      items.push(...decoder.feed(bytes.subarray(at, point)));
      at = point;
    }
    items.push(...decoder.close());
  } catch (caught) {
    if (!(caught instanceof RemoteProtocolError)) throw caught;
    items.push(...caught.events);
    error = { name: caught.name, reason: caught.reason, offset: caught.offset ?? null, index: caught.index ?? null,
      path: caught.path ?? null };
  }
  return {
    items: items.map((item) => item instanceof UnknownEvent
      ? { unknown: item.type, raw: encodeBase64(item.raw) }
      : { json: JSON.stringify(item, (_, v) => (v instanceof Uint8Array ? encodeBase64(v) : v)) }),
    error,
    lastEventId: decoder.lastEventId ?? null,
    retry: decoder.retry ?? null,
  };
}

for await (const line of createInterface({ input: process.stdin })) {
  let result;
  try {
    const request = JSON.parse(line);
    result = request.decode ? decodeOnly(request) : "checkpoint" in request ? checkpoint(request) : run(request);
  } catch (error) {
    result = { crash: String(error?.stack ?? error) };
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
