// The runtime over every agentscope 2.0.11 vector (tests/vectors): each case's
// events, framed four ways (agentscope's NDJSON, agentscope's SSE where it was
// recorded, wire's SSE with ids and wire's MessagePack frames, the last two
// written by wire's own CLI), fed in several chunkings, must decode to the same
// events and reduce to the Msg agentscope built, compared as
// tests/model/test_reducer.py compares it: in wire's form, apply-time fields masked.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  appendEvent,
  anomaliesOf,
  extendEvents,
  MsgpackFrameDecoder,
  NDJSONDecoder,
  readCheckpoint,
  SSEDecoder,
} from "../dist/index.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const VECTORS = join(ROOT, "tests", "vectors", "agentscope-2.0.11");
const PYTHON = process.env.WIRE_PYTHON ?? "python";
// Every case is a folder of its own (the folder also holds a README and _messages).
const CASES = readdirSync(VECTORS, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !entry.name.startsWith("_"))
  .map((entry) => entry.name)
  .sort();

/** A deterministic generator of chunk sizes (mulberry32), so a failure can be replayed. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The stream cut into chunks of the sizes `size()` gives. */
function* chunks(bytes, size) {
  for (let at = 0; at < bytes.length; ) {
    const n = Math.max(1, size());
    yield bytes.subarray(at, at + n);
    at += n;
  }
}

const CHUNKINGS = {
  whole: (bytes) => [bytes],
  "one byte": (bytes) => chunks(bytes, () => 1),
  "up to 64 bytes": (bytes) => { const r = random(1); return chunks(bytes, () => Math.ceil(r() * 64)); },
  "up to 4 KiB": (bytes) => { const r = random(2); return chunks(bytes, () => Math.ceil(r() * 4096)); },
};

function decodeAll(makeDecoder, pieces) {
  const decoder = makeDecoder();
  const events = [];
  for (const piece of pieces) events.push(...decoder.feed(piece));
  events.push(...decoder.close());
  return { decoder, events };
}

/** wire's form of a Msg (what wire.json.decode_msg then encode gives), through the public API. */
function wireForm(msg) {
  return readCheckpoint({ type: "CUSTOM", name: "wire.checkpoint", value: { msg } });
}

/** tests/model/test_reducer.py's mask_apply_time: the fields agentscope stamps at apply time. */
function maskApplyTime(msg) {
  for (const block of msg.content) {
    block.created_at = "<event time>";
    if (block.type === "hint") block.finished_at = "<event time>";
    if (block.type === "tool_result" && Array.isArray(block.output)) {
      for (const part of block.output) {
        part.created_at = "<event time>";
        if (part.type === "text") part.id = "<derived id>";
      }
    }
  }
  return msg;
}

function framings(name) {
  const dir = join(VECTORS, name);
  const ndjson = readFileSync(join(dir, "events.jsonl"));
  const convert = (to) => execFileSync(PYTHON, ["-m", "wire", "convert", "--to", to, join(dir, "events.jsonl"), "-"], {
    cwd: ROOT, maxBuffer: 1 << 28,
  });
  const out = {
    "agentscope NDJSON": { bytes: ndjson, decoder: () => new NDJSONDecoder() },
    "wire SSE with ids": { bytes: convert("sse"), decoder: () => new SSEDecoder(), ids: true },
    "wire MessagePack frames": { bytes: convert("msgpack"), decoder: () => new MsgpackFrameDecoder() },
  };
  if (existsSync(join(dir, "events.sse"))) {
    out["agentscope SSE"] = { bytes: readFileSync(join(dir, "events.sse")), decoder: () => new SSEDecoder() };
  }
  return out;
}

for (const name of CASES) {
  describe(name, () => {
    const dir = join(VECTORS, name);
    const lines = readFileSync(join(dir, "events.jsonl"), "utf8").split("\n").filter((line) => line.trim());
    const expected = JSON.stringify(maskApplyTime(wireForm(JSON.parse(readFileSync(join(dir, "expected_msg.json"), "utf8")))));
    const reference = lines.map((line) => JSON.parse(line));

    for (const [framing, { bytes, decoder, ids }] of Object.entries(framings(name))) {
      for (const [chunking, cut] of Object.entries(CHUNKINGS)) {
        test(`${framing}, ${chunking}`, () => {
          const { decoder: used, events } = decodeAll(decoder, cut(bytes));
          assert.equal(events.length, reference.length);
          if (!framing.includes("MessagePack")) assert.deepEqual(events, reference);
          const msg = JSON.parse(readFileSync(join(dir, "initial_msg.json"), "utf8"));
          for (const event of events) appendEvent(msg, event, { strict: true }); // agentscope's streams have no anomaly
          assert.deepEqual(anomaliesOf(msg), []);
          assert.equal(JSON.stringify(maskApplyTime(JSON.parse(JSON.stringify(msg)))), expected);
          if (framing.includes("SSE")) assert.equal(used.lastEventId, ids ? String(events.length - 1) : "");
        });
      }
    }
  });
}

test("the vectors have every case the Python conformance test has", () => {
  assert.ok(CASES.length >= 12, CASES.join(", "));
});

test("padded base64 chunks (each chunk encoded on its own) reduce to Python's Msg byte for byte", () => {
  // benchmarks/workload.py's padded reply: chunks of 3,958-3,962 bytes, so every chunk after the
  // first starts 1 or 2 bytes into a base64 group of the joined data.
  const script = "import sys, wire; from benchmarks.workload import initial_msg, ndjson, reply_events; "
    + "events = reply_events(seed=0, scale=0.2, padded=True); "
    + "sys.stdout.buffer.write(wire.json.encode(initial_msg()) + b'\\n' "
    + "+ wire.json.encode(initial_msg().extend_events(events)) + b'\\n' + ndjson(events))";
  const out = execFileSync(PYTHON, ["-c", script], { cwd: ROOT, maxBuffer: 1 << 28 });
  const first = out.indexOf(10);
  const second = out.indexOf(10, first + 1);
  const initial = new TextDecoder().decode(out.subarray(0, first));
  const expected = new TextDecoder().decode(out.subarray(first + 1, second));
  const bytes = out.subarray(second + 1);
  const sizes = random(3);
  const { events } = decodeAll(() => new NDJSONDecoder(), chunks(bytes, () => Math.ceil(sizes() * 65536)));
  const padded = events.filter((e) => e.type === "DATA_BLOCK_DELTA" && e.data.endsWith("="));
  assert.ok(padded.length >= 50, `${padded.length} padded chunks`);
  for (const split of [0, events.indexOf(padded[7]) + 1, events.length]) {
    // reduced in one go, and resumed from a checkpoint taken after a padded chunk
    const msg = JSON.parse(initial);
    extendEvents(msg, events.slice(0, split), { strict: true });
    const resumed = readCheckpoint({ type: "CUSTOM", name: "wire.checkpoint", value: { msg: JSON.parse(JSON.stringify(msg)) } });
    extendEvents(resumed, events.slice(split), { strict: true });
    assert.equal(JSON.stringify(resumed), expected);
  }
});
