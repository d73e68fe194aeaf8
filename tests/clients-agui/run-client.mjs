// Drive the real, unmodified @ag-ui/client HttpAgent over an AG-UI SSE body
// written by wire, and print what the client built, as JSON on stdout.
//
//   node run-client.mjs BODY.sse [--chunk N]
//
// The body is cut into runs at each RUN_STARTED frame (the bytes are not
// changed): each run is one runAgent() call, as an application resuming a
// parked reply makes one, answering the previous run's interrupts with the
// `resume` entries that run's RUN_STARTED.input carries. The injected fetch
// answers each call with that run's bytes, delivered in chunks of N bytes
// (default 61) so frames and UTF-8 sequences are split across reads.
//
// Output: {messages, runs: [{runId, outcome, usage, metadata, error}],
// custom: [{name, value}], raw: [...], steps: [...], warnings: [...]}. A run the
// client rejects is reported in runs[i].error; the harness goes on with the
// next run so that one failure does not hide the rest.
import { readFileSync } from "node:fs";
import { HttpAgent } from "@ag-ui/client";

const args = process.argv.slice(2);
const path = args[0];
const chunkAt = args.indexOf("--chunk");
const chunk = chunkAt >= 0 ? Number(args[chunkAt + 1]) : 61;

const warnings = [];
for (const level of ["warn", "error"]) {
  console[level] = (...parts) => warnings.push(parts.map((p) => (typeof p === "string" ? p : String(p))).join(" "));
}

const body = readFileSync(path);

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

const runs = splitRuns(body);
const threadId = runs.length ? runs[0].started.threadId : "thread";
let nextBody = null;
const agent = new HttpAgent({
  url: "http://127.0.0.1/agui",
  threadId,
  fetch: async () => responseOf(nextBody),
});

const report = { messages: [], runs: [], custom: [], raw: [], steps: [], warnings };
for (const run of runs) {
  nextBody = run.bytes;
  const record = { runId: run.started.runId ?? null };
  const subscriber = {
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
  const resume = run.started.input?.resume;
  try {
    await agent.runAgent({ runId: run.started.runId, ...(resume ? { resume } : {}) }, subscriber);
  } catch (error) {
    record.error = error instanceof Error ? error.message : String(error);
  }
  record.pendingInterrupts = agent.pendingInterrupts.map((i) => i.id);
  report.runs.push(record);
}
report.messages = agent.messages;
process.stdout.write(JSON.stringify(report));
