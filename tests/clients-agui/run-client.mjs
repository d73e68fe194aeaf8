// Drive the real, unmodified @ag-ui/client HttpAgent over an AG-UI SSE body
// written by wire, and print what the client built, as JSON on stdout.
//
//   node run-client.mjs BODY.sse [--chunk N]
//   node run-client.mjs --url URL
//   node run-client.mjs --batch LIST.json [--chunk N]
//
// The body is cut into runs at each RUN_STARTED frame (the bytes are not
// changed): each run is one runAgent() call, as an application resuming a
// parked reply makes one, answering the previous run's interrupts with the
// `resume` entries that run's RUN_STARTED.input carries. The injected fetch
// answers each call with that run's bytes, delivered in chunks of N bytes
// (default 61) so frames and UTF-8 sequences are split across reads.
//
// With --url, the agent talks to a real server with the real fetch instead:
// it runs, and while the run leaves interrupts pending, runs again resuming
// every one of them as approved (at most 10 runs).
//
// Output: {messages, runs: [{runId, outcome, usage, metadata, error}],
// custom: [{name, value}], raw: [...], steps: [...], warnings: [...]}. A run the
// client rejects is reported in runs[i].error; the harness goes on with the
// next run so that one failure does not hide the rest.
import { readFileSync } from "node:fs";
import { HttpAgent } from "@ag-ui/client";

const args = process.argv.slice(2);
const urlAt = args.indexOf("--url");
const url = urlAt >= 0 ? args[urlAt + 1] : null;
const path = url === null && !args[0].startsWith("--") ? args[0] : null;
const batchAt = args.indexOf("--batch");
const chunkAt = args.indexOf("--chunk");
const chunk = chunkAt >= 0 ? Number(args[chunkAt + 1]) : 61;

const warnings = [];
for (const level of ["warn", "error"]) {
  console[level] = (...parts) => warnings.push(parts.map((p) => (typeof p === "string" ? p : String(p))).join(" "));
}

// Frame boundaries: wire writes "data: <json>\n\n" frames, as @ag-ui/encoder does.
function splitRuns(bytes) {
  const text = bytes.toString("utf8");
  const runs = [];
  let start = 0;
  let current = null;
  while (start < text.length) {
    const end = text.indexOf("\n\n", start);
    const stop = end < 0 ? text.length : end + 2;
    const frame = text.slice(start, stop);
    const event = JSON.parse(frame.slice("data: ".length));
    if (event.type === "RUN_STARTED" || current === null) {
      current = { started: event, frames: [] };
      runs.push(current);
    }
    current.frames.push(frame);
    start = stop;
  }
  return runs.map((run) => ({ started: run.started, bytes: Buffer.from(run.frames.join(""), "utf8") }));
}

function responseOf(bytes) {
  let offset = 0;
  const stream = new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(new Uint8Array(bytes.subarray(offset, offset + chunk)));
      offset += chunk;
    },
  });
  return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
}

function subscriberFor(record, report) {
  return {
    onRunFinishedEvent: ({ event }) => {
      record.outcome = event.outcome ?? null;
      record.usage = event.usage ?? null;
      record.metadata = event.metadata ?? null;
    },
    onRunErrorEvent: ({ event }) => {
      record.runError = { message: event.message, code: event.code ?? null, usage: event.usage ?? null,
                          metadata: event.metadata ?? null };
    },
    onCustomEvent: ({ event }) => {
      report.custom.push({ name: event.name, value: event.value });
    },
    onRawEvent: ({ event }) => {
      report.raw.push(event.event);
    },
    onStepStartedEvent: ({ event }) => {
      report.steps.push({ started: event.stepName });
    },
    onStepFinishedEvent: ({ event }) => {
      report.steps.push({ finished: event.stepName, metadata: event.metadata ?? null });
    },
  };
}

async function runOnce(agent, report, parameters, runId) {
  const record = { runId };
  try {
    await agent.runAgent(parameters, subscriberFor(record, report));
  } catch (error) {
    record.error = error instanceof Error ? error.message : String(error);
  }
  record.pendingInterrupts = agent.pendingInterrupts.map((i) => i.id);
  report.runs.push(record);
}

async function runBody(bytes) {
  warnings.length = 0;
  const report = { messages: [], runs: [], custom: [], raw: [], steps: [], warnings: [] };
  const runs = splitRuns(bytes);
  let nextBody = null;
  const agent = new HttpAgent({
    url: "http://127.0.0.1/agui",
    threadId: runs.length ? runs[0].started.threadId : "thread",
    fetch: async () => responseOf(nextBody),
  });
  for (const run of runs) {
    nextBody = run.bytes;
    const resume = run.started.input?.resume;
    await runOnce(agent, report, { runId: run.started.runId, ...(resume ? { resume } : {}) }, run.started.runId ?? null);
  }
  report.messages = agent.messages;
  report.warnings = [...warnings];
  return report;
}

if (batchAt >= 0) {
  // --batch LIST.json: [{name, path}] -> {name: report}, one process for many bodies.
  const results = {};
  for (const { name, path: bodyPath } of JSON.parse(readFileSync(args[batchAt + 1], "utf8"))) {
    results[name] = await runBody(readFileSync(bodyPath));
  }
  process.stdout.write(JSON.stringify(results));
} else if (url === null) {
  process.stdout.write(JSON.stringify(await runBody(readFileSync(path))));
} else {
  const report = { messages: [], runs: [], custom: [], raw: [], steps: [], warnings };
  const agent = new HttpAgent({ url, threadId: "thread" });
  await runOnce(agent, report, {}, null);
  for (let i = 0; i < 10 && agent.pendingInterrupts.length > 0; i++) {
    const resume = agent.pendingInterrupts.map((interrupt) => ({
      interruptId: interrupt.id, status: "resolved", payload: { approved: true },
    }));
    await runOnce(agent, report, { resume }, null);
  }
  report.messages = agent.messages;
  process.stdout.write(JSON.stringify(report));
}
