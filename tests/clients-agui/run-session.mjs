// Drive the real, unmodified @ag-ui/client HttpAgent (with the real fetch)
// through a session of several turns on one thread, as an application does:
// each turn adds a user message and runs; while the run leaves interrupts
// pending, it runs again answering every one of them as the plan says.
//
//   node run-session.mjs URL THREAD_ID PLAN [HEADERS_JSON]
//
// PLAN: one word per turn, "allow" or "deny". Output, as JSON on stdout:
// {turns: [{runs: [{runId, resume, outcome, metadata, runError, error}],
// pendingInterrupts}], messages, custom, warnings}. A run the client
// rejects is reported in its error; the turns go on.
import { HttpAgent } from "@ag-ui/client";

const [url, threadId, plan, headersJson] = process.argv.slice(2);
const warnings = [];
for (const level of ["warn", "error"]) {
  console[level] = (...parts) => warnings.push(parts.map((p) => (typeof p === "string" ? p : String(p))).join(" "));
}

const report = { turns: [], messages: [], custom: [], warnings };
const agent = new HttpAgent({ url, threadId, headers: JSON.parse(headersJson ?? "{}") });

async function runOnce(runs, parameters) {
  const record = { runId: null, resume: null, outcome: null, metadata: null };
  try {
    await agent.runAgent(parameters, {
      onRunStartedEvent: ({ event }) => {
        record.runId = event.runId;
        record.resume = event.input?.resume ?? null;
      },
      onRunFinishedEvent: ({ event }) => {
        record.outcome = event.outcome ?? null;
        record.metadata = event.metadata ?? null;
      },
      onRunErrorEvent: ({ event }) => {
        record.runError = { message: event.message, code: event.code ?? null };
      },
      onCustomEvent: ({ event }) => {
        report.custom.push({ name: event.name, value: event.value });
      },
    });
  } catch (error) {
    record.error = error instanceof Error ? error.message : String(error);
  }
  runs.push(record);
}

let turn = 0;
for (const decision of plan.split(",")) {
  turn += 1;
  const runs = [];
  agent.addMessage({ id: `user-${turn}`, role: "user", content: `turn ${turn}: tidy up` });
  await runOnce(runs, {});
  for (let i = 0; i < 5 && agent.pendingInterrupts.length > 0; i++) {
    const resume = agent.pendingInterrupts.map((interrupt) => ({
      interruptId: interrupt.id, status: "resolved", payload: { approved: decision === "allow" },
    }));
    await runOnce(runs, { resume });
  }
  report.turns.push({ runs, pendingInterrupts: agent.pendingInterrupts.map((i) => i.id) });
}
report.messages = agent.messages;
process.stdout.write(JSON.stringify(report));
