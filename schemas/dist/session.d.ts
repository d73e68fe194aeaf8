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
import type { CustomEvent, ExternalExecutionResultEvent, Msg, ReplyStartEvent, ToolCallBlock, UserConfirmResultEvent, UserInterruptEvent } from "../wire.js";
import { RemoteProtocolError, WireError } from "./errors.js";
import { UnknownEvent, type UnknownPolicy, type WireEvent } from "./events.js";
/** The name of a restart event (wire.resume.RESTART): what the reader built before is not this log's. */
export declare const RESTART = "wire.restart";
/**
 * The Msg a reply begins as, from its REPLY_START: its id, name, role and
 * time (wire.resume.begin_reply). Stores and readers both begin replies this
 * way, so a reader that resumed from a checkpoint and one that never dropped
 * hold the same JSON.
 */
export declare function beginReply(event: ReplyStartEvent): Msg;
/**
 * What a reader of a session keeps (wire.resume.Conversation): the Msg of
 * every reply, in the order the replies began. A REPLY_START of a new reply
 * begins its Msg; a checkpoint replaces the Msg of its reply (or adds it); a
 * restart drops everything; other events go to their reply's Msg (CUSTOM
 * events of no reply are kept in `custom`, in order; unknown events are
 * skipped).
 */
export declare class Conversation {
    /** Every reply's Msg by reply id, in the order the replies began. */
    readonly replies: Map<string, Msg>;
    /** The CUSTOM events that are neither checkpoints nor restarts, in order. */
    readonly custom: CustomEvent[];
    constructor(...msgs: Msg[]);
    /** The Msg of the reply that began last. */
    get last(): Msg | undefined;
    /** Apply one event; the Msg it went to (a checkpoint: the new Msg), if any. */
    apply(event: WireEvent | UnknownEvent): Msg | undefined;
    /** `apply` each event in order. */
    extend(events: Iterable<WireEvent | UnknownEvent>): void;
}
/** Where a reply stands, read from its Msg (wire.transports.chat.Waiting). */
export interface Waiting {
    replyId: string;
    state: "running" | "parked" | "ended";
    /** Tool calls awaiting a confirmation (state `asking`). */
    confirm: ToolCallBlock[];
    /** Tool calls awaiting an external result (`submitted`, no result block of its id yet). */
    external: ToolCallBlock[];
}
/** What the reply `msg` waits for, as agentscope's agent reads its own state. */
export declare function waiting(msg: Msg): Waiting;
/**
 * The answer to every call of `msg` that awaits a confirmation: all allowed
 * or all denied, or each by its id (`{ "call-1": true }`).
 */
export declare function confirmation(msg: Msg, confirmed: boolean | Record<string, boolean>): UserConfirmResultEvent;
/** A user's message: a new turn's input. */
export declare function userMsg(name: string, text: string): Msg;
/** Statuses a follower retries (a replica restarting behind its balancer); any other but 200 is thrown at once. */
export declare const RETRYABLE: ReadonlySet<number>;
/**
 * The server answered with a status or a content type that is not what was
 * asked for (a 404, a proxy's HTML error page, a login page): `status`,
 * `contentType` and the first bytes of the body (`text`) say what came
 * instead (wire.transports.client.HTTPStatusError).
 */
export declare class HTTPStatusError extends RemoteProtocolError {
    readonly method: string;
    readonly url: string;
    readonly status: number;
    readonly contentType: string;
    readonly text: string;
    name: string;
    constructor(method: string, url: string, status: number, contentType: string, text: string, expected: string);
}
/** The follower gave up: `attempts` connections in a row failed; `cause` is the last failure. */
export declare class ConnectionFailed extends WireError {
    readonly url: string;
    readonly attempts: number;
    name: string;
    constructor(url: string, attempts: number, cause: unknown);
}
/** How a follower waits before reconnecting: `initialMs`, doubled per failed attempt (jittered) up to `maxMs`. */
export interface SessionBackoff {
    /** The first wait in milliseconds (default 250), unless the server sent an SSE `retry` field. */
    initialMs?: number;
    /** The longest wait (default 8,000). */
    maxMs?: number;
    /** Failed attempts in a row before `ConnectionFailed` (default 5); an attempt that brings a new event starts the count over. */
    retries?: number;
}
export interface SessionOptions {
    /** What the reader has so far (a new Conversation by default); with `lastEventId`, the id of the last entry it covers. */
    conversation?: Conversation;
    /** Resume from this id (kept from an earlier page, say). */
    lastEventId?: string;
    /** Send the position as `Last-Event-ID` (`"header"`, the default) or as `?after=` (`"query"`, the form agentscope's endpoint takes). */
    cursor?: "header" | "query";
    /** Called after each event has been applied, with the Msg it went to (a checkpoint: the new Msg) and the conversation. */
    onEvent?: (event: WireEvent | UnknownEvent, msg: Msg | undefined, conversation: Conversation) => void;
    /** Called before each reconnection, with the attempt (1 for the first in a row), the wait and why. */
    onReconnect?: (attempt: number, delayMs: number, reason: unknown) => void;
    backoff?: SessionBackoff;
    /** Extra request headers (`X-User-ID`, `Authorization`). */
    headers?: Record<string, string>;
    /** Stops following: `done` rejects with the signal's reason. */
    signal?: AbortSignal;
    /** The fetch to use (default: the global one). */
    fetch?: typeof fetch;
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
 * `/sessions/{id}/stream`) until the server ends it, reconnecting from the
 * last entry id read when the connection drops. Every response is checked
 * before a byte of it is decoded: a status other than 200, or a body that
 * is not `text/event-stream`, is an `HTTPStatusError` naming both, at once
 * for a client error and after the retries for 408, 425, 429, 502, 503, 504.
 */
export declare function followSession(url: string | URL, options?: SessionOptions): SessionFollower;
/** What the answer endpoint said (wire.transports.client.Answered). */
export interface Answered {
    status: number;
    sessionId: string;
    /** The answer's entry in the session's log (null for a new turn, or from agentscope's app). */
    entryId: string | null;
}
export type ChatInput = Msg | Msg[] | UserConfirmResultEvent | ExternalExecutionResultEvent | UserInterruptEvent | null;
export interface AnswerOptions {
    agentId: string;
    sessionId: string;
    /** A new turn (a Msg, a list of them), the answer to a parked reply (`confirmation(msg, true)`), an interrupt, or null. */
    input: ChatInput;
    headers?: Record<string, string>;
    signal?: AbortSignal;
    fetch?: typeof fetch;
}
/**
 * Post agentscope's chat body `{"agent_id", "session_id", "input"}` to `url`
 * (wire.transports.http's `answer_endpoint`, or agentscope's own `/chat/`).
 * Not retried: a post whose response was lost may have been taken (posting
 * the same answer again is refused with 409). A status other than 2xx, or a
 * response that is not a JSON object, throws `HTTPStatusError` with the
 * server's reason; a failed connection `ConnectionFailed`.
 */
export declare function answer(url: string | URL, options: AnswerOptions): Promise<Answered>;
