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
import type { Msg } from "../wire.js";
import { type ChatInput, Conversation } from "./conversation.js";
import { RemoteProtocolError } from "./errors.js";
import type { UnknownEvent, UnknownPolicy, WireEvent } from "./events.js";
import { type Backoff, type ConnectionOptions } from "./follow.js";
/** The old name of `Backoff`: both followers take the same waits. */
export type SessionBackoff = Backoff;
export interface SessionOptions extends ConnectionOptions {
    /** What the reader has so far (a new Conversation by default); with `lastEventId`, the id of the last entry it covers. */
    conversation?: Conversation;
    /**
     * Called after each event has been applied, with the Msg it changed (a checkpoint: the new Msg; `undefined` for
     * an event that changed no reply: a checkpoint of the Msg held already, a turn, a restart) and the conversation.
     */
    onEvent?: (event: WireEvent | UnknownEvent, msg: Msg | undefined, conversation: Conversation) => void;
    /** What an event of an unknown type does (default "keep": kept out of the Msgs, and its id still counts). */
    unknown?: UnknownPolicy;
}
/** A session being followed. */
export interface SessionFollower {
    /** Every reply's Msg so far. */
    readonly conversation: Conversation;
    /** The id of the last entry read: keep it (with the conversation) to resume after a page reload. */
    readonly lastEventId: string;
    /** Connections made so far. */
    readonly connections: number;
    /** True once the server ended the stream: the session is closed. */
    readonly closed: boolean;
    /**
     * Resolves with the conversation when the server ends the stream (the
     * session is closed); rejects with `HTTPStatusError` (a 404, an HTML page),
     * a `RemoteProtocolError` the stream had, `ConnectionFailed`, or the abort
     * reason after `close()`.
     */
    readonly done: Promise<Conversation>;
    /**
     * Resolves with `check(conversation)`'s first value that is neither
     * `undefined` nor `false`, checked now and after each event; rejects if
     * following stops first.
     */
    waitFor<T>(check: (conversation: Conversation) => T | undefined | false): Promise<T>;
    /** The Msg of reply `replyId` once it has ended or parked (at once if it has). */
    settled(replyId: string): Promise<Msg>;
    /** Stop following. */
    close(): void;
}
/**
 * Follow the session whose SSE stream is at `url` (wire.transports.http's
 * `sse_endpoint`, any store and replica, or agentscope's own
 * `/sessions/{id}/stream`) until the server ends it (its body ends, or a
 * reconnection gets 204), reconnecting from the last entry id read when the
 * connection drops, as follow.ts says: a status other than 200, or a body
 * that is not `text/event-stream`, is an `HTTPStatusError` naming both, at
 * once for a client error and after the retries for `RETRYABLE` ones.
 */
export declare function followSession(url: string | URL, options?: SessionOptions): SessionFollower;
/** What the answer endpoint said (wire.transports.client.Answered). */
export interface Answered {
    status: number;
    sessionId: string;
    /** The input's entry in the session's log, from which a reader reads what follows it (null from agentscope's app). */
    entryId: string | null;
}
export interface AnswerOptions {
    agentId: string;
    sessionId: string;
    /** A new turn (a Msg, a list of them), the answer to a parked reply (`confirmation(msg, true)`), an interrupt, or null. */
    input: ChatInput;
    headers?: Record<string, string>;
    signal?: AbortSignal;
    fetch?: typeof fetch;
    /** The longest response body read (default `MAX_ANSWER_BYTES`); a longer one throws `ResponseTooLarge`. */
    maxBytes?: number;
}
/** The longest response body `answer` reads by default, 1 MiB: the answer endpoint's response is a small JSON object. */
export declare const MAX_ANSWER_BYTES: number;
/**
 * A response body longer than the client reads (`limit` bytes): what a
 * misrouted request gets from a file server, say. Nothing past the limit is
 * read (wire.transports.client.ResponseTooLarge).
 */
export declare class ResponseTooLarge extends RemoteProtocolError {
    readonly method: string;
    readonly url: string;
    readonly limit: number;
    name: string;
    constructor(method: string, url: string, limit: number);
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
export declare function answer(url: string | URL, options: AnswerOptions): Promise<Answered>;
