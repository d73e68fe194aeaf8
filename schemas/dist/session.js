/**
 * Sessions over HTTP: every reply of a conversation followed over SSE with
 * resume, and answers posted back. The TypeScript side of
 * wire.transports.client (`Follower`, `answer`). What a session is (its
 * replies, what a reply waits for, what it takes) is conversation.ts's, the
 * reconnecting follow.ts's (the loop `followReply` shares).
 *
 * ```ts
 * const session = followSession("/sessions/s1/stream", { onEvent: (event, msg) => render(msg) });
 * await answer("/chat", { agentId: "a1", sessionId: "s1", input: userMsg("alice", "delete notes.txt") });
 * const msg = await session.waitFor((c) => (c.last && waiting(c.last).state === "parked" ? c.last : undefined));
 * await answer("/chat", { agentId: "a1", sessionId: "s1", input: confirmation(msg, true) });
 * ```
 *
 * A follower that resumed and one that never dropped end with the same Msg
 * JSON (`JSON.stringify`) as wire's Python.
 */
import { Conversation } from "./conversation.js";
import { RemoteProtocolError, WireError } from "./errors.js";
import { ConnectionFailed, follow, HTTPStatusError, mediaType, SNIPPET, stopper, unexpected, } from "./follow.js";
/**
 * Follow the session whose SSE stream is at `url` (wire.transports.http's
 * `sse_endpoint`, any store and replica, or agentscope's own
 * `/sessions/{id}/stream`) until the server ends it (its body ends, or a
 * reconnection gets 204), reconnecting from the last entry id read when the
 * connection drops, as follow.ts says: a status other than 200, or a body
 * that is not `text/event-stream`, is an `HTTPStatusError` naming both, at
 * once for a client error and after the retries for `RETRYABLE` ones.
 */
export function followSession(url, options = {}) {
    const { stop, release } = stopper(options.signal);
    const state = {
        conversation: options.conversation ?? new Conversation(),
        lastEventId: options.lastEventId ?? "",
        connections: 0,
        closed: false,
        waiters: new Set(),
    };
    let msg; // what the last event went to, for onEvent
    const reader = {
        apply(event) {
            const changed = state.conversation.apply([event]).replies[0];
            msg = changed === undefined ? undefined : state.conversation.replies.get(changed);
            return false;
        },
        handed(event) {
            options.onEvent?.(event, msg, state.conversation);
        },
        applied() {
            for (const waiter of state.waiters) {
                const value = waiter.check(state.conversation);
                if (value !== undefined && value !== false) {
                    state.waiters.delete(waiter);
                    waiter.resolve(value);
                }
            }
        },
        closed() {
            state.closed = true;
        },
    };
    let ended;
    const done = follow(String(url), options, options.unknown ?? "keep", reader, state, stop.signal).then(() => {
        ended = { error: new WireError(`${String(url)}: the session ended before what was waited for`) };
        for (const waiter of state.waiters)
            waiter.reject(ended.error);
        return state.conversation;
    }, (error) => {
        ended = { error };
        for (const waiter of state.waiters)
            waiter.reject(error);
        throw error;
    }).finally(release);
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
            return c.finished({ replyId }) ? c.replies.get(replyId) : undefined;
        }),
        close: () => stop.abort(new DOMException("followSession closed", "AbortError")),
    };
}
/** The longest response body `answer` reads by default, 1 MiB: the answer endpoint's response is a small JSON object. */
export const MAX_ANSWER_BYTES = 1 << 20;
/**
 * A response body longer than the client reads (`limit` bytes): what a
 * misrouted request gets from a file server, say. Nothing past the limit is
 * read (wire.transports.client.ResponseTooLarge).
 */
export class ResponseTooLarge extends RemoteProtocolError {
    method;
    url;
    limit;
    name = "ResponseTooLarge";
    constructor(method, url, limit) {
        super(`${method} ${url}: the response body is longer than the limit of ${limit} bytes (maxBytes)`);
        this.method = method;
        this.url = url;
        this.limit = limit;
    }
}
/**
 * The body as text, or `ResponseTooLarge` as soon as it is longer than
 * `limit` bytes (a Content-Length that says so is believed before a byte is
 * read); the rest of a body too long is never read.
 */
async function bounded(response, method, url, limit) {
    const length = response.headers.get("content-length")?.trim() ?? "";
    if (/^\d+$/.test(length) && Number(length) > limit) {
        void response.body?.cancel().catch(() => undefined);
        throw new ResponseTooLarge(method, url, limit);
    }
    if (response.body === null)
        return "";
    const reader = response.body.getReader();
    const chunks = [];
    let size = 0;
    try {
        for (;;) {
            const { done, value } = await reader.read();
            if (done)
                break;
            size += value.length;
            if (size > limit)
                throw new ResponseTooLarge(method, url, limit);
            chunks.push(value);
        }
    }
    finally {
        void reader.cancel().catch(() => undefined);
    }
    const body = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
        body.set(chunk, at);
        at += chunk.length;
    }
    return new TextDecoder().decode(body);
}
/**
 * Post agentscope's chat body `{"agent_id", "session_id", "input"}` to `url`
 * (wire.transports.http's `answer_endpoint`, or agentscope's own `/chat/`).
 * Not retried: a post whose response was lost may have been taken (posting
 * the same answer again is refused with 409). A status other than 2xx, or a
 * response that is not a JSON object, throws `HTTPStatusError` with the
 * server's reason; a body longer than `maxBytes` `ResponseTooLarge` (it is
 * never held whole); a failed connection `ConnectionFailed`.
 */
export async function answer(url, options) {
    const limit = options.maxBytes ?? MAX_ANSWER_BYTES;
    if (!(limit >= 1))
        throw new RangeError(`maxBytes must be positive, not ${limit}`);
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
        throw await unexpected(response, "POST", target, "2xx with application/json");
    }
    let text;
    try {
        text = await bounded(response, "POST", target, limit);
    }
    catch (error) {
        if (!(error instanceof TypeError))
            throw error;
        throw new ConnectionFailed(target, 1, error); // the connection dropped in the body
    }
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
