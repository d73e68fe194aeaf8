// A streaming tool call's arguments, 4,000 one-character TOOL_CALL_DELTAs,
// with the value shown after every delta, three ways:
//   - the runtime's PartialJSON: each character parsed once;
//   - re-parsing the whole buffer per delta, the way clients that close the
//     open strings and brackets and call JSON.parse do it (O(N x length));
//   - JSON.parse of the whole buffer per delta without any repair, the least
//     any re-parsing client pays (a floor for the second way, not a usable view).
// And JSON.parse of the final text once, for scale. Medians of ROUNDS rounds,
// the ways run round-robin so that machine noise hits each alike.
// Usage: node benchmarks/ts/partial.mjs [--rounds N] [--markdown FILE]
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { parseArgs } from "node:util";

import { PartialJSON } from "../../schemas/dist/index.js";

const { values: args } = parseArgs({ options: { rounds: { type: "string", default: "15" }, markdown: { type: "string" } } });
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

function measure(length) {
  const TEXT = argumentsText(length);
  const DELTAS = [...TEXT];

  const WAYS = {
    "PartialJSON, value read after every delta": () => {
      const view = new PartialJSON();
      for (const delta of DELTAS) {
        view.feed(delta);
        sink += view.value === undefined ? 0 : 1;
      }
    },
    "PartialJSON, and the streaming string read whole after every delta": () => {
      const view = new PartialJSON();
      for (const delta of DELTAS) {
        view.feed(delta);
        const content = view.value?.content;
        // charCodeAt makes V8 flatten the concatenated string: what a renderer pays to show it, in any client.
        sink += typeof content === "string" && content.length ? content.charCodeAt(content.length - 1) : 0;
      }
    },
    "re-parse: close the buffer, JSON.parse, per delta": () => {
      let buffer = "";
      for (const delta of DELTAS) {
        buffer += delta;
        sink += repairAndParse(buffer) === undefined ? 0 : 1;
      }
    },
    "floor of re-parsing: JSON.parse of the buffer per delta, no repair": () => {
      let buffer = "";
      for (const delta of DELTAS) {
        buffer += delta;
        try { JSON.parse(buffer); sink++; } catch { sink--; }
      }
    },
    "JSON.parse of the final text, once (scale)": () => { sink += JSON.stringify(JSON.parse(TEXT)).length; },
  };

  // Both ways end with the same value.
  {
    const view = new PartialJSON();
    let buffer = "";
    for (const delta of DELTAS) {
      view.feed(delta);
      buffer += delta;
    }
    if (JSON.stringify(view.close()) !== JSON.stringify(repairAndParse(buffer))) throw new Error("views differ");
  }

  const times = Object.fromEntries(Object.keys(WAYS).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS + 2; round++) {
    for (const [name, way] of Object.entries(WAYS)) {
      const start = process.hrtime.bigint();
      way();
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (round >= 2) times[name].push(ms); // two warm-up rounds
    }
  }
  const partial = median(times["PartialJSON, value read after every delta"]);
  const rows = Object.entries(times).map(([name, xs]) => {
    const m = median(xs);
    return `| ${name} | ${m.toFixed(3)} ms | ${(m / partial).toFixed(1)}x |`;
  });
  const report = [
    `${DELTAS.length.toLocaleString("en")} one-character deltas of a ${TEXT.length}-character tool call input; ` +
      `median of ${ROUNDS} rounds, round-robin;`,
    `node ${process.version}, ${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} cores, shared).`,
    "",
    "| way | median | vs PartialJSON |",
    "|---|---:|---:|",
    ...rows,
    "",
  ].join("\n");
  return report;
}

const report = [4000, 8000].map(measure).join("\n");
console.log(report);
if (args.markdown) writeFileSync(args.markdown, report);
if (sink === 0.5) console.log(sink);
