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
import type { Msg } from "../wire.js";
import { type ChatInput, Conversation } from "./conversation.js";
import { RemoteProtocolError } from "./errors.js";
import { UnknownEvent, type UnknownPolicy, type WireEvent } from "./events.js";
import { type Backoff, HTTPStatusError } from "./follow.js";
import type { Answered, SessionFollower } from "./session.js";
/** The subprotocol of each format (wire.transports.ws.PROTOCOLS). */
export declare const SOCKET_PROTOCOLS: {
    readonly json: "wire.v1.json";
    readonly msgpack: "wire.v1.msgpack";
};
/** What the client uses of a WebSocket: the browser's, or `ws`'s in Node. */
export interface SocketLike {
    readonly protocol: string;
    binaryType: string;
    send(data: string | Uint8Array<ArrayBuffer>): void;
    close(code?: number, reason?: string): void;
    addEventListener(type: "open" | "message" | "close" | "error", listener: (event: SocketEvent) => void): void;
    removeEventListener(type: "open" | "message" | "close" | "error", listener: (event: SocketEvent) => void): void;
}
/** The fields of the open, message, close and error events the client reads. */
export interface SocketEvent {
    readonly data?: unknown;
    readonly code?: number;
    readonly reason?: string;
    readonly message?: string;
}
/**
 * A WebSocket class: the browser's `WebSocket`, or `ws`'s (which takes
 * `{ headers }` as its third argument; a browser's ignores it).
 */
export type SocketConstructor = new (url: string, protocols: string[], options?: {
    headers: Record<string, string>;
}) => SocketLike;
export interface SocketOptions {
    /** The agent and session of every input `send` sends (each may be given to `send` instead). */
    agentId?: string;
    sessionId?: string;
    /** JSON text frames (the default) or MessagePack binary frames: bytes travel as `bin`, `Uint8Array`s here. */
    protocol?: "json" | "msgpack";
    /** Read the session (a follow frame on every connection; the default); false for a socket that only sends. */
    follow?: boolean;
    /** What the reader has so far (a new Conversation by default); with `lastEventId`, the id of the last entry it covers. */
    conversation?: Conversation;
    lastEventId?: string;
    /** Called after each event has been applied, with the Msg it went to (a checkpoint: the new Msg) and the conversation. */
    onEvent?: (event: WireEvent | UnknownEvent, msg: Msg | undefined, conversation: Conversation) => void;
    /** Called before each reconnection, with the attempt (1 for the first in a row), the wait and why. */
    onReconnect?: (attempt: number, delayMs: number, reason: unknown) => void;
    /** Reconnection waits, follow.ts's. */
    backoff?: Backoff;
    /**
     * Handshake headers (`Authorization`, `X-User-ID`), for a WebSocket class
     * that sends them (`ws`). A browser cannot: there a token goes in a cookie
     * or the URL's query string.
     */
    headers?: Record<string, string>;
    /** The WebSocket class (default: the global one, a browser's). */
    WebSocket?: SocketConstructor;
    /** Stops the client, as `close()` does. */
    signal?: AbortSignal;
    /** What an event of an unknown type does (default "keep": kept out of the Msgs, and its id still counts). */
    unknown?: UnknownPolicy;
    /** The longest wait for the handshake, in ms (default 10,000). */
    openTimeoutMs?: number;
    /** A socket that brings no frame for this long (ms, default 60,000) counts as dropped. */
    readTimeoutMs?: number;
}
export interface SendOptions {
    agentId?: string;
    sessionId?: string;
    /** The longest wait for the result, in ms (default 30,000): then `ConnectionFailed`. */
    timeoutMs?: number;
}
/** A session over one WebSocket: a `SessionFollower` that also sends. */
export interface SessionSocket extends SessionFollower {
    /**
     * Resolves with the conversation once the log is closed and read to its
     * end; or, with `replyId`, once that reply has ended or parked; or, with
     * `turn`, once the latest reply has, after news of it since the previous
     * `run` resolved (or since the client began). Rejects if following stops.
     * One `run` at a time.
     */
    run(options?: {
        turn?: boolean;
        replyId?: string;
    }): Promise<Conversation>;
    /**
     * Send agentscope's chat body `{"agent_id", "session_id", "input"}` (a
     * new turn, the answer to a parked reply, an interrupt) and resolve with
     * its result, `{ status, sessionId, entryId }` (the input's entry in the
     * log), or reject with `InputRefused`. Waits for the socket to be open.
     * Never sent twice: a socket lost before the result rejects with
     * `ConnectionFailed`, as does no result within `timeoutMs`.
     */
    send(input: ChatInput, options?: SendOptions): Promise<Answered>;
}
/**
 * The server's result for an input was not 200: `status` (409 for an input
 * the session cannot take now, 400, 403, 413, 429, 503, ...) and its reason
 * as `text` (wire.transports.ws_client.InputRefused).
 */
export declare class InputRefused extends HTTPStatusError {
    readonly requestId: string;
    name: string;
    constructor(url: string, requestId: string, status: number, detail: string);
}
/**
 * The server closed the socket because of a frame this client sent (1002,
 * 1003, 1007, 1009: `code`) or with a code the client does not know
 * (wire.transports.ws_client.SocketClosed).
 */
export declare class SocketClosed extends RemoteProtocolError {
    readonly url: string;
    readonly code: number;
    name: string;
    constructor(url: string, code: number, reason: string);
}
/**
 * Follow the session whose socket (wire.transports.ws's `session_socket`)
 * is at `url` (`ws://`, `wss://`, or, in a browser, a path or an http(s) URL
 * of the page's server), and send it inputs, as the module's docstring says.
 */
export declare function connectSession(url: string | URL, options?: SocketOptions): SessionSocket;
