// The TypeScript runtime's bytes -> Msg in headless Chromium: the same cases as
// bench.mjs's first table (the 24,800-event workload reply as NDJSON, fed in
// 64 KiB chunks to NDJSONDecoder and extendEvents), against the floor any
// JavaScript reader pays (TextDecoder + split + JSON.parse per line), medians of
// interleaved rounds inside one page (A B C, then C B A, ...).
//
// Run from the repository root after `npm ci` in schemas/ and tests/browser/,
// and `npm run build` in schemas/ (bench.mjs writes the workload file first):
//   node benchmarks/ts/browser.mjs [rounds] [chromium path] [--json FILE]
// WIRE_WORKLOAD and WIRE_WORKLOAD_PADDED name the two workload files (the
// reply, and the reply with padded data chunks), as for bench.mjs; --json
// writes the medians for benchmarks/report.py.

import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "../../schemas/node_modules/esbuild/lib/main.js";
import { chromium } from "../../tests/browser/node_modules/playwright-core/index.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const argv = process.argv.slice(2);
const JSON_OUT = argv.includes("--json") ? argv.splice(argv.indexOf("--json"), 2)[1] : undefined;
const [rounds = "11", executablePath = "/usr/bin/chromium"] = argv;
const WORKLOAD = process.env.WIRE_WORKLOAD ?? join(tmpdir(), "wire-workload-seed0.ndjson");
const WORKLOADS = {
  bytes_to_msg_ms: WORKLOAD,
  padded_bytes_to_msg_ms: process.env.WIRE_WORKLOAD_PADDED ?? WORKLOAD.replace(/(\.ndjson)?$/, "-padded.ndjson"),
};

const PAGE = `
import { extendEvents, NDJSONDecoder } from "./dist/index.js";
window.runBench = (b64, rounds) => {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const id = JSON.parse(new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(10)))).reply_id;
  const initial = () => ({ name: "Friday", content: [], role: "assistant", id, created_at: "2026-01-01T00:00:00" });
  const CHUNK = 64 * 1024;
  const cases = {
    "floor: TextDecoder + split + JSON.parse per line": () => {
      const events = [];
      for (const line of new TextDecoder().decode(bytes).split("\\n")) if (line) events.push(JSON.parse(line));
      return events.length;
    },
    "runtime: NDJSONDecoder (64 KiB feeds) + extendEvents": () => {
      const decoder = new NDJSONDecoder();
      const msg = initial();
      for (let at = 0; at < bytes.length; at += CHUNK) extendEvents(msg, decoder.feed(bytes.subarray(at, at + CHUNK)));
      extendEvents(msg, decoder.close());
      return msg.content.length;
    },
    "runtime: NDJSONDecoder only (64 KiB feeds)": () => {
      const decoder = new NDJSONDecoder();
      let n = 0;
      for (let at = 0; at < bytes.length; at += CHUNK) n += decoder.feed(bytes.subarray(at, at + CHUNK)).length;
      return n + decoder.close().length;
    },
  };
  const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  for (let round = -3; round < rounds; round++) { // 3 warm-up rounds, not counted
    const order = Object.entries(cases);
    for (const [name, run] of round % 2 ? order.reverse() : order) {
      const start = performance.now();
      run();
      if (round >= 0) times[name].push(performance.now() - start);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)]));
};
`;

const bundle = await build({
  stdin: { contents: PAGE, resolveDir: join(ROOT, "schemas"), loader: "js" },
  bundle: true, format: "iife", write: false, platform: "browser",
});
const browser = await chromium.launch({ executablePath, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
try {
  const page = await browser.newPage();
  await page.addScriptTag({ content: bundle.outputFiles[0].text });
  const result = { chromium: browser.version(), rounds: Number(rounds) };
  console.log(`Chromium ${browser.version()}; ${rounds} rounds`);
  for (const [key, file] of Object.entries(WORKLOADS)) {
    const b64 = readFileSync(file).toString("base64");
    const medians = await page.evaluate(([data, n]) => window.runBench(data, n), [b64, Number(rounds)]);
    const base = Object.values(medians)[0];
    console.log(`\n${key.startsWith("padded") ? "the reply with padded data chunks" : "the workload reply"}\n\n`
      + "| case | median ms | / floor |\n|---|---:|---:|");
    for (const [name, ms] of Object.entries(medians)) console.log(`| ${name} | ${ms.toFixed(1)} | ${(ms / base).toFixed(2)}x |`);
    result[key] = medians;
  }
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(result, null, 1));
} finally {
  await browser.close();
}
