// The TypeScript runtime's figures (benchmarks/results/ts.md):
//
// 1. The 24,800-event workload reply (benchmarks/workload.py, seed 0) from
//    NDJSON bytes to a Msg, against the floor any JavaScript reader pays:
//    UTF-8 decoding, splitting into lines and JSON.parse of each line. Goal:
//    at most 1.5x. The same for the reply with padded data chunks. Medians of
//    interleaved rounds (A B C, then C B A), in one process.
// 2. The minified and gzipped size of the runtime, with and without the
//    MessagePack decoder (esbuild, as a frontend's bundler would tree-shake it).
//
// Run from the repository root after `npm ci` and `npm run build` in schemas/:
//   node benchmarks/ts/bench.mjs [rounds] [--json FILE]
// The workload is written once, by wire's Python workload module, to a
// temporary file (WIRE_PYTHON names the interpreter; default `python`), or
// read from WIRE_WORKLOAD (benchmarks/report.py writes it fresh for each run,
// so that a file left by another commit is never read). --json writes every
// figure to FILE for report.py.

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

import { build } from "../../schemas/node_modules/esbuild/lib/main.js";
import { extendEvents, NDJSONDecoder } from "../../schemas/dist/index.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const argv = process.argv.slice(2);
const JSON_OUT = argv.includes("--json") ? argv[argv.indexOf("--json") + 1] : undefined;
const ROUNDS = Number(argv.find((a, i) => /^\d+$/.test(a) && argv[i - 1] !== "--json") ?? 21);
const WORKLOAD = process.env.WIRE_WORKLOAD ?? join(tmpdir(), "wire-workload-seed0.ndjson");
const RESULT = { node: process.version, rounds: ROUNDS, bytes_to_msg_ms: {}, growth_ms: {}, bundle: {} };
const CHUNK = 64 * 1024; // what a network stream hands over at a time

// Two replies: the workload as it is, and the same reply with padded data
// chunks (workload.py's padded=True: each chunk base64-encoded on its own, as
// audio arrives from model APIs), from WIRE_WORKLOAD_PADDED or written beside it.
function workload(file, padded) {
  if (!existsSync(file)) {
    const script = "import sys; from benchmarks.workload import ndjson, reply_events; "
      + `open(sys.argv[1], "wb").write(ndjson(reply_events(seed=0, padded=${padded ? "True" : "False"})))`;
    execFileSync(process.env.WIRE_PYTHON ?? "python", ["-c", script, file], { cwd: ROOT });
  }
  return new Uint8Array(readFileSync(file));
}
const WORKLOADS = {
  bytes_to_msg_ms: workload(WORKLOAD, false),
  padded_bytes_to_msg_ms: workload(process.env.WIRE_WORKLOAD_PADDED ?? WORKLOAD.replace(/(\.ndjson)?$/, "-padded.ndjson"), true),
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

for (const [key, bytes] of Object.entries(WORKLOADS)) {
  const id = JSON.parse(new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(10)))).reply_id;
  const initial = () => ({ name: "Friday", content: [], role: "assistant", id, created_at: "2026-01-01T00:00:00" });

  const floor = () => {
    const lines = new TextDecoder().decode(bytes).split("\n");
    const events = [];
    for (const line of lines) if (line) events.push(JSON.parse(line));
    return events.length;
  };
  const runtime = (chunk) => () => {
    const decoder = new NDJSONDecoder();
    const msg = initial();
    for (let at = 0; at < bytes.length; at += chunk) extendEvents(msg, decoder.feed(bytes.subarray(at, at + chunk)));
    extendEvents(msg, decoder.close());
    return msg.content.length;
  };
  const decodeOnly = () => {
    const decoder = new NDJSONDecoder();
    let n = 0;
    for (let at = 0; at < bytes.length; at += CHUNK) n += decoder.feed(bytes.subarray(at, at + CHUNK)).length;
    return n + decoder.close().length;
  };
  const CASES = {
    "floor: TextDecoder + split + JSON.parse per line": floor,
    "runtime: NDJSONDecoder (64 KiB feeds) + extendEvents": runtime(CHUNK),
    "runtime: NDJSONDecoder (one feed) + extendEvents": runtime(bytes.length),
    "runtime: NDJSONDecoder only (64 KiB feeds)": decodeOnly,
  };

  const times = Object.fromEntries(Object.keys(CASES).map((name) => [name, []]));
  for (let round = -3; round < ROUNDS; round++) { // 3 warm-up rounds, not counted
    const order = Object.entries(CASES);
    for (const [name, run] of round % 2 ? order.reverse() : order) { // A B C, then C B A
      const start = performance.now();
      run();
      const took = performance.now() - start;
      if (round >= 0) times[name].push(took);
    }
  }
  const base = median(times[Object.keys(CASES)[0]]);
  const what = key.startsWith("padded") ? "the reply with padded data chunks" : "the workload reply";
  console.log(`\n${what}: ${(bytes.length / 1e6).toFixed(1)} MB of NDJSON, ${floor()} events; node ${process.version}; ${ROUNDS} rounds\n`);
  console.log("| case | median ms | / floor |");
  console.log("|---|---:|---:|");
  RESULT[key] = {};
  for (const name of Object.keys(CASES)) {
    const m = median(times[name]);
    console.log(`| ${name} | ${m.toFixed(1)} | ${(m / base).toFixed(2)}x |`);
    RESULT[key][name] = m;
  }
  if (key === "bytes_to_msg_ms") {
    RESULT.bytes = bytes.length;
    RESULT.events = floor();
  }
}

// -- growth: O(1) amortized per event means 10x the events cost about 10x ----------------

function growth(kind, n) {
  const reply = "r";
  const events = [kind === "text"
    ? { type: "TEXT_BLOCK_START", reply_id: reply, block_id: "b", created_at: "t" }
    : { type: "DATA_BLOCK_START", reply_id: reply, block_id: "b", media_type: "m", created_at: "t" }];
  for (let i = 0; i < n; i++) {
    events.push(kind === "text"
      ? { type: "TEXT_BLOCK_DELTA", reply_id: reply, block_id: "b", delta: "x", created_at: "t" }
      : { type: "DATA_BLOCK_DELTA", reply_id: reply, block_id: "b", media_type: "m", data: "AQ==", created_at: "t" });
  }
  const msg = { name: "n", content: [], role: "assistant", id: reply };
  const start = performance.now();
  extendEvents(msg, events);
  JSON.stringify(msg); // the whole value is read once at the end
  return performance.now() - start;
}

console.log("\n| growth (extendEvents, then JSON.stringify once) | median ms | ratio |");
console.log("|---|---:|---:|");
for (const [kind, what] of [["text", "one-character text deltas"], ["data", "1-byte base64 chunks (each padded)"]]) {
  const small = median(Array.from({ length: 7 }, () => growth(kind, 100_000)));
  const large = median(Array.from({ length: 7 }, () => growth(kind, 1_000_000)));
  console.log(`| 100k ${what} | ${small.toFixed(1)} | |`);
  console.log(`| 1M ${what} | ${large.toFixed(1)} | ${(large / small).toFixed(2)}x |`);
  RESULT.growth_ms[`100k ${what}`] = small;
  RESULT.growth_ms[`1M ${what}`] = large;
}

// -- bundle size -----------------------------------------------------------------------

async function size(contents) {
  const result = await build({
    stdin: { contents, resolveDir: join(ROOT, "schemas"), loader: "js" },
    bundle: true, minify: true, format: "esm", write: false, platform: "browser",
  });
  const code = result.outputFiles[0].contents;
  return { min: code.length, gz: gzipSync(code, { level: 9 }).length };
}

const all = "export * from './dist/index.js';";
const names = Object.keys(await import("../../schemas/dist/index.js")).filter((n) => n !== "MsgpackFrameDecoder");
const noMsgpack = `export { ${names.join(", ")} } from './dist/index.js';`;
const reducerOnly = "export { appendEvent, extendEvents, anomaliesOf } from './dist/index.js';";
console.log("\n| bundle (esbuild --minify, gzip -9) | minified bytes | gzipped bytes |");
console.log("|---|---:|---:|");
for (const [label, entry] of [["whole runtime", all], ["without MsgpackFrameDecoder", noMsgpack],
  ["appendEvent/extendEvents only", reducerOnly]]) {
  const { min, gz } = await size(entry);
  console.log(`| ${label} | ${min} | ${gz} |`);
  RESULT.bundle[label] = { minified: min, gzipped: gz };
}
if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(RESULT, null, 1));
