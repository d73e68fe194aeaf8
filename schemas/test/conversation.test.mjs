// The sans-IO session (src/conversation.ts) fed events like a state machine:
// the replies in the order they began, what `apply` reports, checkpoints,
// restarts, turns and interrupts, a reply joined without its REPLY_START,
// what a reply waits for; and the same scripts of events and inputs run
// against wire's Python `wire.session.Session` (run with WIRE_PYTHON), which
// must report the same changes, end in the same state, and refuse every
// input at every point with the same reason, word for word.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  confirmation,
  Conversation,
  DecodeError,
  LocalProtocolError,
  readTurn,
  refusal,
  RESTART,
  Session,
  turn,
  userMsg,
  waiting,
} from "../dist/index.js";
import { pyRepr } from "../dist/conversation.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PYTHON = process.env.WIRE_PYTHON ?? "python";
const VECTOR = join(ROOT, "tests", "vectors", "agentscope-2.0.11", "require_user_confirm_approved", "events.jsonl");
const EVENTS = readFileSync(VECTOR, "utf8").trim().split("\n").map((line) => JSON.parse(line));
const R = EVENTS[0].reply_id;
const CALL = EVENTS.find((event) => event.type === "REQUIRE_USER_CONFIRM").tool_calls[0];
const PARKED_AT = EVENTS.findIndex((event) => event.type === "REQUIRE_USER_CONFIRM");

const checkpoint = (msg) => ({ type: "CUSTOM", name: "wire.checkpoint", value: { msg: JSON.parse(JSON.stringify(msg)) } });
// Each event has its time: the reducer stamps a block or a reply with the time of the event that starts or ends it.
const AT = "2026-01-01T00:00:00";
const start = (replyId, name = "Friday") => ({ type: "REPLY_START", created_at: AT, session_id: "s",
  reply_id: replyId, name });
const text = (replyId, delta) => [{ type: "TEXT_BLOCK_START", created_at: AT, reply_id: replyId,
  block_id: `${replyId}-t` }, { type: "TEXT_BLOCK_DELTA", created_at: AT, reply_id: replyId, block_id: `${replyId}-t`,
  delta }];
const end = (replyId, reason) => ({ type: "REPLY_END", created_at: AT, session_id: "s", reply_id: replyId,
  ...(reason ? { finished_reason: reason } : {}) });
const interrupt = (replyId) => ({ type: "USER_INTERRUPT", created_at: AT, reply_id: replyId });
const ids = (session) => [...session.replies.keys()];

test("a reply runs, parks at REQUIRE_USER_CONFIRM, is answered and ends; apply reports it", () => {
  const session = new Session();
  const states = [];
  for (const event of EVENTS) {
    const changed = session.apply([event]);
    assert.deepEqual(changed.replies, [R]);
    states.push(`${event.type}:${waiting(session.replies.get(R)).state}:${changed.turned}`);
  }
  assert.equal(states[0], "REPLY_START:running:true");
  assert.equal(states[1], "MODEL_CALL_START:running:false");
  assert.ok(states.includes("REQUIRE_USER_CONFIRM:parked:true"));
  assert.ok(states.includes("USER_CONFIRM_RESULT:running:true")); // the answer takes the parked reply on
  assert.equal(states.at(-1), "REPLY_END:ended:true");
  const parked = new Session();
  parked.extend(EVENTS.slice(0, PARKED_AT + 1));
  assert.deepEqual([...parked.open], []);
  assert.deepEqual(waiting(parked.last).confirm.map((call) => call.id), [CALL.id]);
  assert.deepEqual(confirmation(parked.last, true).confirm_results.map((r) => [r.confirmed, r.tool_call.id]),
    [[true, CALL.id]]);
  assert.throws(() => confirmation(parked.last, {}), LocalProtocolError);
  assert.equal(Conversation, Session); // the old name
});

test("apply takes a list: one event alone is refused with wire's own error", () => {
  assert.throws(() => new Session().apply(start("a")), LocalProtocolError);
});

test("apply reports the replies touched in the order first touched, and whether one turned", () => {
  const session = new Session();
  let changed = session.apply([start("a"), start("b"), ...text("a", "x"), ...text("b", "y")]);
  assert.deepEqual(changed, { replies: ["a", "b"], turned: true });
  assert.deepEqual([...session.open].sort(), ["a", "b"]);
  changed = session.apply(text("a", "z").slice(1));
  assert.deepEqual(changed, { replies: ["a"], turned: false });
  changed = session.apply([end("b"), end("a"), end("b")]);
  assert.deepEqual(changed, { replies: ["b", "a"], turned: true });
  assert.deepEqual([...session.open], []);
});

test("a checkpoint counts only when it changes its reply's Msg; it replaces it in place, or adds it last", () => {
  const session = new Session();
  session.apply([start("a"), start("b"), ...text("a", "hi"), end("a")]);
  const held = session.replies.get("a");
  // What the session holds already, even with its keys in another order: no news, the held object stays.
  const shuffled = Object.fromEntries(Object.entries(JSON.parse(JSON.stringify(held))).reverse());
  assert.deepEqual(session.apply([checkpoint(shuffled)]), { replies: [], turned: false });
  assert.equal(session.replies.get("a"), held);
  const changed = session.apply([checkpoint({ ...held, name: "Renamed" })]);
  assert.deepEqual(changed, { replies: ["a"], turned: false });
  assert.notEqual(session.replies.get("a"), held);
  assert.equal(session.replies.get("a").name, "Renamed");
  assert.deepEqual(ids(session), ["a", "b"]);
  session.apply([checkpoint({ name: "Other", content: [], role: "assistant", id: "c" })]);
  assert.deepEqual(ids(session), ["a", "b", "c"]);
  assert.equal(session.last.id, "c");
});

test("a restart drops every reply, the turn, the interrupts and the custom events; other CUSTOM events are kept", () => {
  const session = new Session({ name: "x", content: [], role: "assistant", id: "stale" });
  const custom = { type: "CUSTOM", name: "app.note", value: { n: 1 } };
  assert.deepEqual(session.apply([custom]), { replies: [], turned: false });
  assert.deepEqual(session.custom, [custom]);
  const written = turn(userMsg("alice", "hi"));
  session.apply([start("p"), interrupt("p"), written]);
  assert.deepEqual([session.turn, [...session.interrupted]], [written, ["p"]]);
  assert.deepEqual(session.custom, [custom, written]);
  const changed = session.apply([start("gone"), { type: "CUSTOM", name: RESTART, value: { reason: "lost" } }, start("fresh")]);
  assert.deepEqual(changed, { replies: ["fresh"], turned: true });
  assert.deepEqual(ids(session), ["fresh"]);
  assert.deepEqual([session.turn, [...session.interrupted], session.custom, [...session.open]],
    [undefined, [], [], ["fresh"]]);
});

test("a reply joined without its REPLY_START begins as wire's Python begins it", () => {
  const session = new Session();
  session.apply([{ type: "TEXT_BLOCK_START", reply_id: "late", block_id: "b" }]);
  const msg = session.replies.get("late");
  assert.deepEqual(Object.keys(msg), ["name", "content", "role", "id", "created_at"]);
  assert.deepEqual([msg.name, msg.role, msg.id], ["", "assistant", "late"]);
  // wire.clock.now: ISO 8601 in UTC with microseconds and an explicit offset
  assert.match(msg.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
  assert.deepEqual([...session.open], []); // joined mid-way: not known to be open
  // a REPLY_START begins it with its own name, role and time
  session.apply([start("r", "Friday")]);
  const begun = session.replies.get("r");
  assert.deepEqual([begun.name, begun.role, begun.created_at], ["Friday", "assistant", "2026-01-01T00:00:00"]);
});

test("a turn is pending until a reply begins; an interrupt naming it withdraws it and makes no reply", () => {
  const session = new Session();
  const written = turn(null);
  assert.match(written.id, /^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/); // a UUID4 as wire.clock.new_id writes it
  assert.deepEqual(session.apply([written]), { replies: [], turned: false });
  assert.equal(session.turn, written);
  assert.equal(session.refusal(userMsg("alice", "again")), `turn '${written.id}' is waiting for its reply to begin: ` +
    "wait for it, or interrupt it (a USER_INTERRUPT naming the turn's id)");
  assert.equal(session.refusal(interrupt(written.id)), undefined);
  assert.deepEqual(session.apply([interrupt(written.id)]), { replies: [], turned: true });
  assert.deepEqual([session.turn, ids(session)], [undefined, []]);
  assert.equal(session.refusal(userMsg("alice", "again")), undefined);
  session.apply([turn(null)]);
  session.apply([start("b")]);
  assert.equal(session.turn, undefined);
  assert.equal(session.refusal(userMsg("alice", "again")), "reply 'b' is still running");
});

test("any split of a session's events builds the same state", () => {
  const written = turn(userMsg("alice", "hi"));
  const events = [...EVENTS.slice(0, PARKED_AT + 1), interrupt(R), end(R, "interrupted"), written,
    interrupt(written.id), turn(null), start("b"), ...text("b", "x"), interrupt("b"), checkpoint({ name: "F",
      content: [], role: "assistant", id: "c" }), end("b")];
  const state = (session) => JSON.stringify([[...session.replies], [...session.open], [...session.interrupted],
    session.turn?.id ?? null, session.custom]);
  const whole = new Session();
  whole.apply(events);
  for (const size of [1, 2, 3, 7]) {
    const split = new Session();
    for (let i = 0; i < events.length; i += size) split.apply(events.slice(i, i + size));
    assert.equal(state(split), state(whole), `batches of ${size}`);
  }
});

test("turn and readTurn: the user's Msgs in wire's form, and DecodeError naming the path", () => {
  const msg = userMsg("alice", "hi");
  assert.deepEqual(readTurn(turn(msg)), [msg]);
  assert.deepEqual(readTurn(turn([msg, msg])), [msg, msg]);
  assert.deepEqual(readTurn(turn(null)), []);
  assert.equal(readTurn({ type: "CUSTOM", name: "other", value: {} }), undefined);
  assert.equal(readTurn(start("a")), undefined);
  const bad = (value) => () => readTurn({ type: "CUSTOM", name: "wire.turn", value });
  assert.throws(bad({}), (error) => error instanceof DecodeError && error.path === "$.value.msgs");
  assert.throws(bad({ msgs: [msg, 5] }), (error) => error instanceof DecodeError && error.path === "$.value.msgs[1]");
  assert.throws(bad({ msgs: [{ ...msg, role: "nobody" }] }),
    (error) => error instanceof DecodeError && error.path === "$.value.msgs[0].role");
});

// -- the same scripts against wire's Python ----------------------------------------------------

const PY_SESSION = `
import json, sys
import wire
from wire import json as wire_json
from wire.session import Session, decode_chat_request, read_turn

def state(session):
    replies = {}
    for key, msg in session.replies.items():
        data = json.loads(wire_json.encode(msg))
        data.pop("created_at", None)  # a joined reply's is the time it was joined
        replies[key] = data
    return {"replies": replies, "order": list(session.replies), "open": sorted(session.open),
            "interrupted": sorted(session.interrupted), "turn": session.turn.id if session.turn else None,
            "custom": [event.name for event in session.custom]}

cases = json.load(sys.stdin)
out = {"scripts": [], "reprs": [repr(text) for text in cases["reprs"]], "turns": []}
for script in cases["scripts"]:
    session = Session(*(wire_json.decode_msg(json.dumps(msg).encode()) for msg in script["msgs"]))
    results = []
    for step in script["steps"]:
        if "apply" in step:
            changed = session.apply([wire_json.decode_event(json.dumps(event).encode()) for event in step["apply"]])
            results.append({"replies": changed.replies, "turned": changed.turned})
        elif "close" in step:
            session.closed = True
        else:
            for value in step["ask"]:
                body = json.dumps({"agent_id": "a", "session_id": "s", "input": value}).encode()
                results.append(session.refusal(decode_chat_request(body).input))
    out["scripts"].append({"results": results, "state": state(session)})
for event in cases["turns"]:
    try:
        read_turn(wire_json.decode_event(json.dumps(event).encode()))
        out["turns"].append(None)
    except wire.DecodeError as exc:
        out["turns"].append([str(exc), exc.path])
json.dump(out, sys.stdout)
`;

function python(cases) {
  return JSON.parse(execFileSync(PYTHON, ["-c", PY_SESSION], { input: JSON.stringify(cases), encoding: "utf8",
    maxBuffer: 64 << 20 }));
}

/** A script run here as the Python side runs it: its results and the state it ends in. */
function run(script) {
  const session = new Session(...script.msgs.map((msg) => JSON.parse(JSON.stringify(msg))));
  const results = [];
  for (const step of script.steps) {
    if (step.apply) results.push(session.apply(step.apply));
    else if (step.close) session.closed = true;
    else for (const input of step.ask) results.push(session.refusal(input) ?? null);
  }
  const replies = {};
  for (const [key, msg] of session.replies) {
    const { created_at: _, ...rest } = JSON.parse(JSON.stringify(msg));
    replies[key] = rest;
  }
  return { results, state: { replies, order: [...session.replies.keys()], open: [...session.open].sort(),
    interrupted: [...session.interrupted].sort(), turn: session.turn?.id ?? null,
    custom: session.custom.map((event) => event.name) } };
}

const ODD = ["it's", 'say "hi"', `both ' and "`, "tab\there\nnew line\\", "é ü 日本", "zero\u200bwidth",
  "\x00\x07\x7f\x85", "\u00a0nbsp", "emoji 😀", "\u2028\u2029", "\udb40\udc01 tag", ""];
// A lone surrogate is no id a Msg can carry (msgspec refuses its JSON), but repr writes it too.
const REPRS = [...ODD, "\ud800 lone", "a\udfffb"];

/**
 * Every kind of input for `session` as it is: new turns, interrupts of each
 * reply, of the pending turn and of no reply, confirmations and external
 * results right and wrong.
 */
function inputs(session) {
  const out = [userMsg("alice", "hi"), [userMsg("alice", "a"), userMsg("alice", "b")], null, interrupt("nope")];
  if (session.turn !== undefined) out.push(interrupt(session.turn.id));
  const toolCall = (id) => ({ ...CALL, id });
  for (const replyId of new Set([R, ...session.replies.keys()])) {
    const confirm = (...callIds) => ({ type: "USER_CONFIRM_RESULT", reply_id: replyId,
      confirm_results: callIds.map((id) => ({ confirmed: true, tool_call: toolCall(id) })) });
    const external = (...callIds) => ({ type: "EXTERNAL_EXECUTION_RESULT", reply_id: replyId,
      execution_results: callIds.map((id) => ({ type: "tool_result", id, name: "Bash", output: "ok" })) });
    out.push(interrupt(replyId), confirm(CALL.id), confirm(), confirm(CALL.id, CALL.id), confirm("other"),
      confirm(CALL.id, "z", "a"), external(CALL.id), external());
  }
  for (const msg of session.replies.values()) {
    if (waiting(msg).state === "parked") out.push(confirmation(msg, true), confirmation(msg, false));
  }
  return out;
}

/** A script: `steps` of events applied one batch each, and at every point every input asked. */
function script(msgs, batches) {
  const session = new Session(...msgs.map((msg) => JSON.parse(JSON.stringify(msg))));
  const steps = [{ ask: inputs(session) }];
  for (const batch of batches) {
    if (batch === "close") {
      steps.push({ close: true });
      session.closed = true;
    } else {
      steps.push({ apply: batch });
      session.apply(batch);
    }
    steps.push({ ask: inputs(session) });
  }
  return { msgs, steps };
}

function scripts() {
  const out = [];
  // The recorded session, an event at a time.
  out.push(script([], EVENTS.map((event) => [event])));
  // A turn pending, a double submit, the turn withdrawn by an interrupt, another turn whose reply begins.
  const first = turn(userMsg("alice", "hi"));
  const second = turn(null);
  out.push(script([], [[first], [interrupt(first.id)], [interrupt(first.id)], [second], [start("b")],
    text("b", "x"), [end("b")], [turn([userMsg("alice", "a"), userMsg("alice", "b")])], "close"]));
  // A turn pending behind a parked reply (as another replica may have written it), and the parked reply interrupted.
  out.push(script([], [EVENTS.slice(0, PARKED_AT + 1), [turn(null)], [start("c")], [interrupt(R)],
    [interrupt(R)], [end(R, "interrupted")], [end("c")]]));
  // A parked reply interrupted: it waits for nothing more, and holds a new turn up until it ends.
  out.push(script([], [EVENTS.slice(0, PARKED_AT + 1), [interrupt(R)], [end(R, "interrupted")]]));
  // A running reply interrupted; interleaved replies; a reply joined mid-way; a restart in a batch.
  out.push(script([], [[start("a"), ...text("a", "x")], [interrupt("a")], [start("b"), ...text("a", "y")],
    [end("a", "interrupted"), ...text("late", "z")], [end("b")], [start("x"), { type: "CUSTOM", name: RESTART,
      value: { reason: "lost" } }, start("y"), { type: "CUSTOM", name: "app.note", value: {} }], [end("y")]]));
  // Checkpoints: of what is held (no news), of a change, of a new reply, of a parked one; then closed.
  const held = new Session();
  held.apply(EVENTS.slice(0, PARKED_AT + 1));
  const parked = JSON.parse(JSON.stringify(held.last));
  out.push(script([], [[start("a"), ...text("a", "x"), end("a")], [checkpoint(parked)], [checkpoint(parked)],
    [checkpoint({ ...parked, name: "Renamed" })], EVENTS.slice(PARKED_AT + 1, PARKED_AT + 3), "close"]));
  // An ended reply before a parked one, ids Python quotes in its own way, a parked external call.
  for (const id of ODD) {
    const done = { name: "F", content: [], role: "assistant", id: "done", finished_at: "t" };
    const call = (callId, state) => ({ type: "tool_call", id: callId, name: "Bash", input: "{}", state, created_at: AT });
    // Python sorts the last two by code point, JavaScript's sort() by UTF-16 unit: U+FF01 comes first only in Python.
    const odd = { name: "F", role: "assistant", id, content: [call(`${id}-x`, "submitted"), call(`${id}😀`, "submitted"),
      call(`${id}\uff01`, "submitted"), call("B", "asking")] };
    out.push({ msgs: [done, odd], steps: [{ ask: [interrupt(id), interrupt(`${id}?`), userMsg("alice", "hi"),
      { type: "EXTERNAL_EXECUTION_RESULT", reply_id: id,
        execution_results: [{ type: "tool_result", id: `${id}!`, name: "Bash", output: "ok" }] },
      { type: "USER_CONFIRM_RESULT", reply_id: "done", confirm_results: [] }] }, { apply: [interrupt(id)] },
    { ask: [interrupt(id), userMsg("alice", "hi")] }] });
  }
  return out;
}

// The role table (wire.blocks.ROLE_BLOCKS) as readTurn and wire's read_turn word it.
const TURNS = [
  { name: "u", role: "user", content: [{ type: "text", text: "t", id: "1" }, { type: "tool_call", id: "c", name: "n",
    input: "{}" }] },
  { name: "s", role: "system", content: [{ type: "data", id: "d", source: { type: "url", url: "https://x/y",
    media_type: "image/png" } }] },
  { name: "u", role: "user", content: [{ type: "hint", id: "h", hint: "h" }] },
  { name: "a", role: "assistant", content: [{ type: "hint", id: "h", hint: "h" }] },
].map((msg) => ({ type: "CUSTOM", id: "t", name: "wire.turn", value: { msgs: [userMsg("u", "ok"), msg] } }));

test("a session gives wire's Python's changes, state and reasons, word for word, at every point of every script", () => {
  const cases = scripts();
  const theirs = python({ scripts: cases, reprs: REPRS, turns: TURNS });
  let asked = 0;
  let refused = 0;
  cases.forEach((script, i) => {
    const ours = run(script);
    const them = theirs.scripts[i];
    assert.equal(ours.results.length, them.results.length);
    ours.results.forEach((result, j) => {
      assert.deepEqual(result, them.results[j], `script ${i}, result ${j}`);
      if (typeof result !== "object" || result === null) asked++;
      if (typeof result === "string") refused++;
    });
    assert.deepEqual(ours.state, them.state, `script ${i}: the state it ends in`);
  });
  assert.ok(asked > 1000 && refused > 500 && refused < asked, `${refused} of ${asked} refused`); // the cases reach both
  const reasons = new Set(theirs.scripts.flatMap((s) => s.results).filter((r) => typeof r === "string")
    .map((r) => r.replace(/'[^']*'/g, "'…'").replace(/about .*: answer/, "about …: answer")));
  for (const reason of ["the session is closed", "reply '…' was interrupted: it waits for nothing more",
    "reply '…' is still running", "the session has no reply '…'", "reply '…' is over: it waits for nothing",
    "turn '…' is waiting for its reply to begin: wait for it, or interrupt it (a USER_INTERRUPT naming the turn's id)",
    "reply '…' waits for an answer about …: answer or interrupt it first"]) {
    assert.ok(reasons.has(reason), `no script reaches: ${reason}`);
  }
  assert.deepEqual(REPRS.map(pyRepr), theirs.reprs);
  TURNS.forEach((event, i) => {
    let ours = null;
    try {
      readTurn(event);
    } catch (error) {
      assert.ok(error instanceof DecodeError);
      ours = [error.message, error.path];
    }
    assert.deepEqual(ours, theirs.turns[i], `turn ${i}`);
  });
});

test("refusal(input, replies) is a Session of those replies alone", () => {
  for (const script of scripts().filter((s) => s.msgs.length)) {
    const replies = new Map(script.msgs.map((msg) => [msg.id, msg]));
    for (const input of script.steps[0].ask) {
      assert.equal(refusal(input, replies), new Session(...script.msgs).refusal(input));
    }
  }
});

test("the parked reply's reason names its calls; answering it makes the session take a new turn once it ends", () => {
  const session = new Session();
  session.extend(EVENTS.slice(0, PARKED_AT + 1));
  const next = userMsg("alice", "again");
  assert.equal(session.refusal(next), `reply '${R}' waits for an answer about ${CALL.id}: answer or interrupt it first`);
  assert.equal(session.refusal(confirmation(session.last, true)), undefined);
  session.extend(EVENTS.slice(PARKED_AT + 1));
  assert.equal(session.refusal(next), undefined);
  assert.equal(session.refusal(confirmation(session.last, true)), `reply '${R}' is over: it waits for nothing`);
});
