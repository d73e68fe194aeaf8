// A streaming tool call's arguments, N one-character TOOL_CALL_DELTAs, the
// value shown after every delta. The headline pair is like for like: after
// each delta both ways hold the same value (checked for every prefix before
// timing) and read its streaming string whole, as a renderer does:
//   - the runtime's PartialJSON: each character parsed once;
//   - re-parsing the whole buffer per delta, the way clients that close the
//     open strings and brackets and call JSON.parse do it (O(N x length)).
// For information, and not comparable with the pair: PartialJSON without
// reading the string (V8 keeps the growing string as a rope until read), and
// JSON.parse of the raw buffer per delta without any repair (it throws on
// almost every prefix and yields no value: a floor of re-parsing, not a view);
// JSON.parse of the final text once, for scale. Medians of ROUNDS rounds, the
// ways run round-robin so that machine noise hits each alike.
// Usage: node benchmarks/ts/partial.mjs [--rounds N] [--markdown FILE] [--json FILE]
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { parseArgs } from "node:util";

import { PartialJSON } from "../../schemas/dist/index.js";

const { values: args } = parseArgs({
  options: { rounds: { type: "string", default: "15" }, markdown: { type: "string" }, json: { type: "string" } },
});
const ROUNDS = Number(args.rounds);

/** Arguments of exactly `length` characters: a path, a list, and a long string that streams last. */
function argumentsText(length) {
  const head = '{"path": "src/report.md", "lines": [12, 48, 96], "content": "';
  const tail = '"}';
  const words = "the quick brown fox jumps over the lazy dog; \\\"quoted\\\" and a newline\\n ";
  let body = "";
  while (body.length < length - head.length - tail.length) body += words;
  body = body.slice(0, length - head.length - tail.length);
  if (body.endsWith("\\") && !body.endsWith("\\\\")) body = body.slice(0, -1) + "x";
  const text = head + body + tail;
  JSON.parse(text); // valid
  return text;
}

/** Close what is open in a JSON prefix and parse it: a re-parsing client's view (whole buffer each time). */
function repairAndParse(buffer) {
  const closers = [];
  let inString = false;
  let escaped = false;
  let cut = buffer.length;
  for (let i = 0; i < buffer.length; i++) {
    const c = buffer[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") closers.push("}");
    else if (c === "[") closers.push("]");
    else if (c === "}" || c === "]") closers.pop();
  }
  // A number at the very end may still grow (1 -> 12): leave it out until a delimiter ends it.
  if (!inString) {
    let j = cut;
    while (j > 0 && "0123456789+-.eE".includes(buffer[j - 1])) j--;
    if (j < cut && "0123456789-".includes(buffer[j])) cut = j;
  }
  let text = buffer.slice(0, cut);
  if (inString) {
    if (escaped) text = text.slice(0, -1);
    const u = text.lastIndexOf("\\u");
    if (u >= 0 && u > text.length - 6) text = text.slice(0, u);
    text += '"';
  }
  // A dangling key, colon, comma or partial literal/number: drop back to the last complete member.
  for (;;) {
    try {
      return JSON.parse(text + closers.slice().reverse().join(""));
    } catch {
      const at = Math.max(text.lastIndexOf(","), text.lastIndexOf("{"), text.lastIndexOf("["));
      if (at < 0) return undefined;
      text = text[at] === "," ? text.slice(0, at) : text.slice(0, at + 1);
    }
  }
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
let sink = 0;

const PAIR_VIEW = "PartialJSON: value after every delta, its string read";
const PAIR_REPARSE = "re-parse: close the buffer, JSON.parse, per delta, its string read";

/** The last character of the streaming string: reading it makes V8 flatten it, as a renderer must. */
const readContent = (value) => {
  const content = value?.content;
  return typeof content === "string" && content.length ? content.charCodeAt(content.length - 1) : 0;
};

function measure(length) {
  const TEXT = argumentsText(length);
  const DELTAS = [...TEXT];

  const WAYS = {
    [PAIR_VIEW]: () => {
      const view = new PartialJSON();
      for (const delta of DELTAS) {
        view.feed(delta);
        sink += readContent(view.value);
      }
    },
    [PAIR_REPARSE]: () => {
      let buffer = "";
      for (const delta of DELTAS) {
        buffer += delta;
        sink += readContent(repairAndParse(buffer));
      }
    },
    "info, not comparable: PartialJSON, value after every delta, string never read": () => {
      const view = new PartialJSON();
      for (const delta of DELTAS) {
        view.feed(delta);
        sink += view.value === undefined ? 0 : 1;
      }
    },
    "info, not a view: JSON.parse of the raw buffer per delta (throws, no value)": () => {
      let buffer = "";
      for (const delta of DELTAS) {
        buffer += delta;
        try { JSON.parse(buffer); sink++; } catch { sink--; }
      }
    },
    "JSON.parse of the final text, once (scale)": () => { sink += JSON.stringify(JSON.parse(TEXT)).length; },
  };

  // Like for like: after every delta, both ways of the pair hold the same value.
  {
    const view = new PartialJSON();
    let buffer = "";
    for (const [i, delta] of DELTAS.entries()) {
      view.feed(delta);
      buffer += delta;
      const a = JSON.stringify(view.value);
      const b = JSON.stringify(repairAndParse(buffer));
      if (a !== b) throw new Error(`after delta ${i} the views differ: ${a?.slice(0, 80)} against ${b?.slice(0, 80)}`);
    }
    if (JSON.stringify(view.close()) !== JSON.stringify(JSON.parse(TEXT))) throw new Error("final values differ");
  }

  const times = Object.fromEntries(Object.keys(WAYS).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS + 2; round++) {
    const order = Object.entries(WAYS);
    for (const [name, way] of round % 2 ? order.reverse() : order) {
      const start = process.hrtime.bigint();
      way();
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (round >= 2) times[name].push(ms); // two warm-up rounds
    }
  }
  const medians = Object.fromEntries(Object.entries(times).map(([name, xs]) => [name, median(xs)]));
  const view = medians[PAIR_VIEW];
  const rows = Object.entries(medians).map(([name, m]) => `| ${name} | ${m.toFixed(3)} ms | ${(m / view).toFixed(2)}x |`);
  const markdown = [
    `${DELTAS.length.toLocaleString("en")} one-character deltas of a ${TEXT.length}-character tool call input; ` +
      `median of ${ROUNDS} rounds, round-robin;`,
    `node ${process.version}, ${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} cores).`,
    "",
    "| way | median | time vs PartialJSON (string read) |",
    "|---|---:|---:|",
    ...rows,
    "",
  ].join("\n");
  return { deltas: DELTAS.length, medians_ms: medians, ratio: medians[PAIR_REPARSE] / view, markdown };
}

const results = [4000, 8000].map(measure);
const report = results.map((r) => r.markdown).join("\n");
console.log(report);
if (args.markdown) writeFileSync(args.markdown, report);
if (args.json) {
  writeFileSync(args.json, JSON.stringify({
    node: process.version, cpu: cpus()[0]?.model, rounds: ROUNDS, pair: [PAIR_VIEW, PAIR_REPARSE],
    results: results.map(({ markdown, ...rest }) => rest),
  }, null, 1));
}
if (sink === 0.5) console.log(sink);
