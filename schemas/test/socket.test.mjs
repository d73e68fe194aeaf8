// connectSession (src/socket.ts) against a scripted WebSocket class: each
// connection's server side is a step of the test, so that every rule is
// checked frame by frame: the close codes (retried, refused, fatal), the
// budget it shares with the SSE followers (follow.ts), inputs and their
// results (never sent twice), the end of a turn, frames that are not the
// protocol's, MessagePack frames. No server, no timed assertion: the waits
// are 1 ms. tests/typescript/test_session_socket.py runs it against wire's
// real socket; tests/transports/test_browser_socket.py in chromium.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { decode as unpack, encode as pack } from "@msgpack/msgpack";

import {
  ConnectionFailed,
  connectSession,
  Conversation,
  DecodeError,
  HTTPStatusError,
  InputRefused,
  LocalProtocolError,
  RemoteProtocolError,
  SocketClosed,
  UnknownEvent,
  userMsg,
} from "../dist/index.js";

const R = "r1";
const START = { type: "REPLY_START", session_id: "s1", reply_id: R, name: "Friday", created_at: "2026-01-01T00:00:00" };
const TEXT = [
  { type: "TEXT_BLOCK_START", reply_id: R, block_id: "b" },
  { type: "TEXT_BLOCK_DELTA", reply_id: R, block_id: "b", delta: "hel" },
  { type: "TEXT_BLOCK_DELTA", reply_id: R, block_id: "b", delta: "lo" },
  { type: "TEXT_BLOCK_END", reply_id: R, block_id: "b" },
];
const CALL = { type: "tool_call", id: "c1", name: "rm", input: "{}", state: "asking" };
const PARK = [
  { type: "TOOL_CALL_START", reply_id: R, tool_call_id: "c1", tool_call_name: "rm" },
  { type: "TOOL_CALL_DELTA", reply_id: R, tool_call_id: "c1", delta: "{}" },
  { type: "TOOL_CALL_END", reply_id: R, tool_call_id: "c1" },
  { type: "REQUIRE_USER_CONFIRM", reply_id: R, tool_calls: [CALL] },
];
const END = { type: "REPLY_END", session_id: "s1", reply_id: R };
const quick = { initialMs: 1, maxMs: 2, retries: 3 };

/**
 * A WebSocket class whose connections are scripted: connection i runs
 * steps[i] (the last repeats) with the socket, which the step drives as the
 * server: `open()`, `frame(value)`, `drop(code, reason, error)`; `sent`
 * holds what the client sent, decoded.
 */
function scripted(steps) {
  const sockets = [];
  class Socket {
    constructor(url, protocols, options) {
      Object.assign(this, { url, protocols, options, protocol: "", binaryType: "blob", sent: [], closedWith: null });
      this.listeners = new Map();
      this.binary = protocols[0] === "wire.v1.msgpack";
      sockets.push(this);
      const step = steps[Math.min(sockets.length, steps.length) - 1];
      setTimeout(() => step(this), 0);
    }
    addEventListener(type, listener) {
      this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
    }
    removeEventListener(type, listener) {
      this.listeners.set(type, (this.listeners.get(type) ?? []).filter((l) => l !== listener));
    }
    emit(type, event) {
      for (const listener of this.listeners.get(type) ?? []) listener(event);
    }
    send(data) {
      const frame = typeof data === "string" ? JSON.parse(data) : unpack(data);
      this.sent.push(frame);
      this.onSend?.(frame);
    }
    close(code) {
      this.closedWith = code;
    }
    // -- the server's side
    open(protocol = this.protocols[0]) {
      this.protocol = protocol;
      this.emit("open", {});
    }
    frame(value) {
      this.emit("message", { data: this.binary ? pack(value).slice().buffer : JSON.stringify(value) });
    }
    raw(data) {
      this.emit("message", { data });
    }
    entries(from, events) {
      this.frame({ type: "entries", entries: events.map((event, i) => [`e${from + i}`, event]) });
    }
    drop(code = 1006, reason = "", error = undefined) {
      if (error !== undefined) this.emit("error", { message: error });
      this.emit("close", { code, reason });
    }
  }
  return { Socket, sockets };
}

/** Run a client over `steps`; what happened. */
async function run(steps, options = {}) {
  const { Socket, sockets } = scripted(steps);
  const reconnects = [];
  const session = connectSession("ws://test/sessions/s1/socket", {
    WebSocket: Socket, backoff: quick, agentId: "a1", sessionId: "s1",
    onReconnect: (attempt, delayMs, reason) => reconnects.push({ attempt, reason }),
    ...options,
  });
  let error;
  try {
    await session.done;
  } catch (caught) {
    error = caught;
  }
  session.close();
  return { session, sockets, reconnects, error };
}

/** Resolves once `check()` is true, looked at after each turn of the event loop. */
async function until(check) {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}

/** Every callback and promise reaction now due has run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("connections", () => {
  test("a dropped socket is followed again from the last entry id, until the log's end", async () => {
    const { session, sockets, reconnects, error } = await run([
      (s) => { s.open(); s.entries(0, [START, TEXT[0]]); s.drop(1011, "503 the store failed: gone"); },
      (s) => { s.open(); s.entries(2, [...TEXT.slice(1), END]); s.drop(1001); },
      (s) => { s.open(); s.frame({ type: "end" }); },
    ]);
    assert.equal(error, undefined);
    assert.deepEqual(sockets.map((s) => s.sent[0]), [
      { type: "follow", after: null }, { type: "follow", after: "e1" }, { type: "follow", after: "e5" }]);
    assert.deepEqual(sockets.map((s) => s.protocols), [["wire.v1.json"], ["wire.v1.json"], ["wire.v1.json"]]);
    assert.equal(session.closed, true);
    assert.equal(session.lastEventId, "e5");
    assert.equal(session.conversation.last.content[0].text, "hello");
    assert.deepEqual(reconnects.map((r) => r.attempt), [1, 1]); // each connection brought news: the count starts over
    assert.equal(sockets[0].binaryType, "arraybuffer");
  });

  test("retries run out with ConnectionFailed carrying the last reason, as the SSE followers' do", async () => {
    const { session, error, reconnects } = await run([(s) => s.drop(1006, "", "connect ECONNREFUSED")]);
    assert.ok(error instanceof ConnectionFailed);
    assert.equal(error.attempts, 4);
    assert.equal(session.connections, 4);
    assert.match(String(error.cause), /1006.*ECONNREFUSED/);
    assert.deepEqual(reconnects.map((r) => r.attempt), [1, 2, 3]);
  });

  test("a connection that brings the same entries again is no news: the count goes on", async () => {
    const { error } = await run([(s) => { s.open(); s.entries(0, [START]); s.drop(1011); }]);
    assert.ok(error instanceof ConnectionFailed);
    assert.equal(error.attempts, 4);
  });

  for (const [name, drop, status] of [
    ["a 1008 with a client error", [1008, "403 not allowed"], 403],
    ["a 1008 with 401", [1008, "401 who are you?"], 401],
    ["a handshake answered with a client error (ws names it)", [1006, "", "Unexpected server response: 404"], 404],
  ]) {
    test(`${name} is HTTPStatusError at once`, async () => {
      const { session, error } = await run([(s) => s.drop(...drop)]);
      assert.ok(error instanceof HTTPStatusError, String(error));
      assert.equal(error.status, status);
      assert.equal(session.connections, 1);
    });
  }

  for (const [name, drop] of [
    ["a 1008 with 503", [1008, "503 busy"]],
    ["a handshake answered 502", [1006, "", "Unexpected server response: 502"]],
  ]) {
    test(`${name} is retried, then given up with it as the cause`, async () => {
      const { error } = await run([(s) => s.drop(...drop)]);
      assert.ok(error instanceof ConnectionFailed);
      assert.ok(error.cause instanceof HTTPStatusError);
    });
  }

  test("a 1008 without a status (a client that lagged) is retried", async () => {
    const { error } = await run([
      (s) => { s.open(); s.drop(1008, "the client stopped reading"); },
      (s) => { s.open(); s.frame({ type: "end" }); },
    ]);
    assert.equal(error, undefined);
  });

  for (const code of [1002, 1003, 1007, 1009, 4000]) {
    test(`a close with ${code} is SocketClosed, not retried`, async () => {
      const { session, error } = await run([(s) => { s.open(); s.drop(code, "not a frame of wire.v1.json"); }]);
      assert.ok(error instanceof SocketClosed);
      assert.equal(error.code, code);
      assert.match(error.message, /not a frame of wire.v1.json/);
      assert.equal(session.connections, 1);
    });
  }

  test("a server that speaks another subprotocol is a RemoteProtocolError", async () => {
    const { error } = await run([(s) => s.open("")]);
    assert.ok(error instanceof RemoteProtocolError);
    assert.match(error.message, /speaks no subprotocol, not wire.v1.json/);
  });

  test("a socket silent for readTimeoutMs counts as dropped", async () => {
    const { error, reconnects } = await run([
      (s) => s.open(),
      (s) => { s.open(); s.frame({ type: "end" }); },
    ], { readTimeoutMs: 5 });
    assert.equal(error, undefined);
    assert.match(String(reconnects[0].reason), /no frame for 5 ms/);
  });

  test("headers go to the WebSocket class as its third argument", async () => {
    const { sockets } = await run([(s) => { s.open(); s.frame({ type: "end" }); }], { headers: { "x-user-id": "alice" } });
    assert.deepEqual(sockets[0].options, { headers: { "x-user-id": "alice" } });
  });

  test("close() ends it with the abort reason and closes the socket", async () => {
    const { Socket, sockets } = scripted([(s) => s.open()]);
    const session = connectSession("http://test/s", { WebSocket: Socket });
    await until(() => sockets[0]?.sent.length === 1);
    session.close();
    await assert.rejects(session.done, { name: "AbortError" });
    assert.equal(sockets[0].closedWith, 1000);
    assert.equal(sockets[0].url, "ws://test/s"); // an http URL is the same server's socket
  });
});

describe("frames", () => {
  const failing = async (frame, expected) => {
    const { error, session } = await run([(s) => { s.open(); s.entries(0, [START]); frame(s); }]);
    assert.ok(error instanceof expected, String(error));
    assert.equal(session.lastEventId, "e0"); // the frames before it applied
    return error;
  };

  test("text that is not JSON is a DecodeError", () => failing((s) => s.raw("{nope"), DecodeError));
  test("a binary frame on wire.v1.json is a RemoteProtocolError", () =>
    failing((s) => s.raw(new Uint8Array([1]).buffer), RemoteProtocolError));
  test("a frame without a type is a RemoteProtocolError", () => failing((s) => s.frame({ entries: [] }), RemoteProtocolError));
  test("an entry that is not [id, event] is a RemoteProtocolError", () =>
    failing((s) => s.frame({ type: "entries", entries: [["e1"]] }), RemoteProtocolError));
  test("an out-of-range number is a DecodeError", () =>
    failing((s) => s.raw('{"type": "pong", "n": 1e400}'), DecodeError));

  test("an event that is not one fails its frame, none of which is applied", async () => {
    const error = await failing((s) => s.entries(1, [TEXT[0], { type: "TEXT_BLOCK_DELTA", reply_id: R }]), DecodeError);
    assert.match(error.message, /block_id/);
  });

  test("frame types of a later version are skipped; unknown events kept, their ids counted", async () => {
    const seen = [];
    const { error, session } = await run([(s) => {
      s.open();
      s.frame({ type: "presence", who: "bob" });
      s.frame({ type: "ping" });
      s.entries(0, [START, { type: "SHINY_NEW", reply_id: R }]);
      s.frame({ type: "end" });
    }], { onEvent: (event) => seen.push(event) });
    assert.equal(error, undefined);
    assert.ok(seen[1] instanceof UnknownEvent);
    assert.equal(seen[1].type, "SHINY_NEW");
    assert.equal(session.lastEventId, "e1");
  });

  test("unknown: raise makes an unknown event a DecodeError", async () => {
    const { error } = await run([(s) => { s.open(); s.entries(0, [{ type: "SHINY_NEW" }]); }], { unknown: "raise" });
    assert.ok(error instanceof DecodeError);
  });

  test("a wire.restart drops the conversation and its empty id starts the next connection over", async () => {
    const conversation = new Conversation({ name: "x", content: [], role: "assistant", id: "stale" });
    const { error, session, sockets } = await run([
      (s) => { s.open(); s.frame({ type: "entries", entries: [["", { type: "CUSTOM", name: "wire.restart", value: {} }]] }); s.drop(); },
      (s) => { s.open(); s.entries(0, [START]); s.frame({ type: "end" }); },
    ], { conversation, lastEventId: "old-7" });
    assert.equal(error, undefined);
    assert.deepEqual(sockets.map((s) => s.sent[0].after), ["old-7", null]);
    assert.deepEqual([...session.conversation.replies.keys()], [R]);
  });

  test("a callback's error ends the client with it", async () => {
    const { error } = await run([(s) => { s.open(); s.entries(0, [START]); }], {
      onEvent: () => { throw new TypeError("the page broke"); },
    });
    assert.ok(error instanceof TypeError);
  });
});

describe("inputs", () => {
  test("send waits for the socket, resolves with the result; a refusal is InputRefused", async () => {
    const { Socket, sockets } = scripted([(s) => {
      s.onSend = (frame) => {
        if (frame.type !== "input") return;
        if (frame.body.input.type === "USER_INTERRUPT") {
          s.frame({ type: "result", request_id: frame.request_id, status: 409, detail: "nothing runs", entry_id: null });
        } else s.frame({ type: "result", request_id: frame.request_id, status: 200, detail: "started", entry_id: "e9" });
      };
      s.open();
    }]);
    const session = connectSession("ws://test/s", { WebSocket: Socket, agentId: "a1", sessionId: "s1" });
    const taken = await session.send(userMsg("alice", "hi"));
    assert.deepEqual(taken, { status: 200, sessionId: "s1", entryId: "e9" });
    const input = sockets[0].sent[1];
    assert.deepEqual(Object.keys(input.body), ["agent_id", "session_id", "input"]);
    assert.equal(input.body.input.role, "user");
    const refused = await session.send({ type: "USER_INTERRUPT", reply_id: R }, { agentId: "a2" }).catch((e) => e);
    assert.ok(refused instanceof InputRefused && refused instanceof HTTPStatusError);
    assert.deepEqual([refused.status, refused.text, refused.requestId], [409, "nothing runs", "2"]);
    assert.equal(sockets[0].sent[2].body.agent_id, "a2");
    session.close();
  });

  test("an input whose socket dropped before its result is ConnectionFailed, and never sent again", async () => {
    const { Socket, sockets } = scripted([
      (s) => { s.onSend = (frame) => frame.type === "input" && s.drop(1006); s.open(); },
      (s) => s.open(),
    ]);
    const session = connectSession("ws://test/s", { WebSocket: Socket, agentId: "a1", sessionId: "s1", backoff: quick });
    const error = await session.send(userMsg("alice", "hi")).catch((e) => e);
    assert.ok(error instanceof ConnectionFailed);
    await until(() => sockets[1]?.sent.length === 1);
    assert.deepEqual(sockets[1].sent.map((frame) => frame.type), ["follow"]);
    session.close();
  });

  test("no result within timeoutMs is ConnectionFailed", async () => {
    const { Socket } = scripted([(s) => s.open()]);
    const session = connectSession("ws://test/s", { WebSocket: Socket, agentId: "a1", sessionId: "s1" });
    const error = await session.send(null, { timeoutMs: 5 }).catch((e) => e);
    assert.ok(error instanceof ConnectionFailed);
    assert.match(String(error.cause), /no result for input 1 within 5 ms/);
    session.close();
  });

  test("a send that waits for a socket that never comes gets the client's error", async () => {
    const { Socket } = scripted([(s) => s.drop(1008, "403 not allowed")]);
    const session = connectSession("ws://test/s", { WebSocket: Socket, agentId: "a1", sessionId: "s1" });
    await assert.rejects(session.send(null), HTTPStatusError);
    await assert.rejects(session.send(null), HTTPStatusError); // and every send after
  });

  test("follow: false sends no follow frame", async () => {
    const { Socket, sockets } = scripted([(s) => {
      s.onSend = (frame) => s.frame({ type: "result", request_id: frame.request_id, status: 200, detail: "", entry_id: "e1" });
      s.open();
    }]);
    const session = connectSession("ws://test/s", { WebSocket: Socket, agentId: "a1", sessionId: "s1", follow: false });
    await session.send(null);
    assert.deepEqual(sockets[0].sent.map((frame) => frame.type), ["input"]);
    await assert.rejects(session.run(), LocalProtocolError);
    session.close();
  });
});

describe("turns", () => {
  /** A client over one socket whose server the test drives by hand. */
  async function driven(options = {}) {
    const { Socket, sockets } = scripted([(s) => s.open()]);
    const session = connectSession("ws://test/s", { WebSocket: Socket, ...options });
    await until(() => sockets[0]?.sent.length === 1);
    return { session, server: sockets[0] };
  }

  test("run({ turn }) ends at the park, and again at the end after the answer", async () => {
    const { session, server } = await driven();
    const parked = session.run({ turn: true });
    server.entries(0, [START, ...TEXT]);
    server.entries(5, PARK);
    assert.equal((await parked).last.content[1].state, "asking");
    const ended = session.run({ turn: true });
    server.entries(9, [{ type: "USER_CONFIRM_RESULT", reply_id: R, confirm_results: [{ confirmed: true, tool_call: CALL }] }]);
    server.entries(10, [END]);
    assert.ok((await ended).last.finished_at);
    session.close();
  });

  test("news that came before run() counts; a run after it waits for new news", async () => {
    const { session, server } = await driven();
    server.entries(0, [START, ...TEXT, ...PARK]);
    assert.equal((await session.run({ turn: true })).last.content[1].state, "asking"); // at once
    let second = false;
    const next = session.run({ turn: true }).then(() => { second = true; });
    await settle();
    assert.equal(second, false); // the park was the first run's news
    server.entries(9, [END]);
    await next;
    session.close();
  });

  test("a reconnection's checkpoint of a reply held as it is is no news", async () => {
    const { session, server } = await driven();
    server.entries(0, [START, ...TEXT, ...PARK]);
    const parkedMsg = (await session.run({ turn: true })).last;
    let done = false;
    const waiting = session.run({ turn: true }).then(() => { done = true; });
    server.entries(9, [{ type: "CUSTOM", name: "wire.checkpoint", value: { msg: JSON.parse(JSON.stringify(parkedMsg)) } }]);
    await settle();
    assert.equal(done, false);
    server.entries(10, [END]);
    await waiting;
    session.close();
  });

  test("run(replyId) ends once that reply has; run() at the log's end; one run at a time", async () => {
    const { session, server } = await driven();
    const reply = session.run({ replyId: R });
    await assert.rejects(session.run(), LocalProtocolError);
    server.entries(0, [START, END]);
    assert.ok((await reply).replies.get(R).finished_at);
    const all = session.run();
    const never = session.waitFor(() => false);
    server.frame({ type: "end" });
    assert.equal(await all, session.conversation);
    await assert.rejects(never, /the session ended before what was waited for/);
    assert.equal(await session.run({ turn: true }), session.conversation); // a closed log: at once
    session.close();
  });
});

describe("MessagePack", () => {
  test("binary frames both ways; bytes travel as bin", async () => {
    const bytes = new Uint8Array([0, 1, 2, 255]);
    const { Socket, sockets } = scripted([(s) => {
      s.onSend = (frame) => frame.type === "input"
        && s.frame({ type: "result", request_id: frame.request_id, status: 200, detail: "started", entry_id: "e4" });
      s.open();
      s.entries(0, [START, { type: "DATA_BLOCK_START", reply_id: R, block_id: "d", media_type: "image/png" },
        { type: "DATA_BLOCK_DELTA", reply_id: R, block_id: "d", media_type: "image/png", data: bytes }, END]);
    }]);
    const session = connectSession("ws://test/s", { WebSocket: Socket, protocol: "msgpack", agentId: "a1",
      sessionId: "s1" });
    const msg = (await session.run({ turn: true })).last;
    assert.deepEqual(sockets[0].protocols, ["wire.v1.msgpack"]);
    assert.equal(msg.content[0].source.data, "AAEC/w=="); // the bytes of a bin, as the reducer keeps them
    assert.deepEqual(await session.send(null), { status: 200, sessionId: "s1", entryId: "e4" });
    assert.deepEqual(sockets[0].sent[1].body, { agent_id: "a1", session_id: "s1", input: null });
    session.close();
  });

  test("a text frame on wire.v1.msgpack, or MessagePack wire refuses, is an error", async () => {
    for (const bad of ["{}", new Uint8Array([0xc1]).buffer, new Uint8Array([0x81, 0x01, 0x02]).buffer]) {
      const { error } = await run([(s) => { s.open(); s.raw(bad); }], { protocol: "msgpack" });
      assert.ok(error instanceof RemoteProtocolError, String(error));
    }
  });
});
