// The one reconnect loop (src/follow.ts) under followReply and followSession,
// against a scripted fetch: each test runs for both followers, which must
// retry the same statuses, refuse the same responses, wait as long and give
// up with the same error. No server, no timed assertion: the waits are 1 ms,
// and a wait that would be long (a Retry-After) is read from onReconnect,
// then cut short with close().

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  answer,
  ConnectionFailed,
  DecodeError,
  followReply,
  followSession,
  HTTPStatusError,
  MAX_ANSWER_BYTES,
  RemoteProtocolError,
  ReplyRequestError,
  ResponseTooLarge,
  RESTART,
  RETRYABLE,
  turn,
} from "../dist/index.js";

const R = "reply-1";
const EVENTS = [
  { type: "REPLY_START", session_id: "s1", reply_id: R, name: "Friday", created_at: "2026-01-01T00:00:00" },
  { type: "TEXT_BLOCK_START", reply_id: R, block_id: "b1" },
  { type: "TEXT_BLOCK_DELTA", reply_id: R, block_id: "b1", delta: "hel" },
  { type: "TEXT_BLOCK_DELTA", reply_id: R, block_id: "b1", delta: "lo" },
  { type: "TEXT_BLOCK_END", reply_id: R, block_id: "b1" },
  { type: "REPLY_END", session_id: "s1", reply_id: R },
];

/** SSE frames of EVENTS[from, to), each with its index as id. */
function frames(from = 0, to = EVENTS.length) {
  return EVENTS.slice(from, to).map((event, i) => `id: ${from + i}\ndata: ${JSON.stringify(event)}\n\n`).join("");
}

const SSE = { "content-type": "text/event-stream; charset=utf-8" };
const ok = (body = frames()) => () => new Response(body, { status: 200, headers: SSE });
const status = (code, headers = {}, body = "busy") => () =>
  new Response(code === 204 ? null : body, { status: code, headers: { "content-type": "text/plain", ...headers } });
const offline = () => () => { throw new TypeError("fetch failed"); };
/** A body that sends `text`, then fails as a dropped socket does (undici: TypeError "terminated"). */
const cut = (text) => () => {
  let pulls = 0;
  return new Response(new ReadableStream({
    pull(controller) {
      if (pulls++ === 0) controller.enqueue(new TextEncoder().encode(text));
      else controller.error(new TypeError("terminated"));
    },
  }), { status: 200, headers: SSE });
};

/** A 200 whose body comes in these chunks, one read each. */
const chunked = (...texts) => () => new Response(new ReadableStream({
  pull(controller) {
    if (texts.length) controller.enqueue(new TextEncoder().encode(texts.shift()));
    else controller.close();
  },
}), { status: 200, headers: SSE });

/** A fetch that answers request i with steps[i]() (the last step repeats), keeping each request. */
function scripted(steps) {
  const requests = [];
  const fetch = async (url, init) => {
    requests.push({ url: String(url), headers: new Headers(init.headers) });
    return steps[Math.min(requests.length, steps.length) - 1]();
  };
  return { fetch, requests };
}

const FOLLOWERS = {
  followReply: (url, options) => followReply(url, options),
  followSession: (url, options) => followSession(url, options),
};
const quick = { initialMs: 1, maxMs: 2, retries: 3 };

/** Follow with `kind` over `steps`; what happened. */
async function run(kind, steps, options = {}) {
  const { fetch, requests } = scripted(steps);
  const reconnects = [];
  const follower = FOLLOWERS[kind]("http://test/stream", {
    fetch, backoff: quick,
    onReconnect: (attempt, delayMs, reason) => reconnects.push({ attempt, delayMs, reason }),
    ...options,
  });
  let error;
  try {
    await follower.done;
  } catch (caught) {
    error = caught;
  }
  return { follower, requests, reconnects, error };
}

/** The text a follower built, whichever it is. */
function text(follower) {
  const msg = follower.msg ?? follower.conversation.last;
  return msg.content.map((block) => block.text).join("");
}

for (const kind of Object.keys(FOLLOWERS)) {
  describe(kind, () => {
    test("retries 408, 425, 429 and every 5xx, then reads the stream", async () => {
      for (const code of [408, 425, 429, 500, 502, 503, 504, 599]) {
        const { follower, reconnects, error } = await run(kind, [status(code), ok()]);
        assert.equal(error, undefined, `${code}: ${error}`);
        assert.equal(follower.connections, 2);
        assert.equal(text(follower), "hello");
        assert.ok(reconnects[0].reason instanceof HTTPStatusError && reconnects[0].reason.status === code);
      }
    });

    test("a client error is thrown at once, naming the status and the body's start", async () => {
      for (const code of [400, 401, 403, 404, 409, 410]) {
        const { follower, error } = await run(kind, [status(code, {}, "no such session"), ok()]);
        assert.ok(error instanceof HTTPStatusError, String(error));
        assert.ok(error instanceof ReplyRequestError); // the old name still catches it
        assert.equal(error.status, code);
        assert.equal(error.text, "no such session");
        assert.match(error.message, new RegExp(`^GET http://test/stream answered ${code} with text/plain`));
        assert.equal(follower.connections, 1);
      }
    });

    test("a 200 that is not text/event-stream (a login page) is refused before a byte is decoded", async () => {
      const page = () => new Response("<html>log in</html>", { status: 200, headers: { "content-type": "text/html" } });
      const { follower, error } = await run(kind, [page, ok()]);
      assert.ok(error instanceof HTTPStatusError, String(error));
      assert.equal(error.status, 200);
      assert.equal(error.contentType, "text/html");
      assert.equal(error.text, "<html>log in</html>");
      assert.equal(follower.connections, 1);
    });

    test("gives up with ConnectionFailed after the retries, carrying the last failure", async () => {
      const { follower, reconnects, error } = await run(kind, [status(503)]);
      assert.ok(error instanceof ConnectionFailed, String(error));
      assert.equal(error.attempts, quick.retries + 1);
      assert.equal(follower.connections, quick.retries + 1);
      assert.ok(error.cause instanceof HTTPStatusError && error.cause.status === 503);
      assert.deepEqual(reconnects.map((r) => r.attempt), [1, 2, 3]);
    });

    test("network failures are retried within the same budget", async () => {
      const { follower, error } = await run(kind, [offline(), offline(), ok()]);
      assert.equal(error, undefined);
      assert.equal(follower.connections, 3);
      const gone = await run(kind, [offline()]);
      assert.ok(gone.error instanceof ConnectionFailed && gone.error.cause instanceof TypeError);
      assert.equal(gone.follower.connections, quick.retries + 1);
    });

    test("the defaults: 5 retries, waits from 250 ms doubled up to 8 s", async () => {
      const { fetch } = scripted([status(503)]);
      const delays = [];
      const follower = FOLLOWERS[kind]("http://test/stream", {
        fetch,
        onReconnect(attempt, delayMs) {
          delays.push(delayMs);
          if (attempt === 1) follower.close();
        },
      });
      await assert.rejects(follower.done, { name: "AbortError" });
      assert.ok(delays[0] >= 125 && delays[0] <= 250, String(delays));
    });

    test("a 503 or 429 waits at least its Retry-After (seconds or a date); a 500's is not read", async () => {
      const date = new Date(Date.now() + 60_000).toUTCString();
      for (const [code, after, least] of [[503, "7", 7000], [429, date, 30_000]]) {
        const { fetch } = scripted([status(code, { "retry-after": after }), ok()]);
        const seen = [];
        const follower = FOLLOWERS[kind]("http://test/stream", {
          fetch, backoff: quick,
          onReconnect(attempt, delayMs) {
            seen.push(delayMs);
            follower.close(); // read the wait, do not sleep it
          },
        });
        await assert.rejects(follower.done, { name: "AbortError" });
        assert.ok(seen[0] >= least && seen[0] <= 60_000, `${code} ${after}: ${seen}`);
      }
      const { reconnects } = await run(kind, [status(500, { "retry-after": "7" }), ok()]);
      assert.ok(reconnects[0].delayMs < 7000);
    });

    test("a connection that brings a new event starts the count over", async () => {
      // Every connection brings one event and drops: more connections than the retries allow, still whole.
      const steps = EVENTS.map((_, i) => cut(frames(i, i + 1)));
      steps.push(ok(frames(EVENTS.length - 1)));
      const { follower, requests, error } = await run(kind, steps);
      assert.equal(error, undefined, String(error));
      assert.ok(follower.connections > quick.retries + 1);
      assert.equal(text(follower), "hello");
      // each reconnection resumes after the last id read
      assert.deepEqual(requests.map((r) => r.headers.get("last-event-id")),
        requests.map((_, i) => (i === 0 ? null : String(i - 1))));
    });

    test("the position goes as ?after= with cursor: query", async () => {
      const { requests } = await run(kind, [cut(frames(0, 2)), ok(frames(2))], { cursor: "query" });
      assert.equal(requests[0].url, "http://test/stream");
      assert.equal(requests[1].url, "http://test/stream?after=1");
      assert.equal(requests[1].headers.get("last-event-id"), null);
    });

    test("a body that ends inside a frame is a dropped connection, resumed from the last entry applied", async () => {
      const whole = frames();
      const { follower, requests, error } = await run(kind,
        [ok(whole.slice(0, whole.indexOf("id: 3") + 20)), ok(frames(3))], { lastEventId: "" });
      assert.equal(error, undefined, String(error));
      assert.equal(follower.connections, 2);
      assert.equal(requests[1].headers.get("last-event-id"), "2");
      assert.equal(text(follower), "hello");
    });

    test("a server that restarts the stream on every connection is given up on, naming the restarts", async () => {
      // Each connection starts the log over (a wire.restart, then the reply under new ids: a log made again
      // gets new ids) and drops. New ids are no progress after a restart: it used to reconnect for ever.
      const restart = `id: \ndata: ${JSON.stringify({ type: "CUSTOM", name: RESTART, value: { reason: "the log was lost" } })}\n\n`;
      const epoch = (n) => cut(restart + EVENTS.slice(0, 4).map((event, i) =>
        `id: epoch${n}-${i}\ndata: ${JSON.stringify(event)}\n\n`).join(""));
      const steps = Array.from({ length: 12 }, (_, n) => epoch(n));
      steps.push(status(404, {}, "the test gives up")); // what the code before this got to, instead of hanging
      const { follower, error } = await run(kind, steps);
      assert.ok(error instanceof ConnectionFailed, String(error));
      assert.equal(follower.connections, quick.retries + 1);
      assert.equal(error.attempts, quick.retries + 1);
      assert.match(error.message, /wire\.restart: the log was lost/);
      assert.match(error.message, /on 4 connections in a row/);
      assert.ok(error.cause instanceof RemoteProtocolError, String(error.cause));
      assert.ok(error.cause.cause instanceof TypeError); // the last drop
    });

    test("a restart then new events once is progress enough: the next connection's budget is whole", async () => {
      const restart = `id: \ndata: ${JSON.stringify({ type: "CUSTOM", name: RESTART, value: { reason: "gone" } })}\n\n`;
      const { follower, error } = await run(kind,
        [cut(restart + frames(0, 2)), offline(), offline(), cut(frames(2, 4)), offline(), offline(), ok(frames(4))]);
      assert.equal(error, undefined, String(error));
      assert.equal(text(follower), "hello");
    });

    test("a consumer that stops in the middle of a chunk resumes after the last event it was handed", async () => {
      let follower;
      const { fetch } = scripted([ok()]);
      follower = FOLLOWERS[kind]("http://test/stream", {
        fetch, backoff: quick,
        onEvent() {
          if (follower.lastEventId === "2") follower.close();
        },
      });
      await assert.rejects(follower.done, { name: "AbortError" });
      assert.equal(follower.lastEventId, "2"); // not "" (nothing), nor "5" (the chunk's last, never handed)
      const failing = await run(kind, [ok()], {
        onEvent(event) {
          if (event.type === "TEXT_BLOCK_DELTA") throw new Error("the page failed on it");
        },
      });
      assert.equal(failing.error?.message, "the page failed on it");
      assert.equal(failing.follower.lastEventId, "2"); // handed (and applied), so a page that resumes skips it
    });

    test("a frame that is not an event rejects at once, after the events before it", async () => {
      const bad = frames(0, 2) + "id: 2\ndata: {\"type\":\"TEXT_BLOCK_DELTA\"}\n\n";
      const { follower, error } = await run(kind, [ok(bad), ok()]);
      assert.ok(error instanceof DecodeError, String(error));
      assert.equal(follower.connections, 1);
      assert.equal(follower.lastEventId, "1");
    });

    test("an event that fails to apply (a checkpoint without its Msg) rejects; the position stays before it", async () => {
      const bad = `id: 2\ndata: ${JSON.stringify({ type: "CUSTOM", name: "wire.checkpoint", value: {} })}\n\n`;
      const { follower, error } = await run(kind, [chunked(frames(0, 2), frames(2, 3) + bad + frames(3))]);
      assert.ok(error instanceof DecodeError, String(error));
      // Not past the bad event (a page that resumes from it reads the rest again), and not before the event
      // of its chunk that was applied (it would be applied twice).
      assert.equal(follower.lastEventId, "2");
      assert.equal(follower.connections, 1);
    });

    test("a callback's TypeError is not taken for a network failure", async () => {
      const { follower, error } = await run(kind, [ok()], { onEvent() { throw new TypeError("a bug"); } });
      assert.equal(error?.message, "a bug");
      assert.equal(follower.connections, 1);
    });
  });
}

test("RETRYABLE: 408, 425, 429 and every 5xx", () => {
  assert.deepEqual([408, 425, 429, 500, 503, 599].map((code) => RETRYABLE.has(code)), Array(6).fill(true));
  assert.deepEqual([200, 204, 400, 404, 409, 499, 600].map((code) => RETRYABLE.has(code)), Array(7).fill(false));
});

test("a session ends at a 204 (the server's end, which stops EventSource too); a reply cannot", async () => {
  const session = await run("followSession", [cut(frames(0, 3)), status(204)]);
  assert.equal(session.error, undefined);
  assert.equal(session.follower.closed, true);
  assert.equal(session.follower.connections, 2);
  const reply = await run("followReply", [cut(frames(0, 3)), status(204)]);
  assert.ok(reply.error instanceof HTTPStatusError && reply.error.status === 204, String(reply.error));
  assert.equal(reply.follower.connections, 2);
});

test("a body that ends is the session's end, and a dropped connection for a reply before REPLY_END", async () => {
  const session = await run("followSession", [ok(frames(0, 3)), ok(frames(3))]);
  assert.equal(session.follower.connections, 1);
  assert.equal(session.follower.closed, true);
  const reply = await run("followReply", [ok(frames(0, 3)), ok(frames(3))]);
  assert.equal(reply.error, undefined);
  assert.equal(reply.follower.connections, 2);
  assert.equal(String(reply.reconnects[0].reason), "WireError: the stream ended before REPLY_END");
});

test("followSession keeps a session: a turn pending until its reply begins, a reconnect's checkpoint of the Msg held is no news", async () => {
  const written = turn(null);
  const seen = [];
  let held;
  const again = () => {
    const checkpoint = { type: "CUSTOM", name: "wire.checkpoint", value: { msg: held } };
    return new Response(`id: 2\ndata: ${JSON.stringify(checkpoint)}\n\n${frames(3)}`, { status: 200, headers: SSE });
  };
  const { follower, error } = await run("followSession", [cut(`id: t\ndata: ${JSON.stringify(written)}\n\n${frames(0, 3)}`), again], {
    onEvent(event, msg, conversation) {
      held = JSON.parse(JSON.stringify(conversation.replies.get(R) ?? null));
      seen.push([event.type === "CUSTOM" ? event.name : event.type, msg?.id ?? null, conversation.refusal(null) ?? null]);
    },
  });
  assert.equal(error, undefined);
  assert.equal(follower.connections, 2);
  assert.deepEqual(seen.slice(0, 5), [
    ["wire.turn", null, `turn '${written.id}' is waiting for its reply to begin: wait for it, or interrupt it (a ` +
      "USER_INTERRUPT naming the turn's id)"],
    ["REPLY_START", R, `reply '${R}' is still running`],
    ["TEXT_BLOCK_START", R, `reply '${R}' is still running`],
    ["TEXT_BLOCK_DELTA", R, `reply '${R}' is still running`],
    ["wire.checkpoint", null, `reply '${R}' is still running`],
  ]);
  assert.deepEqual(seen.at(-1), ["REPLY_END", R, null]);
  assert.equal(text(follower), "hello");
});

test("a reply's end in the middle of a chunk is where followReply's position stays", async () => {
  const next = { ...EVENTS[0], reply_id: "reply-2" };
  const body = frames() + `id: 6\ndata: ${JSON.stringify(next)}\n\n`;
  const { follower, error } = await run("followReply", [ok(body)]);
  assert.equal(error, undefined, String(error));
  assert.equal(follower.lastEventId, "5"); // its REPLY_END, not the next reply's start it was never handed
});

describe("answer", () => {
  const post = (body, headers = {}) => async () => new Response(body, {
    status: 200, headers: { "content-type": "application/json", ...headers },
  });
  const ask = (fetch, extra = {}) => answer("http://test/chat", {
    agentId: "a", sessionId: "s", input: null, fetch, ...extra,
  });

  test("reads the answer endpoint's JSON", async () => {
    const answered = await ask(post('{"session_id": "s", "entry_id": "7"}'));
    assert.deepEqual(answered, { status: 200, sessionId: "s", entryId: "7" });
  });

  test("reads a bounded body: past maxBytes it stops reading and names the limit", async () => {
    let pulled = 0;
    const streamed = () => new ReadableStream({
      pull(controller) {
        if (pulled++ === 0) controller.enqueue(new TextEncoder().encode('{"pad": "'));
        else if (pulled < 1000) controller.enqueue(new Uint8Array(1000).fill(120));
        else controller.close();
      },
    });
    const error = await ask(async () => new Response(streamed(), {
      status: 200, headers: { "content-type": "application/json" },
    }), { maxBytes: 4096 }).catch((caught) => caught);
    assert.ok(error instanceof ResponseTooLarge, String(error));
    assert.ok(error instanceof RemoteProtocolError);
    assert.equal(error.limit, 4096);
    assert.match(error.message, /^POST http:\/\/test\/chat: the response body is longer than the limit of 4096 bytes/);
    assert.ok(pulled < 10, `${pulled} chunks read`);
    // A Content-Length that says so is believed before a byte is read.
    const sized = await ask(post(`{"pad": "${"x".repeat(10_000)}"}`, { "content-length": "10011" }),
      { maxBytes: 4096 }).catch((caught) => caught);
    assert.ok(sized instanceof ResponseTooLarge && sized.limit === 4096, String(sized));
    // The default is 1 MiB.
    assert.equal(MAX_ANSWER_BYTES, 1 << 20);
    const big = await ask(post(`{"pad": "${"x".repeat(MAX_ANSWER_BYTES)}"}`)).catch((caught) => caught);
    assert.ok(big instanceof ResponseTooLarge && big.limit === MAX_ANSWER_BYTES, String(big));
    await assert.rejects(ask(post("{}"), { maxBytes: 0 }), RangeError);
  });
});
