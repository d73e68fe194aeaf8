/**
 * A resuming client for one reply's SSE stream, over `fetch` (browsers and
 * Node 20+): wire's `sse_endpoint` (wire.transports.http) and any server that speaks
 * its protocol.
 *
 * It reads the stream with `SSEDecoder`, applies each event to the Msg with
 * `appendEvent`, and when the connection drops before REPLY_END it connects
 * again after a backoff, sending `Last-Event-ID`. wire's server answers with
 * a checkpoint (the Msg built so far, `readCheckpoint`) that replaces the
 * client's Msg, then the events after it; a server that replays the events
 * after that id instead works too, since the client has applied every event
 * its decoder returned. Either way the Msg ends as the uninterrupted one.
 * A `wire.restart` (the kept id is of a log that is gone) drops the Msg:
 * the reply is read again from its REPLY_START.
 */
import { readCheckpoint } from "./checkpoint.js";
import { RemoteProtocolError } from "./errors.js";
import { UnknownEvent } from "./events.js";
import { appendEvent } from "./reducer.js";
import { beginReply, RESTART } from "./session.js";
import { SSEDecoder } from "./sse.js";
/** The server answered a request with a status that retrying cannot fix (a 404, say). */
export class ReplyRequestError extends Error {
    status;
    name = "ReplyRequestError";
    constructor(status, message) {
        super(message);
        this.status = status;
    }
}
// Statuses worth retrying: the server or a proxy is busy or restarting.
const RETRY_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);
/**
 * Follow the reply whose SSE stream is at `url` until REPLY_END, reconnecting
 * with `Last-Event-ID` when the connection drops.
 *
 * ```ts
 * const reply = followReply("/replies/r1/events", {
 *   onEvent: (event, msg) => render(msg),
 * });
 * const msg = await reply.done;
 * ```
 */
export function followReply(url, options = {}) {
    const stop = new AbortController();
    const outer = options.signal;
    const onAbort = () => stop.abort(outer?.reason);
    if (outer?.aborted)
        onAbort();
    else
        outer?.addEventListener("abort", onAbort, { once: true });
    const state = {
        msg: options.msg,
        lastEventId: options.lastEventId ?? "",
        connections: 0,
    };
    const follower = {
        get msg() { return state.msg; },
        get lastEventId() { return state.lastEventId; },
        get connections() { return state.connections; },
        done: run(url, options, state, stop.signal).finally(() => outer?.removeEventListener("abort", onAbort)),
        close: () => stop.abort(new DOMException("followReply closed", "AbortError")),
    };
    return follower;
}
async function run(url, options, state, signal) {
    const initial = options.backoff?.initialMs ?? 250;
    const max = options.backoff?.maxMs ?? 10_000;
    const maxAttempts = options.backoff?.maxAttempts ?? 8;
    let retryMs; // the server's SSE retry field, once sent
    let failures = 0;
    for (;;) {
        signal.throwIfAborted();
        const startId = state.lastEventId;
        const decoder = new SSEDecoder({
            lastEventId: state.lastEventId,
            unknown: options.unknown ?? "skip",
        });
        const outcome = await connect(url, options, state, signal, decoder);
        if (outcome.done)
            return finish(state, options);
        retryMs = decoder.retry ?? retryMs;
        // Progress is a new event id, not just events: a server that answers every
        // reconnection with the same checkpoint and nothing after it is failing.
        failures = outcome.applied > 0 && state.lastEventId !== startId ? 1 : failures + 1;
        if (failures > maxAttempts)
            throw new Error(`gave up after ${maxAttempts} attempts`, { cause: outcome.reason });
        const base = Math.min(max, (retryMs ?? initial) * 2 ** (failures - 1));
        const delay = base / 2 + Math.random() * (base / 2);
        options.onReconnect?.(failures, delay, outcome.reason);
        await sleep(delay, signal);
    }
}
/**
 * One connection: the events it brings, applied. Ends with the reply, or with
 * the reason to reconnect: a network failure (fetch's TypeError, caught only
 * around fetch and read, so that a TypeError in a callback is not mistaken
 * for one), a retryable status, a broken frame, or the body's early end.
 * Anything else (a callback's error, a 404) rejects `done`.
 */
async function connect(url, options, state, signal, decoder) {
    let applied = 0;
    const apply = (events) => {
        for (const event of events) {
            signal.throwIfAborted(); // no callback after close(), even for the rest of a chunk
            applied++;
            if (applyOne(event, state, options))
                return true;
        }
        return false;
    };
    const retry = (reason) => ({ done: false, applied, reason });
    const network = (error) => {
        if (signal.aborted)
            throw signal.reason;
        if (!(error instanceof TypeError))
            throw error;
        return retry(error);
    };
    const headers = new Headers(options.headers);
    headers.set("Accept", "text/event-stream");
    if (state.lastEventId)
        headers.set("Last-Event-ID", state.lastEventId);
    state.connections++;
    let response;
    try {
        response = await (options.fetch ?? globalThis.fetch)(url, { headers, signal, cache: "no-store" });
    }
    catch (error) {
        return network(error);
    }
    if (!response.ok || response.body === null) {
        await response.body?.cancel();
        const problem = `GET ${String(url)}: ${response.status} ${response.statusText}`;
        if (!RETRY_STATUS.has(response.status))
            throw new ReplyRequestError(response.status, problem);
        return retry(new Error(problem));
    }
    const reader = response.body.getReader();
    try {
        for (;;) {
            let chunk;
            try {
                chunk = await reader.read();
            }
            catch (error) {
                return network(error);
            }
            if (chunk.done)
                break;
            const ended = apply(decoder.feed(chunk.value));
            state.lastEventId = decoder.lastEventId;
            if (ended)
                return { done: true };
        }
        const ended = apply(decoder.close());
        state.lastEventId = decoder.lastEventId;
        return ended ? { done: true } : retry(new Error("the stream ended before REPLY_END"));
    }
    catch (error) {
        if (!(error instanceof RemoteProtocolError) || signal.aborted)
            throw error;
        // A broken frame: the events before it are valid; apply them, then resume after them.
        const ended = apply(error.events);
        state.lastEventId = decoder.lastEventId;
        return ended ? { done: true } : retry(error);
    }
    finally {
        // Closes the connection when the reply ended before the body did; a no-op after the body's end.
        void reader.cancel().catch(() => undefined);
    }
}
/** Apply one event; true once the reply has ended. */
function applyOne(event, state, options) {
    if (event.type === "CUSTOM" && "name" in event && event.name === RESTART) {
        // The server's log is not the one the kept id came from: what was built is not its; the log follows
        // from its first event (the restart's empty id has reset lastEventId), whose REPLY_START begins the Msg
        // again. onEvent gets an empty Msg, so that a page clears what it showed.
        state.msg = undefined;
        options.onEvent?.(event, { name: "", content: [], role: "assistant" });
        return false;
    }
    const snapshot = readCheckpoint(event);
    if (snapshot !== undefined) {
        state.msg = snapshot;
    }
    else {
        state.msg ??= firstMsg(event);
        appendEvent(state.msg, event);
    }
    options.onEvent?.(event, state.msg);
    // A checkpoint of a finished reply (a page reloaded after its end) is the end too: no REPLY_END follows it.
    return event.type === "REPLY_END" || (snapshot !== undefined && snapshot.finished_at != null);
}
/** The Msg a reply starts from when the caller gave none: begun at its REPLY_START, as wire's stores begin it. */
function firstMsg(event) {
    if (event.type === "REPLY_START" && !(event instanceof UnknownEvent))
        return beginReply(event);
    const fields = event;
    const msg = {
        name: event.type === "REPLY_START" && typeof fields.name === "string" ? fields.name : "",
        content: [],
        role: "assistant",
    };
    if (typeof fields.reply_id === "string")
        msg.id = fields.reply_id;
    if (typeof fields.created_at === "string")
        msg.created_at = fields.created_at;
    return msg;
}
function finish(state, options) {
    const msg = state.msg;
    options.onComplete?.(msg);
    return msg;
}
/** ``ms`` milliseconds, or rejected with the signal's reason once it aborts (followReply's and followSession's backoff). */
export function sleep(ms, signal) {
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
            signal.removeEventListener("abort", onAbort);
            resolve();
        }, ms);
        const onAbort = () => {
            clearTimeout(timer);
            reject(signal.reason);
        };
        signal.addEventListener("abort", onAbort, { once: true });
    });
}
