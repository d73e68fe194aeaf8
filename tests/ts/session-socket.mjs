// The runtime's connectSession (schemas/src/socket.ts) over the ws package
// against tests/transports/chat_app.py's socket (wire.transports.ws, served by
// uvicorn): the node half of tests/typescript/test_session_socket.py. Prints
// what it saw as JSON; each reply's Msg as JSON.stringify wrote it, so that
// the test compares the exact text with wire's Python bytes.
// Usage: node session-socket.mjs BASE chat PROTOCOL     (two turns, a reload between; a client whose sockets drop)
//        node session-socket.mjs BASE errors DEAD_URL
import { createRequire } from "node:module";

import {
  confirmation, connectSession, Conversation, userMsg, waiting,
} from "../../schemas/dist/index.js";

// Node 20 has no global WebSocket: the ws package's, pinned in schemas/package.json.
const WebSocket = createRequire(new URL("../../schemas/package.json", import.meta.url))("ws");
const [base, mode, ...args] = process.argv.slice(2);
const ALICE = { "x-user-id": "alice" };
const quick = { initialMs: 1, maxMs: 5, retries: 3 };
const socketOf = (sid) => `${base.replace(/^http/, "ws")}/sessions/${sid}/socket`;

const texts = (conversation) => [...conversation.replies.values()].map((msg) => JSON.stringify(msg));
const failure = (error) => ({ name: error.name, message: error.message, status: error.status ?? null,
  attempts: error.attempts ?? null, code: error.code ?? null });

async function newSession() {
  const created = await fetch(`${base}/sessions`, { method: "POST", headers: ALICE });
  if (created.status !== 201) throw new Error(`POST /sessions: ${created.status}`);
  return (await created.json()).session_id;
}

async function closeSession(sid) {
  const closed = await fetch(`${base}/sessions/${sid}/close`, { method: "POST", headers: ALICE });
  if (closed.status !== 204) throw new Error(`POST /sessions/${sid}/close: ${closed.status}`);
}

let sending = false; // an input waits for its result: no socket is dropped under it (it would fail, never resent)

/** One turn over `session`: the message, the reply up to its park, the answer, the reply to its end. */
async function turn(session, text, allow) {
  const send = async (input) => {
    sending = true;
    try {
      return await session.send(input);
    } finally {
      sending = false;
    }
  };
  const taken = await send(userMsg("alice", text));
  const parked = (await session.run({ turn: true })).last;
  const state = waiting(parked).state;
  const answered = await send(confirmation(parked, allow));
  const ended = (await session.run({ turn: true })).last;
  return { taken: taken.entryId, parked: state, answered: answered.entryId, ended: waiting(ended).state,
    said: ended.content.at(-1).text };
}

async function chat([protocol]) {
  const options = { WebSocket, headers: ALICE, agentId: "friday", protocol };
  const sid = await newSession();
  // A page that reloads after the first turn's park: the second client resumes from the first's
  // conversation and entry id, answers, and goes on to a second turn.
  const first = connectSession(socketOf(sid), { ...options, sessionId: sid });
  await first.send(userMsg("alice", "tidy up"));
  const parked = (await first.run({ turn: true })).last;
  const kept = { lastEventId: first.lastEventId, replies: texts(first.conversation) };
  first.close();
  await first.done.catch(() => undefined);
  const second = connectSession(socketOf(sid), { ...options, sessionId: sid, lastEventId: kept.lastEventId,
    conversation: new Conversation(...kept.replies.map((text) => JSON.parse(text))) });
  const answered = await second.send(confirmation(parked, true));
  const ended = (await second.run({ turn: true })).last;
  const again = await turn(second, "tidy up again", false);

  // A client whose socket is dropped (the TCP connection destroyed, as a network does) at the
  // first text delta each connection brings while a reply runs, three times a turn at most.
  const dropSid = await newSession();
  const sockets = [];
  const Tracked = class extends WebSocket {
    constructor(...rest) {
      super(...rest);
      sockets.push(this);
    }
  };
  const drops = { perTurn: [], whileRunning: 0 };
  let dropped = new Set();
  const dropping = connectSession(socketOf(dropSid), {
    ...options, sessionId: dropSid, WebSocket: Tracked, backoff: quick,
    onEvent(event, msg) {
      const socket = sockets.at(-1);
      if (event.type === "TEXT_BLOCK_DELTA" && !sending && dropped.size < 3 && !dropped.has(socket)) {
        dropped.add(socket);
        if (waiting(msg).state === "running") drops.whileRunning++;
        socket.terminate();
      }
    },
  });
  const turns = [];
  for (const [text, allow] of [["go", true], ["go on", false]]) {
    dropped = new Set();
    turns.push(await turn(dropping, text, allow));
    drops.perTurn.push(dropped.size);
  }
  const dropConnections = dropping.connections;

  await closeSession(sid);
  await closeSession(dropSid);
  const closed = await Promise.all([second.done, dropping.done].map((done) => done.then(() => true)));
  const result = {
    sid, dropSid,
    reload: { parked: waiting(parked).state, answered: answered.entryId, ended: waiting(ended).state,
      connections: second.connections, again },
    steady: texts(second.conversation),
    dropped: texts(dropping.conversation),
    turns, drops, connections: dropConnections, closed,
  };
  second.close();
  dropping.close();
  return result;
}

async function errors([deadUrl]) {
  const sid = await newSession();
  const out = {};
  const refused = async (name, url, options) => {
    const session = connectSession(url, { WebSocket, backoff: quick, ...options });
    try {
      await session.done;
      out[name] = { resolved: true };
    } catch (error) {
      out[name] = { ...failure(error), connections: session.connections };
    }
  };
  await refused("stranger", socketOf(sid), { headers: { "x-user-id": "bob" } });
  await refused("anonymous", socketOf(sid), {});
  await refused("missing", socketOf("nope"), { headers: ALICE });
  // Not a socket route: the handshake is answered with a status, which ws names.
  await refused("handshake", `${base.replace(/^http/, "ws")}/chat`, { headers: ALICE });
  await refused("gone", deadUrl, { headers: ALICE });

  const session = connectSession(socketOf(sid), { WebSocket, headers: ALICE, agentId: "friday", sessionId: sid });
  const attempt = async (name, input, options) => {
    try {
      out[name] = { resolved: await session.send(input, options) };
    } catch (error) {
      out[name] = { ...failure(error), requestId: error.requestId ?? null };
    }
  };
  await attempt("nothingPending", { type: "USER_INTERRUPT", reply_id: "nope" });
  await attempt("otherSession", userMsg("alice", "hi"), { sessionId: "another" });
  const anonymous = connectSession(socketOf(sid), { WebSocket, headers: ALICE, follow: false });
  out.noAgent = await anonymous.send(userMsg("alice", "hi")).then(() => "resolved", (error) => error.name);
  out.sendOnlyRuns = await anonymous.run().then(() => "resolved", (error) => error.name);
  anonymous.close();
  session.close();
  out.closedByCaller = await session.done.then(() => "resolved", (error) => error.name);
  await attempt("afterClose", userMsg("alice", "hi"));
  out.runAfterClose = await session.run({ turn: true }).then(() => "resolved", (error) => error.name);
  try {
    connectSession(socketOf(sid), { WebSocket, protocol: "xml" });
  } catch (error) {
    out.badProtocol = error.name;
  }
  try {
    connectSession("ftp://example.com/socket", { WebSocket });
  } catch (error) {
    out.badUrl = error.name;
  }
  return out;
}

const modes = { chat, errors };
try {
  console.log(JSON.stringify(await modes[mode](args)));
} catch (error) {
  console.log(JSON.stringify({ error: String(error), stack: error.stack }));
}
process.exit(0);
