// The runtime's followSession and answer against tests/transports/chat_app.py
// (served by uvicorn): the node half of tests/typescript/test_follow_session.py.
// Prints what it saw as JSON; each reply's Msg as JSON.stringify wrote it, so
// that the test compares the exact text with wire's Python bytes.
// Usage: node follow-session.mjs BASE chat RESUME CURSOR   (a chat of 3 turns, a flaky follower beside)
//        node follow-session.mjs BASE errors DEAD_URL
import {
  answer, confirmation, Conversation, followSession, userMsg, waiting,
} from "../../schemas/dist/index.js";

const [base, mode, ...args] = process.argv.slice(2);
const ALICE = { "x-user-id": "alice" };
const quick = { initialMs: 10, maxMs: 100, retries: 3 };

const texts = (conversation) => [...conversation.replies.values()].map((msg) => JSON.stringify(msg));
const failure = (error) => ({ name: error.name, message: error.message, status: error.status ?? null,
  contentType: error.contentType ?? null, attempts: error.attempts ?? null });

async function newSession() {
  const created = await fetch(`${base}/sessions`, { method: "POST", headers: ALICE });
  if (created.status !== 201) throw new Error(`POST /sessions: ${created.status}`);
  return (await created.json()).session_id;
}

// One turn: post the message, wait for the park, answer with decide(msg), wait for the end.
async function turn(follower, sid, text, decide) {
  const before = follower.conversation.replies.size;
  await answer(`${base}/chat`, { agentId: "friday", sessionId: sid, input: userMsg("alice", text), headers: ALICE });
  const parked = await follower.waitFor((c) => c.replies.size > before && waiting(c.last).state === "parked" && c.last);
  const asked = JSON.stringify(parked);
  const answered = await answer(`${base}/chat`, { agentId: "friday", sessionId: sid, input: decide(parked),
    headers: ALICE });
  const ended = await follower.waitFor((c) => waiting(c.replies.get(parked.id)).state === "ended"
    && c.replies.get(parked.id));
  return { parked: asked, entryId: answered.entryId, ended: JSON.stringify(ended) };
}

async function chat([resume, cursor]) {
  const sid = await newSession();
  const steady = followSession(`${base}/sessions/${sid}/stream`, { headers: ALICE });
  const reasons = [];
  let checkpoints = 0;
  // Each of its first 6 connections is cut after 2 chunks while the session is written.
  const flaky = followSession(`${base}/sessions/${sid}/flaky?drops=6&after_chunks=2&resume=${resume}`, {
    headers: ALICE, cursor, backoff: quick,
    onEvent(event) { if (event.type === "CUSTOM" && event.name === "wire.checkpoint") checkpoints++; },
    onReconnect(attempt, delayMs, reason) { reasons.push(String(reason)); },
  });
  const turns = [];
  turns.push(await turn(steady, sid, "tidy up", (msg) => confirmation(msg, true)));
  // A page that reloads here keeps its replies and the last id, and resumes from them later.
  const kept = { lastEventId: steady.lastEventId, replies: texts(steady.conversation) };
  turns.push(await turn(steady, sid, "tidy up again", (msg) => confirmation(msg, { [waiting(msg).confirm[0].id]: false })));
  turns.push(await turn(steady, sid, "external please", (msg) => ({
    type: "EXTERNAL_EXECUTION_RESULT", reply_id: msg.id, execution_results: [{
      type: "tool_result", id: waiting(msg).external[0].id, name: "delete_file", output: "gone", state: "success" }],
  })));
  const resumed = followSession(`${base}/sessions/${sid}/stream`, { headers: ALICE, lastEventId: kept.lastEventId,
    conversation: new Conversation(...kept.replies.map((text) => JSON.parse(text))) });
  // A position from another log (the server's log was made again): restarted, the stale reply dropped.
  const stale = { name: "Friday", content: [], role: "assistant", id: "stale-reply" };
  const restarted = followSession(`${base}/sessions/${sid}/stream?restart`, { headers: ALICE, cursor: "query",
    lastEventId: "0-1", conversation: new Conversation(stale) });
  const closed = await fetch(`${base}/sessions/${sid}/close`, { method: "POST", headers: ALICE });
  if (closed.status !== 204) throw new Error(`close: ${closed.status}`);
  await Promise.all([steady.done, flaky.done, resumed.done, restarted.done]);
  return {
    sid, turns,
    steady: texts(steady.conversation), flaky: texts(flaky.conversation), resumed: texts(resumed.conversation),
    restarted: texts(restarted.conversation),
    closed: [steady.closed, flaky.closed, resumed.closed, restarted.closed],
    connections: { steady: steady.connections, flaky: flaky.connections, resumed: resumed.connections },
    reasons, checkpoints,
  };
}

async function errors([dead]) {
  const seen = {};
  const follow = async (name, url, options = {}) => {
    const follower = followSession(url, { backoff: quick, ...options });
    try {
      await follower.done;
      seen[name] = { error: null };
    } catch (error) {
      seen[name] = { ...failure(error), connections: follower.connections };
    }
  };
  await follow("missing", `${base}/sessions/nope/stream`, { headers: ALICE });
  await follow("html", `${base}/login`);
  const sid = await newSession();
  await follow("stranger", `${base}/sessions/${sid}/stream`, { headers: { "x-user-id": "mallory" } });
  await follow("anonymous", `${base}/sessions/${sid}/stream`);
  await follow("gone", dead);
  const post = async (name, input, headers = ALICE) => {
    try {
      seen[name] = await answer(`${base}/chat`, { agentId: "friday", sessionId: sid, input, headers });
    } catch (error) {
      seen[name] = failure(error);
    }
  };
  await post("strangerAnswers", userMsg("mallory", "hi"), { "x-user-id": "mallory" });
  await post("nothingPending", { type: "USER_INTERRUPT", reply_id: "nope" });
  await post("notJson", "a string is no chat input");
  await post("newTurn", userMsg("alice", "tidy up"));
  const follower = followSession(`${base}/sessions/${sid}/stream`, { headers: ALICE });
  const parked = await follower.waitFor((c) => c.last && waiting(c.last).state === "parked" && c.last);
  await post("allowed", confirmation(parked, true));
  await post("twice", confirmation(parked, true));
  await follower.settled(parked.id).then(() => follower.waitFor((c) => waiting(c.last).state === "ended"));
  follower.close();
  seen.closedByCaller = await follower.done.then(() => null, (error) => error.name);
  try {
    await answer(dead.replace(/\/sessions.*/, "/chat"), { agentId: "a", sessionId: "s", input: null });
  } catch (error) {
    seen.answerGone = failure(error);
  }
  return seen;
}

try {
  const result = await (mode === "chat" ? chat(args) : errors(args));
  console.log(JSON.stringify(result));
} catch (error) {
  console.log(JSON.stringify({ error: `${error.name}: ${error.message}`, stack: error.stack }));
}
