// The parts of the decoder and reducer contract that the vectors and the
// differential tests (tests/typescript/test_runtime_vs_python.py) do not pin one by one.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  anomaliesOf,
  appendEvent,
  DecodeError,
  encodeBase64,
  isBase64,
  extendEvents,
  FrameError,
  LocalProtocolError,
  MsgpackFrameDecoder,
  NDJSONDecoder,
  readCheckpoint,
  SSEDecoder,
  StreamOrderError,
  UnknownEvent,
} from "../dist/index.js";

const R = "reply-1";
const line = (event) => `${JSON.stringify(event)}\n`;
const delta = (text, block = "b") => ({ type: "TEXT_BLOCK_DELTA", reply_id: R, block_id: block, delta: text, id: "e", created_at: "t" });
const start = { type: "TEXT_BLOCK_START", reply_id: R, block_id: "b", id: "s", created_at: "t0" };
const newMsg = () => ({ id: R, name: "Friday", role: "assistant", content: [] });

test("an error carries the events decoded before it in the same call, its offset and index", () => {
  const decoder = new NDJSONDecoder();
  const good = line(start) + line(delta("a"));
  assert.throws(() => decoder.feed(good + "{not json}\n" + line(delta("b"))), (error) => {
    assert.ok(error instanceof DecodeError);
    assert.equal(error.events.length, 2);
    assert.equal(error.index, 2);
    assert.ok(error.offset >= good.length && error.offset < good.length + 11, String(error.offset));
    return true;
  });
  assert.throws(() => decoder.feed("x"), LocalProtocolError); // failed for good
  assert.throws(() => decoder.close(), LocalProtocolError);
});

test("close: a last line without newline is read, a cut one is a FrameError, a second close gives nothing", () => {
  const decoder = new NDJSONDecoder();
  assert.deepEqual(decoder.feed(JSON.stringify(start)), []);
  assert.deepEqual(decoder.close(), [start]);
  assert.deepEqual(decoder.close(), []);
  assert.throws(() => decoder.feed("\n"), LocalProtocolError);
  const cut = new NDJSONDecoder();
  cut.feed(line(start) + '{"type":"TEXT_BL');
  assert.throws(() => cut.close(), (error) => error instanceof FrameError && error.offset === line(start).length);
});

test("maxFrameBytes: a line fails as soon as the buffer passes it; a prefix before any payload", () => {
  const decoder = new NDJSONDecoder({ maxFrameBytes: 10 });
  decoder.feed("12345");
  assert.throws(() => decoder.feed("678901"), FrameError);
  const frames = new MsgpackFrameDecoder({ maxFrameBytes: 100 });
  assert.throws(() => frames.feed(new Uint8Array([0, 0, 1, 0])), (error) => error instanceof FrameError && error.offset === 0);
});

test("the unknown-event policy: raise, skip, keep; a kept one is an anomaly for the reducer", () => {
  const future = '{"type":"FUTURE","reply_id":"reply-1"}\n';
  assert.throws(() => new NDJSONDecoder().feed(future), (error) => error instanceof DecodeError && error.path === "$.type");
  assert.deepEqual(new NDJSONDecoder({ unknown: "skip" }).feed(future + line(start)), [start]);
  const [kept] = new NDJSONDecoder({ unknown: "keep" }).feed(future);
  assert.ok(kept instanceof UnknownEvent);
  assert.equal(new TextDecoder().decode(kept.raw), future.trim());
  const msg = newMsg();
  assert.equal(appendEvent(msg, kept).kind, "unknown_event");
});

test("a missing field or bad base64 names its path", () => {
  assert.throws(() => new NDJSONDecoder().feed('{"type":"TEXT_BLOCK_DELTA","reply_id":"r","block_id":"b"}\n'),
    (error) => error.path === "$.delta");
  const bad = { type: "DATA_BLOCK_DELTA", reply_id: R, block_id: "d", media_type: "m", data: "-_-_" };
  assert.throws(() => new NDJSONDecoder().feed(line(bad)), (error) => error.path === "$.data");
});

test("SSE: ids, retry, comments, CR line ends, a BOM cut in two, multi-line data", () => {
  const decoder = new SSEDecoder({ lastEventId: "7" });
  const bom = new Uint8Array([0xef, 0xbb]);
  assert.deepEqual(decoder.feed(bom), []);
  const json = JSON.stringify(start);
  const cut = json.indexOf(",") + 1; // between two members: the LF that joins the lines is whitespace
  const body = `:heartbeat\rretry: 1500\rid: 8\rdata: ${json.slice(0, cut)}\rdata: ${json.slice(cut)}\r\r`;
  const bytes = new Uint8Array([0xbf, ...new TextEncoder().encode(body)]);
  const events = decoder.feed(bytes);
  assert.deepEqual(events.length, 1);
  assert.equal(events[0].block_id, "b");
  assert.equal(decoder.lastEventId, "8");
  assert.equal(decoder.retry, 1500);
  decoder.feed("id: 9\n");
  assert.equal(decoder.lastEventId, "8"); // not dispatched yet
  assert.throws(() => decoder.close(), FrameError); // the stream ended inside a frame
});

test("SSE keepIds: the id each event returned was dispatched with, for a consumer that stops mid-chunk", () => {
  const json = JSON.stringify(start);
  const decoder = new SSEDecoder({ lastEventId: "7", keepIds: true, unknown: "skip" });
  const events = decoder.feed(`id: 8\ndata: ${json}\n\n` + "id: 9\n\n" // an id without data moves the id only
    + 'id: 10\ndata: {"type":"NOT_A_TYPE"}\n\n' // skipped: no event, no id
    + `data: ${json}\n\n` + "data: \n\n" + `id: 12\ndata: ${json}\n\nid: 13\n\n`);
  assert.equal(events.length, 3);
  assert.deepEqual(decoder.ids, ["8", "10", "12"]);
  assert.equal(decoder.lastEventId, "13");
  assert.deepEqual(decoder.feed(":heartbeat\n"), []);
  assert.deepEqual(decoder.ids, []); // each call's own
  // A frame that is not an event: the ids of the events its error carries.
  assert.throws(() => decoder.feed(`id: 14\ndata: ${json}\n\nid: 15\ndata: {\n\n`), (error) => {
    assert.equal(error.events.length, 1);
    return true;
  });
  assert.deepEqual(decoder.ids, ["14"]);
  const plain = new SSEDecoder();
  assert.equal(plain.feed(`id: 1\ndata: ${json}\n\n`).length, 1);
  assert.deepEqual(plain.ids, []); // kept only when asked for
});

test("MessagePack: bytes arrive as Uint8Array and reduce to base64; bad UTF-8 and __proto__ keys are refused", () => {
  // {"type": "DATA_BLOCK_DELTA", ...} written by hand: bin 8 for data.
  const enc = new TextEncoder();
  const str = (s) => { const b = enc.encode(s); return [0xa0 | b.length, ...b]; };
  const fields = [["type", "DATA_BLOCK_DELTA"], ["reply_id", R], ["block_id", "d"], ["media_type", "m"]];
  const payload = [0x85, ...fields.flatMap(([k, v]) => [...str(k), ...str(v)]), ...str("data"), 0xc4, 2, 1, 2];
  const frame = new Uint8Array([0, 0, 0, payload.length, ...payload]);
  const [event] = new MsgpackFrameDecoder().feed(frame);
  assert.ok(event.data instanceof Uint8Array);
  const msg = newMsg();
  appendEvent(msg, { type: "DATA_BLOCK_START", reply_id: R, block_id: "d", media_type: "m", created_at: "t" });
  appendEvent(msg, event);
  appendEvent(msg, event);
  assert.equal(msg.content[0].source.data, encodeBase64(new Uint8Array([1, 2, 1, 2])));
  const badUtf8 = [0x81, ...str("type"), 0xa2, 0xff, 0xfe];
  assert.throws(() => new MsgpackFrameDecoder().feed(new Uint8Array([0, 0, 0, badUtf8.length, ...badUtf8])),
    (error) => error instanceof DecodeError && error.offset === 4 + 6);
  const proto = [0x82, ...str("type"), ...str("CUSTOM"), ...str("__proto__"), 0xc0];
  assert.throws(() => new MsgpackFrameDecoder().feed(new Uint8Array([0, 0, 0, proto.length, ...proto])), DecodeError);
});

test("strict mode throws before changing anything; lenient mode records and returns the anomaly", () => {
  const msg = newMsg();
  appendEvent(msg, start);
  const before = JSON.stringify(msg);
  assert.throws(() => appendEvent(msg, delta("x", "nope"), { strict: true }),
    (error) => error instanceof StreamOrderError && error.kind === "unknown_block" && error.index === 1);
  assert.equal(JSON.stringify(msg), before);
  const anomaly = appendEvent(msg, delta("x", "nope"));
  assert.deepEqual(anomaly, { index: 2, kind: "unknown_block", event_type: "TEXT_BLOCK_DELTA", id: "nope",
    detail: "no block was started with this id" });
  assert.deepEqual(anomaliesOf(msg), [anomaly]);
});

test("base64 grows as the joined bytes would encode, whatever the chunk sizes", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const msg = newMsg();
  appendEvent(msg, { type: "DATA_BLOCK_START", reply_id: R, block_id: "d", media_type: "m" });
  const all = [];
  for (let i = 0; i < 200; i++) {
    const chunk = Uint8Array.from({ length: Math.floor(random() * 7) }, () => Math.floor(random() * 256));
    all.push(...chunk);
    const data = random() < 0.5 ? chunk : encodeBase64(chunk);
    appendEvent(msg, { type: "DATA_BLOCK_DELTA", reply_id: R, block_id: "d", media_type: "m", data });
    assert.equal(msg.content[0].source.data, encodeBase64(Uint8Array.from(all)));
  }
});

test("the Msg is kept in wire's form: a Msg in agentscope's form (nulls, any key order) is rewritten", () => {
  const msg = { content: [], id: R, role: "assistant", name: "Friday", metadata: {}, usage: null, error: null,
    finished_at: null, created_at: "t" };
  extendEvents(msg, [start, { type: "TOOL_CALL_START", reply_id: R, tool_call_id: "c", tool_call_name: "f", created_at: "t1" },
    { type: "REQUIRE_EXTERNAL_EXECUTION", reply_id: R, tool_calls: [{ type: "tool_call", id: "c", name: "f", input: "" }] }]);
  assert.equal(JSON.stringify(msg), '{"name":"Friday","content":[{"type":"text","text":"","id":"b","created_at":"t0"},'
    + '{"type":"tool_call","id":"c","name":"f","input":"","state":"submitted","created_at":"t1"}],'
    + '"role":"assistant","id":"reply-1","created_at":"t"}');
});

test("readCheckpoint: undefined for other events, DecodeError for a checkpoint without a msg", () => {
  assert.equal(readCheckpoint(start), undefined);
  assert.equal(readCheckpoint({ type: "CUSTOM", name: "other" }), undefined);
  assert.throws(() => readCheckpoint({ type: "CUSTOM", name: "wire.checkpoint", value: {} }),
    (error) => error instanceof DecodeError && error.path === "$.value.msg");
});

test("a value of the wrong type is an anomaly, not the text 'undefined': `text` where `delta` belongs", () => {
  const msg = newMsg();
  appendEvent(msg, start);
  appendEvent(msg, delta("a"));
  const before = JSON.stringify(msg);
  const misspelt = { type: "TEXT_BLOCK_DELTA", reply_id: R, block_id: "b", text: "b" };
  assert.equal(appendEvent(msg, misspelt).kind, "wrong_type");
  assert.equal(appendEvent(msg, { ...delta(5) }).kind, "wrong_type");
  assert.equal(appendEvent(msg, { type: "TEXT_BLOCK_END", reply_id: R, block_id: "b", text: 5 }).kind, "wrong_type");
  assert.equal(appendEvent(msg, { type: "TOOL_CALL_START", reply_id: R, tool_call_id: 5, tool_call_name: "f" }).kind,
    "wrong_type");
  assert.equal(JSON.stringify(msg), before);
  assert.equal(msg.content[0].text, "a");
  assert.throws(() => appendEvent(msg, misspelt, { strict: true }),
    (error) => error instanceof StreamOrderError && error.kind === "wrong_type");
});

test("a block started after REPLY_END is an anomaly, still appended as agentscope does; strict throws", () => {
  const end = { type: "REPLY_END", reply_id: R, session_id: "s", created_at: "t9" };
  const msg = newMsg();
  appendEvent(msg, end);
  const before = JSON.stringify(msg);
  assert.throws(() => appendEvent(msg, start, { strict: true }),
    (error) => error instanceof StreamOrderError && error.kind === "after_reply_end" && error.index === 1);
  assert.equal(JSON.stringify(msg), before);
  assert.equal(appendEvent(msg, start).kind, "after_reply_end");
  assert.equal(msg.content.length, 1);
});

test("a misspelt event type names the nearest known one, as Python's decoders do", () => {
  assert.throws(() => new NDJSONDecoder().feed(line({ type: "TEXT_BLOK_DELTA", reply_id: R })),
    (error) => error instanceof DecodeError && error.path === "$.type"
      && error.reason === "unknown event type 'TEXT_BLOK_DELTA': did you mean 'TEXT_BLOCK_DELTA'?");
  assert.throws(() => new NDJSONDecoder().feed(line({ type: "FUTURE_EVENT", reply_id: R })),
    (error) => error instanceof DecodeError && error.reason === "unknown event type 'FUTURE_EVENT'");
});

test("isBase64 agrees with the anchored pattern it replaced on every short string", () => {
  const pattern = /^[A-Za-z0-9+/]*={0,2}$/;
  const letters = ["A", "z", "0", "+", "/", "=", "-", " ", "\n"];
  const check = (text) => assert.equal(isBase64(text), text.length % 4 === 0 && pattern.test(text), JSON.stringify(text));
  const grow = (text, left) => {
    check(text);
    if (left) for (const letter of letters) grow(text + letter, left - 1);
  };
  grow("", 5);
  check("QUJD" + "=".repeat(3));
  check("QUI=QUI=");
});

test("an event field name that is invalid UTF-8 is an unknown field, skipped as wire's Python decoder skips it", () => {
  // a REPLY_START whose "created_at" key begins with 0xff (found by the differential fuzz test)
  const frame = Uint8Array.from(Buffer.from("000000c186a474797065ab5245504c595f5354415254a26964d9203164336635373863656465313466663139656566623563306665336637663134aaff7265617465645f6174ba323032362d30312d30315431303a30303a30302e303439373137aa73657373696f6e5f6964d9206434643439353130343531333439613439333534386239303565356337343734a87265706c795f6964d9206664656336356665373231323437333762323232643732383361623561333833a46e616d65a6467269646179", "hex"));
  const events = new MsgpackFrameDecoder().feed(frame);
  assert.equal(events.length, 1);
  assert.equal(events[0].name, "Friday");
});
