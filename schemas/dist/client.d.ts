/**
 * A resuming client for one reply's SSE stream, over `fetch` (browsers and
 * Node 20+): wire's `sse_endpoint` (wire.transports.http) and any server that speaks
 * its protocol.
 *
 * It applies each event to the Msg with `appendEvent`, and when the
 * connection drops before REPLY_END it connects again with `Last-Event-ID`
 * (follow.ts, the loop `followSession` shares: its retries, statuses and
 * errors). wire's server answers with a checkpoint (the Msg built so far,
 * `readCheckpoint`) that replaces the client's Msg, then the events after
 * it; a server that replays the events after that id instead works too,
 * since the client has applied every event its decoder returned. Either way
 * the Msg ends as the uninterrupted one. A `wire.restart` (the kept id is of
 * a log that is gone) drops the Msg: the reply is read again from its
 * REPLY_START.
 */
import type { Msg } from "../wire.js";
import type { UnknownEvent, UnknownPolicy, WireEvent } from "./events.js";
import { type ConnectionOptions, HTTPStatusError } from "./follow.js";
export interface FollowOptions extends ConnectionOptions {
    /** The Msg to apply the events to. By default one is made from the REPLY_START event (or taken from a checkpoint). */
    msg?: Msg;
    /** Called after each event has been applied (a checkpoint: after it replaced the Msg), with the Msg now (a `wire.restart`: an empty Msg). */
    onEvent?: (event: WireEvent | UnknownEvent, msg: Msg) => void;
    /** Called once, with the finished Msg, when REPLY_END has been applied. */
    onComplete?: (msg: Msg) => void;
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
    /**
     * Resolves with the finished Msg after REPLY_END; rejects with
     * `HTTPStatusError` (a 404, an HTML page, a 204), a `RemoteProtocolError`
     * the stream had, `ConnectionFailed` once the retries run out, or the
     * abort reason after `close()`.
     */
    readonly done: Promise<Msg>;
    /** Stop following. */
    close(): void;
}
/** The old name of `HTTPStatusError`, which `followReply` now throws as `followSession` does. */
export declare const ReplyRequestError: typeof HTTPStatusError;
export type ReplyRequestError = HTTPStatusError;
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
