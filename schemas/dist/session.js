/**
 * Sessions: every reply of a conversation, followed over SSE with resume,
 * and answers posted back. The TypeScript side of wire.resume.Conversation,
 * wire.transports.chat (`waiting`, `confirmation`) and
 * wire.transports.client (`Follower`, `answer`), with the same behaviour.
 *
 * ```ts
 * const session = followSession("/sessions/s1/stream", { onEvent: (event, msg) => render(msg) });
 * await answer("/chat", { agentId: "a1", sessionId: "s1", input: userMsg("alice", "delete notes.txt") });
 * const msg = await session.waitFor((c) => (c.last && waiting(c.last).state === "parked" ? c.last : undefined));
 * await answer("/chat", { agentId: "a1", sessionId: "s1", input: confirmation(msg, true) });
 * ```
 *
 * A session's log (wire.stores) holds its replies one after another; a reply
 * parks at REQUIRE_USER_CONFIRM / REQUIRE_EXTERNAL_EXECUTION, the client's
 * answer goes into the log, and the reply goes on with the same reply id.
 * The follower builds each reply's Msg from its REPLY_START (`beginReply`,
 * as wire's stores do), replaces a reply's Msg with a checkpoint of it, and
 * drops everything at a `wire.restart` (the server's log is not the one the
 * position came from; its SSE frame has an empty `id:`, so the next
 * connection starts over). A follower that resumed and one that never
 * dropped end with the same Msg JSON (`JSON.stringify`) as wire's Python.
 */
import { canonical } from "./canonical.js";
import { sleep } from "./client.js";
import { CHECKPOINT, readCheckpoint } from "./checkpoint.js";
import { FrameError, RemoteProtocolError, WireError } from "./errors.js";
import { UnknownEvent } from "./events.js";
import { appendEvent } from "./reducer.js";
import { SSEDecoder } from "./sse.js";
/** The name of a restart event (wire.resume.RESTART): what the reader built before is not this log's. */
export const RESTART = "wire.restart";
/**
 * The Msg a reply begins as, from its REPLY_START: its id, name, role and
 * time (wire.resume.begin_reply). Stores and readers both begin replies this
 * way, so a reader that resumed from a checkpoint and one that never dropped
 * hold the same JSON.
 */
export function beginReply(event) {
    const msg = {
        name: event.name,
        content: [],
        role: event.role ?? "assistant",
        id: event.reply_id,
        created_at: event.created_at,
    };
    return canonical(msg, "msg");
}
/**
 * What a reader of a session keeps (wire.resume.Conversation): the Msg of
 * every reply, in the order the replies began. A REPLY_START of a new reply
 * begins its Msg; a checkpoint replaces the Msg of its reply (or adds it); a
 * restart drops everything; other events go to their reply's Msg (CUSTOM
 * events of no reply are kept in `custom`, in order; unknown events are
 * skipped).
 */
export class Conversation {
    /** Every reply's Msg by reply id, in the order the replies began. */
    replies = new Map();
    /** The CUSTOM events that are neither checkpoints nor restarts, in order. */
    custom = [];
    constructor(...msgs) {
        for (const msg of msgs)
            this.replies.set(msg.id ?? "", msg);
    }
    /** The Msg of the reply that began last. */
    get last() {
        let last;
        for (const msg of this.replies.values())
            last = msg;
        return last;
    }
    /** Apply one event; the Msg it went to (a checkpoint: the new Msg), if any. */
    apply(event) {
        if (event.type === "CUSTOM" && "name" in event) {
            if (event.name === CHECKPOINT) {
                const msg = readCheckpoint(event);
                this.replies.set(msg.id ?? "", msg);
                return msg;
            }
            if (event.name === RESTART) {
                this.replies.clear();
                this.custom.length = 0;
            }
            else {
                this.custom.push(event);
            }
            return undefined;
        }
        const replyId = event.reply_id;
        if (event instanceof UnknownEvent || typeof replyId !== "string")
            return undefined;
        let msg = this.replies.get(replyId);
        if (msg === undefined) {
            msg = event.type === "REPLY_START"
                ? beginReply(event)
                : { name: "", content: [], role: "assistant", id: replyId }; // joined without its start
            this.replies.set(replyId, msg);
        }
        appendEvent(msg, event);
        return msg;
    }
    /** `apply` each event in order. */
    extend(events) {
        for (const event of events)
            this.apply(event);
    }
}
/** What the reply `msg` waits for, as agentscope's agent reads its own state. */
export function waiting(msg) {
    const replyId = msg.id ?? "";
    if (msg.finished_at != null)
        return { replyId, state: "ended", confirm: [], external: [] };
    const results = new Set(msg.content.filter((block) => block.type === "tool_result").map((block) => block.id));
    const confirm = [];
    const external = [];
    for (const block of msg.content) {
        if (block.type !== "tool_call")
            continue;
        if (block.state === "asking")
            confirm.push(block);
        else if (block.state === "submitted" && !results.has(block.id))
            external.push(block);
    }
    return { replyId, state: confirm.length || external.length ? "parked" : "running", confirm, external };
}
/**
 * The answer to every call of `msg` that awaits a confirmation: all allowed
 * or all denied, or each by its id (`{ "call-1": true }`).
 */
export function confirmation(msg, confirmed) {
    const results = waiting(msg).confirm.map((call) => {
        const allowed = typeof confirmed === "boolean" ? confirmed : confirmed[call.id];
        if (typeof allowed !== "boolean")
            throw new TypeError(`no decision for tool call ${JSON.stringify(call.id)}`);
        return { confirmed: allowed, tool_call: call };
    });
    return { type: "USER_CONFIRM_RESULT", reply_id: msg.id ?? "", confirm_results: results };
}
/** A user's message: a new turn's input. */
export function userMsg(name, text) {
    return { name, content: [{ type: "text", text, id: randomId() }], role: "user", id: randomId(),
        created_at: new Date().toISOString() };
}
function randomId() {
    const bytes = new Uint8Array(12);
    globalThis.crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
// -- HTTP --------------------------------------------------------------------------------------
/** Statuses a follower retries (a replica restarting behind its balancer); any other but 200 is thrown at once. */
export const RETRYABLE = new Set([408, 425, 429, 502, 503, 504]);
const SNIPPET = 300;
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
function mediaType(response) {
    return (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
}
/** What came instead, with the first bytes of its body (never all of a large page). */
async function refusal(response, method, url, expected) {
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
/**
 * Follow the session whose SSE stream is at `url` (wire.transports.http's
 * `sse_endpoint`, any store and replica, or agentscope's own
 * `/sessions/{id}/stream`) until the server ends it, reconnecting from the
 * last entry id read when the connection drops. Every response is checked
 * before a byte of it is decoded: a status other than 200, or a body that
 * is not `text/event-stream`, is an `HTTPStatusError` naming both, at once
 * for a client error and after the retries for 408, 425, 429, 502, 503, 504.
 */
export function followSession(url, options = {}) {
    const stop = new AbortController();
    const outer = options.signal;
    const onAbort = () => stop.abort(outer?.reason);
    if (outer?.aborted)
        onAbort();
    else
        outer?.addEventListener("abort", onAbort, { once: true });
    const state = {
        conversation: options.conversation ?? new Conversation(),
        lastEventId: options.lastEventId ?? "",
        connections: 0,
        closed: false,
        waiters: new Set(),
    };
    let ended;
    const done = follow(String(url), options, state, stop.signal).then((conversation) => {
        ended = { error: new WireError(`${String(url)}: the session ended before what was waited for`) };
        for (const waiter of state.waiters)
            waiter.reject(ended.error);
        return conversation;
    }, (error) => {
        ended = { error };
        for (const waiter of state.waiters)
            waiter.reject(error);
        throw error;
    }).finally(() => outer?.removeEventListener("abort", onAbort));
    done.catch(() => undefined); // a caller that only uses waitFor still sees the error there
    function waitFor(check) {
        const now = check(state.conversation);
        if (now !== undefined && now !== false)
            return Promise.resolve(now);
        if (ended !== undefined)
            return Promise.reject(ended.error);
        return new Promise((resolve, reject) => {
            state.waiters.add({ check, resolve: resolve, reject });
        });
    }
    return {
        get conversation() { return state.conversation; },
        get lastEventId() { return state.lastEventId; },
        get connections() { return state.connections; },
        get closed() { return state.closed; },
        done,
        waitFor,
        settled: (replyId) => waitFor((c) => {
            const msg = c.replies.get(replyId);
            return msg !== undefined && waiting(msg).state !== "running" ? msg : undefined;
        }),
        close: () => stop.abort(new DOMException("followSession closed", "AbortError")),
    };
}
async function follow(url, options, state, signal) {
    const initial = options.backoff?.initialMs ?? 250;
    const max = options.backoff?.maxMs ?? 8_000;
    const retries = options.backoff?.retries ?? 5;
    let retryMs;
    let failures = 0;
    for (;;) {
        signal.throwIfAborted();
        const startId = state.lastEventId;
        const decoder = new SSEDecoder({
            lastEventId: state.lastEventId,
            unknown: options.unknown ?? "keep",
        });
        const outcome = await connect(url, options, state, signal, decoder);
        if (outcome === "closed") {
            state.closed = true;
            return state.conversation;
        }
        retryMs = decoder.retry ?? retryMs;
        // Progress is a new event id, not just events: a server that answers every
        // reconnection with the same checkpoint and nothing after it is failing.
        failures = outcome.applied > 0 && state.lastEventId !== startId ? 1 : failures + 1;
        if (failures > retries)
            throw new ConnectionFailed(url, failures, outcome.reason);
        const base = Math.min(max, (retryMs ?? initial) * 2 ** (failures - 1));
        const delay = base / 2 + Math.random() * (base / 2);
        options.onReconnect?.(failures, delay, outcome.reason);
        await sleep(delay, signal);
    }
}
/** The request of the next connection: the position as a header, or as `after` among the URL's own query parameters. */
function request(url, options, state) {
    const headers = new Headers(options.headers);
    headers.set("Accept", "text/event-stream");
    if (!state.lastEventId)
        return [url, headers];
    if (options.cursor === "query") {
        const parsed = new URL(url, globalThis.location?.href);
        parsed.searchParams.set("after", state.lastEventId);
        return [parsed.href, headers];
    }
    headers.set("Last-Event-ID", state.lastEventId);
    return [url, headers];
}
/**
 * One connection: the events it brings, applied. Ends with the stream's end
 * (the session is closed), or with the reason to reconnect: a network failure
 * (fetch's TypeError, caught only around fetch and read, so that a TypeError
 * in a callback is not mistaken for one), a retryable status, or a body cut
 * inside a frame. Anything else rejects: a callback's error, a refused
 * request, a frame that is not an event.
 */
async function connect(url, options, state, signal, decoder) {
    let applied = 0;
    const apply = (events) => {
        for (const event of events) {
            signal.throwIfAborted(); // no callback after close(), even for the rest of a chunk
            applied++;
            const msg = state.conversation.apply(event);
            options.onEvent?.(event, msg, state.conversation);
        }
        state.lastEventId = decoder.lastEventId; // a wire.restart's empty id: the next connection starts over
        for (const waiter of state.waiters) {
            const value = waiter.check(state.conversation);
            if (value !== undefined && value !== false) {
                state.waiters.delete(waiter);
                waiter.resolve(value);
            }
        }
    };
    const retry = (reason) => ({ applied, reason });
    const network = (error) => {
        if (signal.aborted)
            throw signal.reason;
        if (!(error instanceof TypeError))
            throw error;
        return retry(error);
    };
    const [target, headers] = request(url, options, state);
    state.connections++;
    let response;
    try {
        response = await (options.fetch ?? globalThis.fetch)(target, { headers, signal, cache: "no-store" });
    }
    catch (error) {
        return network(error);
    }
    if (response.status !== 200 || mediaType(response) !== "text/event-stream" || response.body === null) {
        const error = await refusal(response, "GET", target, "200 with text/event-stream");
        if (RETRYABLE.has(response.status))
            return retry(error);
        throw error;
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
            apply(decoder.feed(chunk.value));
        }
        try {
            apply(decoder.close());
        }
        catch (error) {
            // The body ended inside a frame, as a proxy cuts it: a dropped connection.
            if (!(error instanceof FrameError) || signal.aborted)
                throw error;
            apply(error.events);
            return retry(error);
        }
        return "closed";
    }
    catch (error) {
        if (error instanceof RemoteProtocolError && !signal.aborted) {
            apply(error.events); // the events before the problem still count
        }
        throw error;
    }
    finally {
        void reader.cancel().catch(() => undefined);
    }
}
/**
 * Post agentscope's chat body `{"agent_id", "session_id", "input"}` to `url`
 * (wire.transports.http's `answer_endpoint`, or agentscope's own `/chat/`).
 * Not retried: a post whose response was lost may have been taken (posting
 * the same answer again is refused with 409). A status other than 2xx, or a
 * response that is not a JSON object, throws `HTTPStatusError` with the
 * server's reason; a failed connection `ConnectionFailed`.
 */
export async function answer(url, options) {
    const target = String(url);
    const body = JSON.stringify({ agent_id: options.agentId, session_id: options.sessionId, input: options.input });
    const headers = new Headers(options.headers);
    headers.set("Content-Type", "application/json");
    const init = { method: "POST", headers, body };
    if (options.signal !== undefined)
        init.signal = options.signal;
    let response;
    try {
        response = await (options.fetch ?? globalThis.fetch)(target, init);
    }
    catch (error) {
        if (!(error instanceof TypeError))
            throw error;
        throw new ConnectionFailed(target, 1, error);
    }
    if (response.status < 200 || response.status >= 300 || mediaType(response) !== "application/json") {
        throw await refusal(response, "POST", target, "2xx with application/json");
    }
    const text = await response.text();
    let fields;
    try {
        fields = JSON.parse(text);
    }
    catch {
        fields = undefined;
    }
    if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
        throw new HTTPStatusError("POST", target, response.status, response.headers.get("content-type") ?? "", text.slice(0, SNIPPET), "a JSON object");
    }
    const { session_id: sessionId, entry_id: entryId } = fields;
    return {
        status: response.status,
        sessionId: typeof sessionId === "string" ? sessionId : options.sessionId,
        entryId: typeof entryId === "string" ? entryId : null,
    };
}
