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
import type { Msg } from "../wire.js";
import { UnknownEvent, type UnknownPolicy, type WireEvent } from "./events.js";
/** How long to wait before each reconnection: `initialMs`, doubled per failed attempt up to `maxMs`, jittered. */
export interface Backoff {
    /** The first wait in milliseconds (default 250), unless the server sent an SSE `retry` field. */
    initialMs?: number;
    /** The longest wait (default 10,000). */
    maxMs?: number;
    /** Attempts in a row that bring no new event before giving up (default 8); an attempt that brings one resets the count. */
    maxAttempts?: number;
}
export interface FollowOptions {
    /** The Msg to apply the events to. By default one is made from the REPLY_START event (or taken from a checkpoint). */
    msg?: Msg;
    /** Resume from this id (kept from an earlier page, say): the first request already sends `Last-Event-ID`. */
    lastEventId?: string;
    /** Called after each event has been applied (a checkpoint: after it replaced the Msg), with the Msg now (a `wire.restart`: an empty Msg). */
    onEvent?: (event: WireEvent | UnknownEvent, msg: Msg) => void;
    /** Called once, with the finished Msg, when REPLY_END has been applied. */
    onComplete?: (msg: Msg) => void;
    /** Called before each reconnection, with the attempt (1 for the first in a row), the wait and why. */
    onReconnect?: (attempt: number, delayMs: number, reason: unknown) => void;
    /** Reconnection waits. */
    backoff?: Backoff;
    /** Extra request headers (authorization, say). */
    headers?: Record<string, string>;
    /** Stops following: `done` rejects with the signal's reason. */
    signal?: AbortSignal;
    /** The fetch to use (default: the global one). */
    fetch?: typeof fetch;
    /** What an event of an unknown type does (default "skip": a newer server's events do not stop an older page). */
    unknown?: UnknownPolicy;
}
/** A reply being followed. */
export interface ReplyFollower {
    /** The Msg so far (undefined before the first event); a checkpoint replaces it with a new object. */
    readonly msg: Msg | undefined;
    /** The id of the last event applied: keep it to resume after a page reload. */
    readonly lastEventId: string;
    /** Connections made so far. */
    readonly connections: number;
    /** Resolves with the finished Msg after REPLY_END; rejects if the server refuses the stream, attempts run out or `close()` is called. */
    readonly done: Promise<Msg>;
    /** Stop following. */
    close(): void;
}
/** The server answered a request with a status that retrying cannot fix (a 404, say). */
export declare class ReplyRequestError extends Error {
    readonly status: number;
    name: string;
    constructor(status: number, message: string);
}
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
export declare function followReply(url: string | URL, options?: FollowOptions): ReplyFollower;
/** ``ms`` milliseconds, or rejected with the signal's reason once it aborts (followReply's and followSession's backoff). */
export declare function sleep(ms: number, signal: AbortSignal): Promise<void>;
