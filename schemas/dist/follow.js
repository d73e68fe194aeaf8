/**
 * The one reconnect loop of the runtime, under `followReply` (client.ts) and
 * `followSession` (session.ts): an SSE stream read over `fetch` (browsers
 * and Node 20+) across dropped connections, resumed from the last entry id
 * read, as `Last-Event-ID` or `?after=` (wire.transports.client.Follower's
 * rules). What the events mean is the caller's (a `Reader`); everything
 * about connections is decided here once:
 *
 * - every response is checked before a byte of it is decoded: a status other
 *   than 200, or a body that is not `text/event-stream` (a 404, a proxy's or
 *   a login's HTML page), is an `HTTPStatusError` naming both; thrown at
 *   once, or retried when the status is in `RETRYABLE` (408, 425, 429, any
 *   5xx: a replica restarting behind its balancer, a busy server);
 * - a network failure (fetch's TypeError), a retryable status, a body that
 *   ends inside a frame, or (for a reader without `closed`) a body that ends
 *   before the reader is done, is a dropped connection: reconnect after
 *   `initialMs` (or the server's SSE `retry`), doubled per failed attempt up
 *   to `maxMs`, jittered; a 429 or 503 waits at least its `Retry-After`;
 * - `retries` failed attempts in a row give up with `ConnectionFailed`
 *   carrying the last failure; only an attempt that brings a new event id,
 *   and no `wire.restart`, starts the count over: a server that answers
 *   every reconnection with the same checkpoint and nothing after it, or
 *   with a `wire.restart` each time (its log cannot keep a position), is
 *   failing, and the error names the restarts;
 * - the position moves past each event as the reader is handed it: a reader
 *   that stops in the middle of a chunk (its reply's end, `close()` in a
 *   callback, a callback's error) resumes after the last event it was
 *   handed, never after one it was not (the decoder's `ids`);
 * - a frame that is not an event rejects (the events before it applied):
 *   the server would send the same bytes again;
 * - anything else (a callback's error) rejects too, and nothing is called
 *   after the signal aborts.
 */
import { RESTART } from "./checkpoint.js";
import { FrameError, RemoteProtocolError, WireError } from "./errors.js";
import { SSEDecoder } from "./sse.js";
/** Statuses worth another attempt (408, 425, 429 and every 5xx); any other but 200 is thrown at once. */
export const RETRYABLE = new Set([408, 425, 429, ...Array.from({ length: 100 }, (_, i) => 500 + i)]);
/** The statuses whose `Retry-After` is honoured. */
const RETRY_AFTER = new Set([429, 503]);
/** The longest `Retry-After` honoured: 5 minutes (a longer one is taken as this). */
const MAX_RETRY_AFTER_MS = 300_000;
/** The waits' defaults, wire.transports.client.Follower's. */
const DEFAULTS = { initialMs: 250, maxMs: 8_000, retries: 5 };
/**
 * The server answered with a status or a content type that is not what was
 * asked for (a 404, a proxy's HTML error page, a login page): `status`,
 * `contentType` and the first bytes of the body (`text`) say what came
 * instead (wire.transports.client.HTTPStatusError).
 */
export class HTTPStatusError extends RemoteProtocolError {
    method;
    url;
    status;
    contentType;
    text;
    name = "HTTPStatusError";
    constructor(method, url, status, contentType, text, expected) {
        super(`${method} ${url} answered ${status} with ${contentType || "no content type"}, not ${expected}` +
            (text ? `: ${text}` : ""));
        this.method = method;
        this.url = url;
        this.status = status;
        this.contentType = contentType;
        this.text = text;
    }
}
/** The follower gave up: `attempts` connections in a row failed; `cause` is the last failure. */
export class ConnectionFailed extends WireError {
    url;
    attempts;
    name = "ConnectionFailed";
    constructor(url, attempts, cause) {
        super(`GET ${url}: ${attempts} attempts in a row failed; the last: ${String(cause)}`, { cause });
        this.url = url;
        this.attempts = attempts;
    }
}
/** The media type of a response, lower case, without parameters. */
export function mediaType(response) {
    return (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
}
/** How much of an unexpected body an HTTPStatusError quotes, in bytes. */
export const SNIPPET = 300;
/** What came instead of what was asked for, with the first bytes of its body (never all of a large page). */
export async function unexpected(response, method, url, expected) {
    let head = new Uint8Array(0);
    const reader = response.body?.getReader();
    try {
        while (reader !== undefined && head.length < SNIPPET) {
            const { done, value } = await reader.read();
            if (done)
                break;
            const joined = new Uint8Array(head.length + value.length);
            joined.set(head);
            joined.set(value, head.length);
            head = joined;
        }
    }
    catch {
        // what was read is enough to say what came
    }
    finally {
        void reader?.cancel().catch(() => undefined);
    }
    const text = new TextDecoder().decode(head.subarray(0, SNIPPET)).trim();
    return new HTTPStatusError(method, url, response.status, response.headers.get("content-type") ?? "", text, expected);
}
/** A follower's own abort signal, following the caller's `signal` too; `release` forgets the caller's. */
export function stopper(outer) {
    const stop = new AbortController();
    const onAbort = () => stop.abort(outer?.reason);
    if (outer?.aborted)
        onAbort();
    else
        outer?.addEventListener("abort", onAbort, { once: true });
    return { stop, release: () => outer?.removeEventListener("abort", onAbort) };
}
/**
 * Read the stream at `url` into `reader` until it says it is done, or (with
 * `closed`) until the server ends the stream, reconnecting as the module's
 * docstring says. `position` is kept up to date for the follower's getters.
 */
export async function follow(url, options, unknown, reader, position, signal) {
    const attempts = new Attempts(url, options.backoff);
    let retryMs; // the server's SSE retry field, once sent
    let restarts = 0; // connections in a row that brought a wire.restart
    for (;;) {
        signal.throwIfAborted();
        const startId = position.lastEventId;
        const decoder = new SSEDecoder({ lastEventId: position.lastEventId, unknown, keepIds: true });
        const outcome = await connect(url, options, reader, position, signal, decoder);
        if (outcome === "done")
            return;
        retryMs = decoder.retry ?? retryMs;
        restarts = outcome.restart !== undefined ? restarts + 1 : 0;
        // Only a connection that moved the position on counts as a success: the same checkpoint again, or the
        // log started over (its new ids are no progress), is not.
        const progressed = outcome.applied > 0 && position.lastEventId !== startId && outcome.restart === undefined;
        const { attempt, delayMs } = attempts.failed(lastFailure(outcome, restarts), progressed, retryMs, outcome.waitMs);
        options.onReconnect?.(attempt, delayMs, outcome.reason);
        await sleep(delayMs, signal);
    }
}
/**
 * The budget of one follower's reconnections, whatever it reads over (SSE
 * here, a WebSocket in socket.ts): failed attempts in a row, given up past
 * `retries` with `ConnectionFailed`, and the wait before the next, as the
 * module's docstring says.
 */
export class Attempts {
    url;
    initialMs;
    maxMs;
    retries;
    failures = 0;
    constructor(url, backoff = {}) {
        this.url = url;
        this.initialMs = backoff.initialMs ?? DEFAULTS.initialMs;
        this.maxMs = backoff.maxMs ?? DEFAULTS.maxMs;
        this.retries = backoff.retries ?? backoff.maxAttempts ?? DEFAULTS.retries;
    }
    /**
     * A connection ended for `reason` and is to be made again: the attempt
     * that makes it (1 for the first in a row; a connection that `progressed`,
     * bringing a new entry id, starts the count over) and the wait before it:
     * `baseMs` (the server's SSE `retry`) or `initialMs`, doubled per failed
     * attempt up to `maxMs`, jittered, at least `atLeastMs` (a `Retry-After`).
     * Throws `ConnectionFailed` carrying `reason` past `retries`.
     */
    failed(reason, progressed, baseMs, atLeastMs) {
        this.failures = progressed ? 1 : this.failures + 1;
        if (this.failures > this.retries)
            throw new ConnectionFailed(this.url, this.failures, reason);
        const base = Math.min(this.maxMs, (baseMs ?? this.initialMs) * 2 ** (this.failures - 1));
        return { attempt: this.failures, delayMs: Math.max(base / 2 + Math.random() * (base / 2), atLeastMs ?? 0) };
    }
}
/** What `ConnectionFailed` carries: the last drop, or, after restarts in a row, an error naming them (caused by it). */
function lastFailure(outcome, restarts) {
    if (!restarts)
        return outcome.reason;
    const error = new RemoteProtocolError(`the server restarted the stream (wire.restart: ${outcome.restart}) on ` +
        `${restarts} connection${restarts > 1 ? "s" : ""} in a row, then dropped it; the last drop: ${String(outcome.reason)}`);
    error.cause = outcome.reason;
    return error;
}
/** The reason a `wire.restart` gives, or undefined for another event. */
function restartReason(event) {
    if (event.type !== "CUSTOM" || !("name" in event) || event.name !== RESTART)
        return undefined;
    const value = event.value;
    const reason = typeof value === "object" && value !== null ? value.reason : undefined;
    return (reason === undefined || reason === null ? "" : String(reason)) || "no reason given";
}
/** The request of the next connection: the position as a header, or as `after` among the URL's own query parameters. */
function request(url, options, lastEventId) {
    const headers = new Headers(options.headers);
    headers.set("Accept", "text/event-stream");
    if (!lastEventId)
        return [url, headers];
    if (options.cursor === "query") {
        const parsed = new URL(url, globalThis.location?.href);
        parsed.searchParams.set("after", lastEventId);
        return [parsed.href, headers];
    }
    headers.set("Last-Event-ID", lastEventId);
    return [url, headers];
}
/**
 * A `Retry-After` in milliseconds (delta-seconds or an HTTP date), at most
 * `MAX_RETRY_AFTER_MS`; undefined when absent or unreadable.
 */
export function retryAfterMs(value, nowMs = Date.now()) {
    if (value === null)
        return undefined;
    const text = value.trim();
    let ms;
    if (/^\d+$/.test(text))
        ms = Number(text) * 1000;
    else {
        const at = Date.parse(text);
        if (Number.isNaN(at))
            return undefined;
        ms = at - nowMs;
    }
    return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}
/**
 * One connection: the events it brings, applied. Ends with "done" (the
 * reader is done, or the stream's end closed it), or with the reason to
 * reconnect. fetch's TypeError is caught only around fetch and read, so
 * that a TypeError in a callback is not mistaken for a network failure.
 */
async function connect(url, options, reader, position, signal, decoder) {
    let applied = 0;
    let restart;
    /**
     * Apply a batch (what one decoder call gave); true once the reader is
     * done. The position moves past each event as it is handed to the reader
     * (its id from the decoder's `ids`; a wire.restart's is empty: the next
     * connection starts over), and to the decoder's `lastEventId` once all are.
     */
    const apply = (events) => {
        for (let i = 0; i < events.length; i++) {
            signal.throwIfAborted(); // no callback after close(), even for the rest of a chunk
            const event = events[i];
            const finished = reader.apply(event);
            applied++;
            position.lastEventId = decoder.ids[i];
            restart = restartReason(event) ?? restart;
            reader.handed?.(event);
            if (finished) {
                reader.applied?.();
                return true;
            }
        }
        position.lastEventId = decoder.lastEventId; // and past frames without data after the last event
        reader.applied?.();
        return false;
    };
    const retry = (reason, waitMs) => ({ applied, reason, waitMs, restart });
    const network = (error) => {
        if (signal.aborted)
            throw signal.reason;
        if (!(error instanceof TypeError))
            throw error;
        return retry(error);
    };
    const closed = () => {
        reader.closed();
        return "done";
    };
    const [target, headers] = request(url, options, position.lastEventId);
    position.connections++;
    let response;
    try {
        response = await (options.fetch ?? globalThis.fetch)(target, { headers, signal, cache: "no-store" });
    }
    catch (error) {
        return network(error);
    }
    if (response.status === 204 && reader.closed !== undefined) {
        await response.body?.cancel();
        return closed();
    }
    if (response.status !== 200 || mediaType(response) !== "text/event-stream" || response.body === null) {
        const error = await unexpected(response, "GET", target, "200 with text/event-stream");
        if (!RETRYABLE.has(response.status))
            throw error;
        const wait = RETRY_AFTER.has(response.status) ? retryAfterMs(response.headers.get("retry-after")) : undefined;
        return retry(error, wait);
    }
    const body = response.body.getReader();
    try {
        for (;;) {
            let chunk;
            try {
                chunk = await body.read();
            }
            catch (error) {
                return network(error);
            }
            if (chunk.done)
                break;
            const batch = decode(() => decoder.feed(chunk.value), signal);
            if (apply(batch.events))
                return "done"; // the events before a bad frame may be the end the reader waits for
            if (batch.error !== undefined)
                throw batch.error;
        }
        const rest = decode(() => decoder.close(), signal);
        if (apply(rest.events))
            return "done";
        // The body ended inside a frame, as a proxy cuts it: a dropped connection.
        if (rest.error instanceof FrameError)
            return retry(rest.error);
        if (rest.error !== undefined)
            throw rest.error;
        return reader.closed !== undefined ? closed() : retry(new WireError("the stream ended before REPLY_END"));
    }
    finally {
        // Closes the connection when the reader was done before the body was; a no-op after the body's end.
        void body.cancel().catch(() => undefined);
    }
}
/**
 * What one decoder call gives: its events, or, when it met a frame that is
 * not an event, the events before that frame (valid, to be applied) and the
 * error. Only the decoder's errors are caught here, so that the position
 * never moves past an event a callback failed on.
 */
function decode(step, signal) {
    try {
        return { events: step() };
    }
    catch (error) {
        if (!(error instanceof RemoteProtocolError) || signal.aborted)
            throw error;
        return { events: error.events, error };
    }
}
/** `ms` milliseconds, or rejected with the signal's reason once it aborts (the followers' backoff). */
export function sleep(ms, signal) {
    return new Promise((resolve, reject) => {
        if (signal.aborted) {
            reject(signal.reason);
            return;
        }
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
