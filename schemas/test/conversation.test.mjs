// The sans-IO session (src/conversation.ts) fed events like a state machine:
// the replies in the order they began, checkpoints, restarts, a reply joined
// without its REPLY_START, what a reply waits for; and `refusal` against
// wire's Python (wire.transports.chat.refusal, run with WIRE_PYTHON), which
// must give the same reason, word for word, for every input at every point
// of a recorded session.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { confirmation, Conversation, LocalProtocolError, refusal, RESTART, userMsg, waiting } from "../dist/index.js";
import { pyRepr } from "../dist/conversation.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PYTHON = process.env.WIRE_PYTHON ?? "python";
const VECTOR = join(ROOT, "tests", "vectors", "agentscope-2.0.11", "require_user_confirm_approved", "events.jsonl");
const EVENTS = readFileSync(VECTOR, "utf8").trim().split("\n").map((line) => JSON.parse(line));
const R = EVENTS[0].reply_id;
const CALL = EVENTS.find((event) => event.type === "REQUIRE_USER_CONFIRM").tool_calls[0];

const checkpoint = (msg) => ({ type: "CUSTOM", name: "wire.checkpoint", value: { msg: JSON.parse(JSON.stringify(msg)) } });
const start = (replyId, name = "Friday") => ({ type: "REPLY_START", session_id: "s", reply_id: replyId, name,
  created_at: "2026-01-01T00:00:00" });
const end = (replyId) => ({ type: "REPLY_END", session_id: "s", reply_id: replyId });
const ids = (conversation) => [...conversation.replies.keys()];

test("a reply runs, parks at REQUIRE_USER_CONFIRM, is answered and ends; apply returns its Msg", () => {
  const conversation = new Conversation();
  const states = [];
  for (const event of EVENTS) {
    const msg = conversation.apply(event);
    assert.equal(msg, conversation.replies.get(R));
    states.push(`${event.type}:${waiting(msg).state}`);
  }
  assert.ok(states.includes("REQUIRE_USER_CONFIRM:parked"));
  assert.equal(states.at(-1), "REPLY_END:ended");
  assert.equal(states[0], "REPLY_START:running");
  const parkedAt = EVENTS.findIndex((event) => event.type === "REQUIRE_USER_CONFIRM");
  const parked = new Conversation();
  parked.extend(EVENTS.slice(0, parkedAt + 1));
  assert.deepEqual(waiting(parked.last).confirm.map((call) => call.id), [CALL.id]);
  assert.deepEqual(confirmation(parked.last, true).confirm_results.map((r) => [r.confirmed, r.tool_call.id]),
    [[true, CALL.id]]);
  assert.throws(() => confirmation(parked.last, {}), LocalProtocolError);
});

test("replies keep the order they began; a checkpoint replaces its reply's Msg in place, or adds it last", () => {
  const conversation = new Conversation();
  conversation.extend([start("a"), start("b"), end("a")]);
  assert.deepEqual(ids(conversation), ["a", "b"]);
  const held = conversation.replies.get("a");
  const replaced = conversation.apply(checkpoint({ ...held, name: "Renamed" }));
  assert.notEqual(replaced, held);
  assert.equal(conversation.replies.get("a"), replaced);
  assert.equal(replaced.name, "Renamed");
  assert.deepEqual(ids(conversation), ["a", "b"]);
  conversation.apply(checkpoint({ name: "Other", content: [], role: "assistant", id: "c" }));
  assert.deepEqual(ids(conversation), ["a", "b", "c"]);
  assert.equal(conversation.last.id, "c");
  // extend returns the Msgs the events touched, each once, in the order first touched
  assert.deepEqual(conversation.extend([end("b"), end("c"), end("b")]).map((msg) => msg.id), ["b", "c"]);
});

test("a restart drops every reply and the custom events; other CUSTOM events are kept in order", () => {
  const conversation = new Conversation({ name: "x", content: [], role: "assistant", id: "stale" });
  const custom = { type: "CUSTOM", name: "app.note", value: { n: 1 } };
  assert.equal(conversation.apply(custom), undefined);
  assert.deepEqual(conversation.custom, [custom]);
  assert.equal(conversation.apply({ type: "CUSTOM", name: RESTART, value: { reason: "gone" } }), undefined);
  assert.deepEqual(ids(conversation), []);
  assert.deepEqual(conversation.custom, []);
  conversation.apply(start("fresh"));
  assert.deepEqual(ids(conversation), ["fresh"]);
});

test("a reply joined without its REPLY_START begins as wire's Python begins it", () => {
  const conversation = new Conversation();
  const msg = conversation.apply({ type: "TEXT_BLOCK_START", reply_id: "late", block_id: "b" });
  assert.deepEqual(Object.keys(msg), ["name", "content", "role", "id", "created_at"]);
  assert.equal(msg.name, "");
  assert.equal(msg.role, "assistant");
  assert.equal(msg.id, "late");
  // wire.clock.now: ISO 8601 in UTC with microseconds and an explicit offset
  assert.match(msg.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
  // a REPLY_START begins it with its own name, role and time
  const begun = new Conversation().apply(start("r", "Friday"));
  assert.deepEqual([begun.name, begun.role, begun.created_at], ["Friday", "assistant", "2026-01-01T00:00:00"]);
});

// -- refusal, against wire's Python -----------------------------------------------------------

const PY_REFUSAL = `
import json, sys
from wire import json as wire_json
from wire.transports.chat import decode_chat_request, refusal
cases = json.load(sys.stdin)
out = {"refusals": [], "reprs": [repr(text) for text in cases["reprs"]]}
for case in cases["refusals"]:
    replies = {}
    for text in case["replies"]:
        msg = wire_json.decode_msg(text.encode())
        replies[msg.id] = msg
    body = json.dumps({"agent_id": "a", "session_id": "s", "input": case["input"]}).encode()
    out["refusals"].append(refusal(decode_chat_request(body).input, replies))
json.dump(out, sys.stdout)
`;

function python(cases) {
  return JSON.parse(execFileSync(PYTHON, ["-c", PY_REFUSAL], { input: JSON.stringify(cases), encoding: "utf8",
    maxBuffer: 64 << 20 }));
}

const ODD = ["it's", 'say "hi"', `both ' and "`, "tab\there\nnew line\\", "é ü 日本", "zero\u200bwidth",
  "\x00\x07\x7f\x85", "\u00a0nbsp", "emoji 😀", "\u2028\u2029", "\udb40\udc01 tag", ""];
// A lone surrogate is no id a Msg can carry (msgspec refuses its JSON), but repr writes it too.
const REPRS = [...ODD, "\ud800 lone", "a\udfffb"];

/** Every kind of input, for the session as `replies` holds it. */
function inputs(replies) {
  const out = [userMsg("alice", "hi"), [userMsg("alice", "a"), userMsg("alice", "b")], null,
    { type: "USER_INTERRUPT", reply_id: R }, { type: "USER_INTERRUPT", reply_id: "nope" }];
  const toolCall = (id) => ({ ...CALL, id });
  const confirm = (...callIds) => ({ type: "USER_CONFIRM_RESULT", reply_id: R,
    confirm_results: callIds.map((id) => ({ confirmed: true, tool_call: toolCall(id) })) });
  const external = (...callIds) => ({ type: "EXTERNAL_EXECUTION_RESULT", reply_id: R,
    execution_results: callIds.map((id) => ({ type: "tool_result", id, name: "Bash", output: "ok" })) });
  out.push(confirm(CALL.id), confirm(), confirm(CALL.id, CALL.id), confirm("other"), confirm(CALL.id, "z", "a"));
  out.push(external(CALL.id), external());
  for (const msg of replies.values()) {
    if (waiting(msg).state === "parked") out.push(confirmation(msg, true), confirmation(msg, false));
  }
  return out;
}

test("refusal gives wire's reason, word for word, for every input at every point of a session", () => {
  const cases = [];
  const ours = [];
  const ask = (input, replies) => {
    cases.push({ input, replies: [...replies.values()].map((msg) => JSON.stringify(msg)) });
    ours.push(refusal(input, replies) ?? null);
  };
  const conversation = new Conversation();
  ask(null, conversation.replies); // an empty session takes a new turn
  for (const event of EVENTS) {
    conversation.apply(event);
    for (const input of inputs(conversation.replies)) ask(input, conversation.replies);
  }
  // An ended reply before a parked one, ids Python quotes in its own way, a parked external call.
  for (const id of ODD) {
    const replies = new Map([["done", { name: "F", content: [], role: "assistant", id: "done", finished_at: "t" }]]);
    replies.set(id, { name: "F", role: "assistant", id, content: [
      { type: "tool_call", id: `${id}-x`, name: "Bash", input: "{}", state: "submitted" },
      // Python sorts these by code point, JavaScript's sort() by UTF-16 unit: U+FF01 comes first only in Python.
      { type: "tool_call", id: `${id}😀`, name: "Bash", input: "{}", state: "submitted" },
      { type: "tool_call", id: `${id}\uff01`, name: "Bash", input: "{}", state: "submitted" },
      { type: "tool_call", id: "B", name: "Bash", input: "{}", state: "asking" }] });
    ask({ type: "USER_INTERRUPT", reply_id: id }, replies);
    ask({ type: "USER_INTERRUPT", reply_id: `${id}?` }, replies);
    ask(userMsg("alice", "hi"), replies);
    ask({ type: "EXTERNAL_EXECUTION_RESULT", reply_id: id,
      execution_results: [{ type: "tool_result", id: `${id}!`, name: "Bash", output: "ok" }] }, replies);
    ask({ type: "USER_CONFIRM_RESULT", reply_id: "done", confirm_results: [] }, replies);
  }
  const theirs = python({ refusals: cases, reprs: REPRS });
  assert.ok(ours.filter((reason) => reason !== null).length > 50); // the cases do reach the refusals
  assert.ok(ours.includes(null));
  for (let i = 0; i < cases.length; i++) {
    assert.equal(ours[i], theirs.refusals[i], `case ${i}: ${JSON.stringify(cases[i].input)}`);
  }
  assert.deepEqual(REPRS.map(pyRepr), theirs.reprs);
});

test("the parked reply's reason names its calls; answering it makes the session take a new turn once it ends", () => {
  const conversation = new Conversation();
  const parkedAt = EVENTS.findIndex((event) => event.type === "REQUIRE_USER_CONFIRM");
  conversation.extend(EVENTS.slice(0, parkedAt + 1));
  const turn = userMsg("alice", "again");
  assert.equal(refusal(turn, conversation.replies),
    `reply '${R}' waits for an answer about ${CALL.id}: answer or interrupt it first`);
  assert.equal(refusal(confirmation(conversation.last, true), conversation.replies), undefined);
  conversation.extend(EVENTS.slice(parkedAt + 1));
  assert.equal(refusal(turn, conversation.replies), undefined);
  assert.equal(refusal(confirmation(conversation.last, true), conversation.replies),
    `reply '${R}' is over: it waits for nothing`);
});
