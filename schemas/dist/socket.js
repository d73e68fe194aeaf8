/**
 * A session over one WebSocket: the TypeScript client of
 * wire.transports.ws (whose docstring is the protocol), as
 * wire.transports.ws_client is the Python one. On the browser's `WebSocket`,
 * or in Node on the `ws` package's (Node 20 has no global one), passed as
 * the `WebSocket` option.
 *
 * ```ts
 * const session = connectSession("/sessions/s1/socket", { agentId: "a1", sessionId: "s1" });
 * await session.send(userMsg("alice", "Delete notes.txt"));
 * const msg = (await session.run({ turn: true })).last!;  // up to the end or park of the reply under way
 * if (waiting(msg).confirm.length) {
 *   await session.send(confirmation(msg, true));
 *   await session.run({ turn: true });                    // the answer, then the rest of the reply
 * }
 * session.close();
 * ```
 *
 * It keeps what `followSession` keeps, by the same rules (conversation.ts):
 * every reply's Msg, the id of the last entry read, and the end of a turn:
 * `run({ turn: true })` resolves once the latest reply, of which there was
 * news since the previous `run` resolved, has ended or parked, as
 * `Follower.run(turn=True)` returns. When the socket drops it connects again
 * and follows from the last entry id, with follow.ts's budget: a backoff of
 * 250 ms doubled up to 8 s, jittered, `ConnectionFailed` after `retries`
 * failed attempts in a row, and a connection that brings a new entry id (or
 * a result) starts the count over. A socket silent for `readTimeoutMs` (the
 * server pings every 15 s) counts as dropped.
 *
 * Errors are the HTTP clients': a refused socket (closed with 1008 and a
 * status, or, with `ws`, a handshake answered with a status) is an
 * `HTTPStatusError`, thrown at once for a client error and after the retries
 * for `RETRYABLE` ones; a refused input rejects its `send` with
 * `InputRefused` (the result's status: 409, 400, ...). An input is never sent
 * twice: one whose socket dropped before its result came may have been
 * taken, and rejects with `ConnectionFailed` (the same answer sent again is
 * refused with 409). A close for a frame the server could not read is a
 * `SocketClosed`; a frame from the server that is not the protocol's, or an
 * event that is not one, a `RemoteProtocolError`.
 */
import { Conversation } from "./conversation.js";
import { DecodeError, LocalProtocolError, RemoteProtocolError, WireError } from "./errors.js";
import { checkEvent, UnknownEvent } from "./events.js";
import { Attempts, ConnectionFailed, HTTPStatusError, RETRYABLE, sleep, stopper, } from "./follow.js";
import { refusedNumber } from "./streaming.js";
/** The subprotocol of each format (wire.transports.ws.PROTOCOLS). */
export const SOCKET_PROTOCOLS = { json: "wire.v1.json", msgpack: "wire.v1.msgpack" };
/**
 * Closes after which the client connects again: a normal close it did not
 * ask for (a server's restart may send one), going away, a lost connection,
 * the server's error (1011 is a store that failed), a restart, try again
 * later (as wire.transports.ws_client).
 */
const RETRY_CLOSES = new Set([1000, 1001, 1006, 1011, 1012, 1013, 1014]);
/**
 * The server's result for an input was not 200: `status` (409 for an input
 * the session cannot take now, 400, 403, 413, 429, 503, ...) and its reason
 * as `text` (wire.transports.ws_client.InputRefused).
 */
export class InputRefused extends HTTPStatusError {
    requestId;
    name = "InputRefused";
    constructor(url, requestId, status, detail) {
        super("INPUT", url, status, "", detail, "200");
        this.requestId = requestId;
        this.message = `input ${requestId} on ${url} was refused with ${status}: ${detail}`;
    }
}
/**
 * The server closed the socket because of a frame this client sent (1002,
 * 1003, 1007, 1009: `code`) or with a code the client does not know
 * (wire.transports.ws_client.SocketClosed).
 */
export class SocketClosed extends RemoteProtocolError {
    url;
    code;
    name = "SocketClosed";
    constructor(url, code, reason) {
        super(`${url}: the server closed the socket with ${code}: ${reason || "no reason"}`);
        this.url = url;
        this.code = code;
    }
}
/**
 * Follow the session whose socket (wire.transports.ws's `session_socket`)
 * is at `url` (`ws://`, `wss://`, or, in a browser, a path or an http(s) URL
 * of the page's server), and send it inputs, as the module's docstring says.
 */
export function connectSession(url, options = {}) {
    return new Client(socketURL(url), options);
}
/** `url` as the WebSocket URL to open: http(s) becomes ws(s); a path is the page's. */
function socketURL(url) {
    let parsed;
    try {
        parsed = new URL(String(url), globalThis.location?.href);
    }
    catch {
        throw new TypeError(`${JSON.stringify(String(url).slice(0, 80))} is no WebSocket URL`);
    }
    const scheme = { "http:": "ws:", "https:": "wss:", "ws:": "ws:", "wss:": "wss:" }[parsed.protocol];
    if (scheme === undefined)
        throw new TypeError(`a socket's URL begins with ws:// or wss://, not ${parsed.protocol}`);
    parsed.protocol = scheme;
    return parsed.href;
}
const UTF8 = new TextEncoder();
const JSON_CODEC = {
    encode: (frame) => JSON.stringify(frame),
    decode(data) {
        if (typeof data !== "string")
            throw new RemoteProtocolError("a binary frame on wire.v1.json");
        let value;
        try {
            value = JSON.parse(data);
        }
        catch (error) {
            throw new DecodeError(`JSON is malformed: ${error.message}`);
        }
        const reason = refusedNumber(value, data);
        if (reason !== undefined)
            throw new DecodeError(reason);
        return value;
    },
    raw: (value) => UTF8.encode(JSON.stringify(value)),
};
/**
 * The MessagePack codec, imported when a client asks for it, so that a
 * bundle of a JSON client leaves `@msgpack/msgpack` out (msgpack.ts).
 */
async function msgpackCodec() {
    const { decodeMsgpack, encodeMsgpack } = await import("./msgpack.js");
    return {
        encode: encodeMsgpack,
        decode(data) {
            if (typeof data === "string")
                throw new RemoteProtocolError("a text frame on wire.v1.msgpack");
            return decodeMsgpack(data);
        },
        raw: encodeMsgpack,
    };
}
class Client {
    url;
    options;
    conversation;
    lastEventId;
    connections = 0;
    closed = false;
    done;
    stop;
    follows;
    unknown;
    codec;
    open;
    /** Sends waiting for a socket to be open. */
    opening = new Set();
    waiters = new Set();
    /** The replies with news since the last `run` resolved. */
    news = new Set();
    running = false;
    ids = 0;
    ended;
    endLog;
    constructor(url, options) {
        this.url = url;
        this.options = options;
        const Socket = options.WebSocket ?? globalThis.WebSocket;
        if (Socket === undefined) {
            throw new TypeError("no WebSocket class: pass the ws package's as the WebSocket option (Node 20 has none)");
        }
        const protocol = options.protocol ?? "json";
        if (!(protocol in SOCKET_PROTOCOLS))
            throw new TypeError(`protocol must be json or msgpack, not ${protocol}`);
        this.conversation = options.conversation ?? new Conversation();
        this.lastEventId = options.lastEventId ?? "";
        this.follows = options.follow ?? true;
        this.unknown = options.unknown ?? "keep";
        const { stop, release } = stopper(options.signal);
        this.stop = stop;
        const logEnded = new Promise((resolve) => {
            this.endLog = resolve;
        });
        const loop = this.loop(Socket, protocol).finally(release);
        loop.catch((error) => this.fail(error));
        this.done = Promise.race([logEnded, loop]).then(() => this.conversation);
        this.done.catch(() => undefined); // a caller that only sends or runs sees the error there
    }
    // -- the connections -------------------------------------------------------------------
    /** Connect, and connect again after each drop, until a close that no retry mends, the retries' end or `close()`. */
    async loop(Socket, protocol) {
        this.codec = protocol === "json" ? JSON_CODEC : await msgpackCodec();
        const attempts = new Attempts(this.url, this.options.backoff);
        for (;;) {
            this.stop.signal.throwIfAborted();
            const drop = await this.connect(Socket, SOCKET_PROTOCOLS[protocol]);
            const { attempt, delayMs } = attempts.failed(drop.reason, drop.progressed);
            this.options.onReconnect?.(attempt, delayMs, drop.reason);
            await sleep(delayMs, this.stop.signal);
        }
    }
    /**
     * One socket, from its handshake until it drops: resolves with why (to
     * connect again), rejects with what ends the client.
     */
    connect(Socket, wanted) {
        const startId = this.lastEventId;
        const signal = this.stop.signal;
        this.connections++;
        return new Promise((resolve, reject) => {
            let socket;
            try {
                const headers = this.options.headers;
                socket = headers === undefined ? new Socket(this.url, [wanted]) : new Socket(this.url, [wanted], { headers });
            }
            catch (error) {
                reject(error); // a URL the WebSocket class refuses: no retry mends it
                return;
            }
            socket.binaryType = "arraybuffer";
            const connection = { socket, pending: new Map() };
            let progressed = false;
            let error;
            let over = false;
            let timer;
            const wait = (ms, why) => {
                clearTimeout(timer);
                timer = setTimeout(() => end(new WireError(`${this.url}: ${why}`)), ms);
            };
            /** The end of this socket: `fatal` ends the client, anything else is a drop. */
            const end = (reason, fatal = false) => {
                if (over)
                    return;
                over = true;
                clearTimeout(timer);
                // The error listener stays: `ws` throws an error event that has no listener, and a
                // socket closed while it connects still sends one.
                for (const [type, listener] of listeners)
                    if (type !== "error")
                        socket.removeEventListener(type, listener);
                signal.removeEventListener("abort", onAbort);
                if (this.open === connection)
                    this.open = undefined;
                try {
                    socket.close(1000);
                }
                catch {
                    // closed already
                }
                const lost = fatal ? reason : new ConnectionFailed(this.url, 1, reason);
                for (const waiting of connection.pending.values())
                    waiting.reject(lost);
                connection.pending.clear();
                if (fatal)
                    reject(reason);
                else
                    resolve({ reason, progressed: progressed || this.lastEventId !== startId });
            };
            const onAbort = () => end(signal.reason, true);
            const listeners = [
                ["open", () => {
                        if (socket.protocol !== wanted) {
                            end(new RemoteProtocolError(`${this.url} speaks ${socket.protocol || "no subprotocol"}, not ${wanted}`), true);
                            return;
                        }
                        this.readTimeout(wait);
                        try {
                            if (this.follows)
                                socket.send(this.codec.encode({ type: "follow", after: this.lastEventId || null }));
                        }
                        catch (failure) {
                            end(failure);
                            return;
                        }
                        this.open = connection;
                        for (const waiter of this.opening)
                            waiter.go(connection);
                        this.opening.clear();
                    }],
                ["message", (event) => {
                        this.readTimeout(wait);
                        try {
                            if (this.frame(event.data, connection))
                                progressed = true;
                        }
                        catch (failure) {
                            end(failure, true);
                        }
                    }],
                ["error", (event) => {
                        error = event.message ?? error;
                    }],
                ["close", (event) => {
                        try {
                            end(this.whyClosed(event.code ?? 1006, event.reason ?? "", error));
                        }
                        catch (failure) {
                            end(failure, true);
                        }
                    }],
            ];
            for (const [type, listener] of listeners)
                socket.addEventListener(type, listener);
            signal.addEventListener("abort", onAbort, { once: true });
            if (signal.aborted)
                onAbort();
            else
                wait(this.options.openTimeoutMs ?? 10_000, "no handshake in time");
        });
    }
    readTimeout(wait) {
        const ms = this.options.readTimeoutMs ?? 60_000;
        wait(ms, `no frame for ${ms} ms`);
    }
    /**
     * Why the socket closed, when the client is to connect again; throws for a
     * close that no retry mends (wire.transports.ws_client's rules). `error`
     * is what the WebSocket class said before: `ws` names the status of a
     * handshake the server refused; a browser never does.
     */
    whyClosed(code, reason, error) {
        const handshake = /Unexpected server response: (\d{3})/.exec(error ?? "");
        if (handshake !== null) {
            const failure = new HTTPStatusError("GET", this.url, Number(handshake[1]), "", "", "101 Switching Protocols");
            if (RETRYABLE.has(failure.status))
                return failure;
            throw failure;
        }
        if (RETRY_CLOSES.has(code))
            return new WireError(`${this.url}: the socket closed with ${code}${reason ? `: ${reason}` : ""}${error ? ` (${error})` : ""}`);
        if (code === 1008) {
            const refusal = /^(\d{3}) (.*)$/s.exec(reason);
            // Not a refusal: the server dropped a client that lagged.
            if (refusal === null)
                return new WireError(`${this.url}: the socket closed with 1008: ${reason}`);
            const failure = new HTTPStatusError("GET", this.url, Number(refusal[1]), "", refusal[2], "an open socket");
            if (RETRYABLE.has(failure.status))
                return failure;
            throw failure;
        }
        throw new SocketClosed(this.url, code, reason);
    }
    // -- the frames ------------------------------------------------------------------------
    /**
     * File one frame from the server; true when it brought news (entries or
     * a result). A frame that is not the protocol's throws.
     */
    frame(data, connection) {
        const bytes = data instanceof ArrayBuffer ? new Uint8Array(data)
            : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : undefined;
        if (bytes === undefined && typeof data !== "string") {
            throw new RemoteProtocolError(`${this.url} sent a frame of neither text nor bytes`);
        }
        const frame = this.codec.decode(bytes ?? data);
        if (typeof frame !== "object" || frame === null || Array.isArray(frame) || frame instanceof Uint8Array) {
            throw new RemoteProtocolError(`${this.url} sent a frame that is not an object`);
        }
        const fields = frame;
        const type = fields["type"];
        if (typeof type !== "string")
            throw new RemoteProtocolError(`${this.url} sent a frame without a type`);
        if (type === "entries")
            return this.entries(fields["entries"]);
        if (type === "result")
            return this.result(fields, connection);
        if (type === "end") {
            this.closed = true;
            this.endLog();
            for (const waiter of this.waiters) {
                this.waiters.delete(waiter);
                if (waiter.atEnd !== undefined)
                    waiter.resolve(waiter.atEnd());
                else
                    waiter.reject(new WireError(`${this.url}: the session ended before what was waited for`));
            }
        }
        return false; // a ping, a pong, or a frame type of a later version: nothing to do
    }
    /** An entries frame: its events, checked all before any is applied, then applied in order. */
    entries(entries) {
        if (!Array.isArray(entries))
            throw new RemoteProtocolError(`${this.url} sent an entries frame without entries`);
        const events = [];
        let last;
        for (const entry of entries) {
            if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== "string") {
                throw new RemoteProtocolError(`${this.url} sent an entry that is not [entry id, event]`);
            }
            last = entry[0];
            const value = entry[1];
            const unknownType = checkEvent(value);
            if (unknownType === undefined)
                events.push(value);
            else if (this.unknown === "raise")
                throw new DecodeError(`unknown event type ${JSON.stringify(unknownType)}`);
            else if (this.unknown === "keep") {
                events.push(new UnknownEvent(unknownType, this.codec.raw(value), this.codec === JSON_CODEC ? "json" : "msgpack"));
            }
        }
        if (last === undefined)
            return false;
        for (const event of events) {
            this.stop.signal.throwIfAborted(); // no callback after close()
            // The session counts a reconnection's checkpoint of a reply this client holds as it is as no
            // news (wire.session.Session's rule), so that no turn ends on one.
            const changed = this.conversation.apply([event]).replies[0];
            const msg = changed === undefined ? undefined : this.conversation.replies.get(changed);
            if (changed !== undefined)
                this.news.add(changed);
            this.options.onEvent?.(event, msg, this.conversation);
        }
        const before = this.lastEventId;
        this.lastEventId = last; // a wire.restart's empty id: the next connection starts over
        for (const waiter of this.waiters) {
            const value = waiter.check();
            if (value !== undefined && value !== false) {
                this.waiters.delete(waiter);
                waiter.resolve(value);
            }
        }
        return last !== before; // the same entries again (a checkpoint on every reconnection) are no news
    }
    /** A result frame: settles the send waiting for it, if any on this socket; true if one was. */
    result(fields, connection) {
        const { request_id: requestId, status, detail, entry_id: entryId } = fields;
        if (typeof requestId !== "string" || !Number.isInteger(status) || typeof (detail ?? "") !== "string"
            || !(entryId == null || typeof entryId === "string")) {
            throw new RemoteProtocolError(`${this.url} sent a result frame whose fields are not the protocol's`);
        }
        const waiting = connection.pending.get(requestId);
        if (waiting === undefined)
            return false;
        connection.pending.delete(requestId);
        waiting.resolve({ status: status, detail: (detail ?? ""), entryId: entryId ?? null });
        return true;
    }
    /** The client is over: `error` goes to every waiter, send and `run`. */
    fail(error) {
        this.ended ??= { error };
        for (const waiter of this.waiters)
            waiter.reject(this.ended.error);
        this.waiters.clear();
        for (const waiter of this.opening)
            waiter.reject(this.ended.error);
        this.opening.clear();
    }
    // -- the API ---------------------------------------------------------------------------
    waitFor(check) {
        return this.wait(() => check(this.conversation), undefined);
    }
    /**
     * `check()`'s first value that is neither undefined nor false, checked now
     * and after each entries frame; at the log's end `atEnd()` (or a
     * rejection). `settled` runs when it settles, before the next frame is read.
     */
    wait(check, atEnd, settled) {
        return new Promise((resolve, reject) => {
            const waiter = {
                check,
                atEnd,
                resolve: (value) => {
                    settled?.();
                    resolve(value);
                },
                reject: (reason) => {
                    settled?.();
                    reject(reason);
                },
            };
            const now = check();
            if (now !== undefined && now !== false)
                waiter.resolve(now);
            else if (this.ended !== undefined)
                waiter.reject(this.ended.error);
            else if (this.closed && atEnd !== undefined)
                waiter.resolve(atEnd());
            else if (this.closed)
                waiter.reject(new WireError(`${this.url}: the session ended before what was waited for`));
            else
                this.waiters.add(waiter);
        });
    }
    settled(replyId) {
        return this.waitFor((c) => {
            return c.finished({ replyId }) ? c.replies.get(replyId) : undefined;
        });
    }
    run(options = {}) {
        if (!this.follows) {
            return Promise.reject(new LocalProtocolError("this socket does not follow the session (follow: false)"));
        }
        if (this.running) {
            return Promise.reject(new LocalProtocolError("run() while another run() is under way: one reader at a time"));
        }
        this.running = true;
        const over = () => (this.conversation.finished(options, this.news) ? this.conversation
            : undefined);
        // The news is this run's from here on; what comes after it is the next run's, even a frame
        // read in the same tick as the one that ended this run.
        const settled = () => {
            this.running = false;
            this.news = new Set();
        };
        return this.wait(over, () => this.conversation, settled);
    }
    send(input, options = {}) {
        const agentId = options.agentId ?? this.options.agentId;
        const sessionId = options.sessionId ?? this.options.sessionId;
        if (agentId === undefined || sessionId === undefined) {
            return Promise.reject(new LocalProtocolError("send() needs an agentId and a sessionId (connectSession's options or send's)"));
        }
        if (this.ended !== undefined)
            return Promise.reject(this.ended.error);
        const requestId = String(++this.ids);
        const timeoutMs = options.timeoutMs ?? 30_000;
        return new Promise((resolve, reject) => {
            let sentOn;
            const opening = { go, reject: settle(reject) };
            const timer = setTimeout(() => {
                sentOn?.pending.delete(requestId);
                this.opening.delete(opening);
                reject(new ConnectionFailed(this.url, 1, new WireError(`no result for input ${requestId} within ${timeoutMs} ms`)));
            }, timeoutMs);
            function settle(then) {
                return (value) => {
                    clearTimeout(timer);
                    then(value);
                };
            }
            const url = this.url;
            const codec = () => this.codec; // loaded before any socket opens
            function go(connection) {
                sentOn = connection;
                connection.pending.set(requestId, {
                    resolve: settle(({ status, detail, entryId }) => {
                        if (status === 200)
                            resolve({ status, sessionId: sessionId, entryId });
                        else
                            reject(new InputRefused(url, requestId, status, detail));
                    }),
                    reject: settle(reject),
                });
                try {
                    connection.socket.send(codec().encode({
                        type: "input", request_id: requestId, body: { agent_id: agentId, session_id: sessionId, input },
                    }));
                }
                catch (error) {
                    connection.pending.delete(requestId);
                    settle(reject)(new ConnectionFailed(url, 1, error));
                }
            }
            if (this.open !== undefined)
                go(this.open);
            else
                this.opening.add(opening);
        });
    }
    close() {
        this.stop.abort(new DOMException("connectSession closed", "AbortError"));
    }
}
