// The real Vercel AI SDK client (`ai`, pinned in package.json) run over
// UI message streams that wire wrote. tests/bridges/test_vercel*.py and
// tests/transports/test_every_endpoint.py drive it.
//
//   node run.mjs read CASES.json     for each {name, sse} case (sse: a file of
//                                    wire's bytes), what the client builds
//   node run.mjs encode CHUNKS.json  the bytes ai's own JsonToSseTransformStream
//                                    writes for a list of chunks (stdout)
//   node run.mjs live SERVER.json    useChat's requests to a real server (below)
//   node run.mjs socket SERVER.json  a chat over ai's WebSocketChatTransport (below)
//   node run.mjs resume-socket CASES.json
//                                    for each {name, url, chatId} case, what a
//                                    reloaded chat builds from resumeStream()
//                                    over ai's WebSocketChatTransport (below)
//
// `read` runs each stream three ways, all unmodified SDK code:
// 1. readUIMessageStream over parseJsonEventStream + uiMessageChunkSchema (the
//    parsing DefaultChatTransport does), as a server or a test reads a stream;
// 2. an AbstractChat subclass (the class useChat wraps) with a
//    DefaultChatTransport whose injected fetch answers with the bytes, after
//    chat.sendMessage(); the same chat then calls resumeStream(), which makes
//    the GET request useChat({resume: true}) makes;
// 3. validateUIMessages over both results, as a server route does with what
//    useChat posts back.
import { readFile } from 'node:fs/promises';
import { parseJsonEventStream } from '@ai-sdk/provider-utils';
import WebSocket from 'ws';
import {
  AbstractChat,
  DefaultChatTransport,
  JsonToSseTransformStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  UI_MESSAGE_STREAM_HEADERS,
  validateUIMessages,
  WebSocketChatTransport,
} from 'ai';

function bytesStream(bytes) {
  return new ReadableStream({
    start(controller) {
      // Small pieces: frames split across reads, as on a network.
      for (let i = 0; i < bytes.length; i += 1000) controller.enqueue(bytes.subarray(i, i + 1000));
      controller.close();
    },
  });
}

// What DefaultChatTransport.processResponseStream does with a response body.
function parseChunks(bytes) {
  return parseJsonEventStream({ stream: bytesStream(bytes), schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) throw result.error;
        controller.enqueue(result.value);
      },
    }),
  );
}

async function readWithReadUIMessageStream(bytes) {
  const errors = [];
  let message = null;
  try {
    for await (const snapshot of readUIMessageStream({
      stream: parseChunks(bytes),
      onError: error => errors.push(String(error?.message ?? error)),
    })) {
      message = snapshot;
    }
  } catch (error) {
    errors.push(`thrown: ${error?.message ?? error}`);
  }
  return { message, errors };
}

class ArrayChatState {
  constructor() {
    this.status = 'ready';
    this.error = undefined;
    this.messages = [];
  }
  pushMessage = message => {
    this.messages = this.messages.concat(message);
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index, message) => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  };
  snapshot = thing => structuredClone(thing);
}

// The minimal concrete chat: useChat's Chat class is AbstractChat plus a
// React-observable state; the SDK logic is all in AbstractChat.
class TestChat extends AbstractChat {
  constructor(init) {
    const state = new ArrayChatState();
    super({ ...init, state });
    this.chatState = state;
  }
}

async function readWithChat(bytes) {
  const requests = [];
  const toolCalls = [];
  const data = [];
  const errors = [];
  const fetchBytes = async (url, init) => {
    requests.push({ url: String(url), method: init?.method ?? 'GET' });
    return new Response(bytes, { status: 200, headers: UI_MESSAGE_STREAM_HEADERS });
  };
  const transport = new DefaultChatTransport({ api: 'http://wire.test/api/chat', fetch: fetchBytes });
  const chat = new TestChat({
    id: 'chat-1',
    transport,
    onToolCall: ({ toolCall }) => {
      toolCalls.push(toolCall.toolCallId);
    },
    onData: part => data.push(part.type),
    onError: error => errors.push(String(error?.message ?? error)),
  });
  await chat.sendMessage({ text: 'hello' });
  const sent = { messages: chat.chatState.messages, status: chat.chatState.status };

  // useChat({resume: true}) on page load: GET {api}/{chatId}/stream. The
  // replayed stream rebuilds the same message (resumeStreamIsReplay).
  await chat.resumeStream();
  const resumed = { messages: chat.chatState.messages, status: chat.chatState.status };
  return { ...sent, resumed, requests, toolCalls, data, errors };
}

async function validate(messages) {
  try {
    await validateUIMessages({ messages });
    return 'ok';
  } catch (error) {
    return String(error?.message ?? error);
  }
}

async function readCase({ name, sse }) {
  const bytes = new Uint8Array(await readFile(sse));
  const read = await readWithReadUIMessageStream(bytes);
  const chat = await readWithChat(bytes);
  return {
    name,
    read,
    chat,
    validate: {
      read: read.message ? await validate([read.message]) : 'no message',
      chat: await validate(chat.messages),
      resumed: chat.resumed.messages.length ? await validate(chat.resumed.messages) : 'no message',
    },
  };
}

async function encode(chunks) {
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  }).pipeThrough(new JsonToSseTransformStream());
  let text = '';
  for await (const piece of stream) text += piece;
  process.stdout.write(text);
}

// `live`: useChat's requests to a real server at {api}. Chat A sends a
// message (POST {api}); the reply parks for a confirmation, which ends the
// response with the tool part awaiting approval. A approves
// (addToolApprovalResponse) and sends again (POST with the answer); while that
// response streams, chat B (a reloaded page: same chat id, no messages) calls
// resumeStream() (GET {api}/{id}/stream). When both are done, chat C resumes
// too: nothing runs any more, so the server answers 204 and C stays empty.
async function live({ api, chatId, resumeAfterMs }) {
  const errors = [];
  const make = () =>
    new TestChat({ id: chatId, transport: new DefaultChatTransport({ api }),
      onError: error => errors.push(String(error?.message ?? error)) });
  const view = chat => ({ messages: chat.chatState.messages, status: chat.chatState.status });
  const a = make();
  await a.sendMessage({ text: 'hello' });
  const parked = structuredClone(view(a));
  const asking = a.chatState.messages.at(-1).parts.filter(p => p.state === 'approval-requested');
  for (const part of asking) await a.addToolApprovalResponse({ id: part.approval.id, approved: true });
  const b = make();
  const sending = a.sendMessage();
  await new Promise(resolve => setTimeout(resolve, resumeAfterMs));
  await Promise.all([sending, b.resumeStream()]);
  const c = make();
  await c.resumeStream();
  return { parked, a: view(a), b: view(b), c: view(c), errors };
}

// `session`: one chat over a session served by wire.bridges.vercel_http's
// chat_endpoint and resume_endpoint. Each turn sends a new message; each time
// the response ends with tool parts awaiting approval, the chat answers them
// (the turn's `approve`) and sends again, as an app with an Allow/Deny button
// does. What the chat holds and its status are recorded after every request;
// at the end a new chat of the same id (a reloaded page) resumes, which finds
// nothing running.
async function session({ api, chatId, turns }) {
  const errors = [];
  const make = () =>
    new TestChat({ id: chatId, transport: new DefaultChatTransport({ api }),
      onError: error => errors.push(String(error?.message ?? error)) });
  const chat = make();
  const steps = [];
  const record = what => steps.push({ what, status: chat.chatState.status,
    messages: structuredClone(chat.chatState.messages) });
  for (const { text, approve } of turns) {
    await chat.sendMessage({ text });
    record(`sent ${text}`);
    for (let round = 0; round < 4; round++) {
      const asking = chat.chatState.messages.at(-1).parts.filter(p => p.state === 'approval-requested');
      if (!asking.length) break;
      for (const part of asking) await chat.addToolApprovalResponse({ id: part.approval.id, approved: approve });
      await chat.sendMessage();
      record(`answered ${approve}`);
    }
  }
  const reloaded = make();
  await reloaded.resumeStream();
  return { steps, reloaded: { messages: reloaded.chatState.messages, status: reloaded.chatState.status }, errors };
}

// `socket`: one chat over ai's WebSocketChatTransport (node 20 has no global
// WebSocket: the `ws` package's, recorded so that the test can cut one),
// served by wire.bridges.vercel_ws's chat_socket. Each turn sends a message
// and answers the approvals as `session` does. A turn's `drop` ({phase:
// "send" | "answer", text}) cuts the connection (ws's terminate(): no close
// frame, as when a network goes) once a part of the reply shows that text;
// the request fails as a disconnect, and the chat resumes with
// resumeStream() (the transport's reconnectToStream, on a new connection).
async function socket({ url, chatId, turns }) {
  const errors = [];
  const sockets = [];
  class Recorded extends WebSocket {
    constructor(...args) {
      super(...args);
      sockets.push(this);
    }
  }
  let watch = null; // the text whose arrival cuts the connection
  class WatchedState extends ArrayChatState {
    replaceMessage = (index, message) => {
      this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
      this.check(message);
    };
    pushMessage = message => {
      this.messages = this.messages.concat(message);
      this.check(message);
    };
    check(message) {
      if (watch != null && message.parts.some(p => p.type === 'text' && p.text === watch)) {
        watch = null;
        sockets.at(-1).terminate();
      }
    }
  }
  const transport = new WebSocketChatTransport({ url, webSocket: Recorded });
  const state = new WatchedState();
  const chat = new (class extends AbstractChat {})({ id: chatId, transport, state,
    onError: error => errors.push(String(error?.message ?? error)) });
  const steps = [];
  const record = what => steps.push({ what, status: state.status, error: state.error ? String(state.error.message) : null,
    messages: structuredClone(state.messages) });
  const request = async (phase, drop, send) => {
    if (drop?.phase === phase) watch = drop.text;
    await send();
    if (drop?.phase === phase) {
      record(`dropped ${phase}`);
      await chat.resumeStream();
      record(`resumed ${phase}`);
    }
  };
  for (const { text, approve, drop } of turns) {
    await request('send', drop, () => chat.sendMessage({ text }));
    record(`sent ${text}`);
    const asking = state.messages.at(-1).parts.filter(p => p.state === 'approval-requested');
    for (const part of asking) await chat.addToolApprovalResponse({ id: part.approval.id, approved: approve });
    if (asking.length) {
      await request('answer', drop, () => chat.sendMessage());
      record(`answered ${approve}`);
    }
  }
  // A reloaded page on the same socket: nothing runs, the server says no-active.
  const reloaded = new (class extends AbstractChat {})({ id: chatId, transport, state: new ArrayChatState() });
  await reloaded.resumeStream();
  transport.close();
  return { steps, reloaded: { messages: reloaded.messages, status: reloaded.status }, errors,
    connections: sockets.length };
}

// `resume-socket`: for each {name, url, chatId} case, a chat with no
// messages (a reloaded page) on ai's own WebSocketChatTransport (the `ws`
// package's WebSocket: node 20 has none), connected to `url`
// (wire.bridges.vercel_ws's chat_socket), calls resumeStream(): the
// transport's reconnectToStream sends a `resume` frame for `chatId` and the
// chat builds the message from the replayed chunks. Each case has its own
// transport (its own connection), closed when the chat is done; what the
// chat holds (its last message, how many, its status and error), what its
// onError saw, and validateUIMessages over the messages.
async function resumeSocket({ name, url, chatId }) {
  const errors = [];
  const transport = new WebSocketChatTransport({ url, webSocket: WebSocket });
  const state = new ArrayChatState();
  const chat = new (class extends AbstractChat {})({ id: chatId, transport, state,
    onError: error => errors.push(String(error?.message ?? error)) });
  try {
    await chat.resumeStream();
  } catch (error) {
    errors.push(`thrown: ${error?.message ?? error}`);
  }
  transport.close();
  const messages = state.messages;
  return { name, message: messages.at(-1) ?? null, count: messages.length, status: state.status,
    error: state.error ? String(state.error.message ?? state.error) : null, errors,
    validate: messages.length ? await validate(messages) : 'no message' };
}

const [mode, path] = process.argv.slice(2);
const input = JSON.parse(await readFile(path, 'utf8'));
if (mode === 'encode') {
  await encode(input);
} else if (mode === 'session') {
  process.stdout.write(JSON.stringify(await session(input)));
} else if (mode === 'socket') {
  process.stdout.write(JSON.stringify(await socket(input)));
} else if (mode === 'resume-socket') {
  const results = [];
  for (const item of input) results.push(await resumeSocket(item));
  process.stdout.write(JSON.stringify(results));
} else if (mode === 'live') {
  process.stdout.write(JSON.stringify(await live(input)));
} else {
  const results = [];
  for (const item of input) results.push(await readCase(item));
  process.stdout.write(JSON.stringify(results));
}
