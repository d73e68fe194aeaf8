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
import type { AgentEvent } from "../wire.js";
import { RemoteProtocolError, WireError } from "./errors.js";
import type { UnknownEvent, UnknownPolicy } from "./events.js";
/** Statuses worth another attempt (408, 425, 429 and every 5xx); any other but 200 is thrown at once. */
export declare const RETRYABLE: ReadonlySet<number>;
/** How a follower waits before reconnecting: `initialMs`, doubled per failed attempt (jittered) up to `maxMs`. */
export interface Backoff {
    /** The first wait in milliseconds (default 250), unless the server sent an SSE `retry` field. */
    initialMs?: number;
    /** The longest wait (default 8,000), but for a longer `Retry-After`. */
    maxMs?: number;
    /** Failed attempts in a row before `ConnectionFailed` (default 5); an attempt that brings a new event starts the count over. */
    retries?: number;
    /** The old name of `retries` (followReply's); `retries` wins when both are given. */
    maxAttempts?: number;
}
/** What both followers take about connections. */
export interface ConnectionOptions {
    /** Resume from this id (kept from an earlier page, say): the first request already sends it. */
    lastEventId?: string;
    /** Send the position as `Last-Event-ID` (`"header"`, the default) or as `?after=` (`"query"`, the form agentscope's endpoint takes). */
    cursor?: "header" | "query";
    /** Called before each reconnection, with the attempt (1 for the first in a row), the wait and why. */
    onReconnect?: (attempt: number, delayMs: number, reason: unknown) => void;
    /** Reconnection waits. */
    backoff?: Backoff;
    /** Extra request headers (`Authorization`, `X-User-ID`). */
    headers?: Record<string, string>;
    /** Stops following: `done` rejects with the signal's reason. */
    signal?: AbortSignal;
    /** The fetch to use (default: the global one). */
    fetch?: typeof fetch;
    /** What an event of an unknown type does (each follower says its default). */
    unknown?: UnknownPolicy;
}
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
/** The media type of a response, lower case, without parameters. */
export declare function mediaType(response: Response): string;
/** How much of an unexpected body an HTTPStatusError quotes, in bytes. */
export declare const SNIPPET = 300;
/** What came instead of what was asked for, with the first bytes of its body (never all of a large page). */
export declare function unexpected(response: Response, method: string, url: string, expected: string): Promise<HTTPStatusError>;
/** What a follower makes of the events: the one part of following that differs between a reply and a session. */
export interface Reader {
    /**
     * Apply one event; true when following is over (a reply's end). One that
     * throws has applied nothing of it: the position stays before it.
     */
    apply(event: AgentEvent | UnknownEvent): boolean;
    /**
     * Called with each event once it is applied and the position has moved
     * past it (where the follower's own callback runs): an error it throws
     * rejects, the position staying after the event, which is applied.
     */
    handed?(event: AgentEvent | UnknownEvent): void;
    /** Called after each batch of events (a chunk's) has been applied and the position moved past them. */
    applied?(): void;
    /**
     * Given when the stream's end is the session's (followSession): the body
     * ended, or the server answered 204 (nothing more will come); following
     * is over. Without it, a body that ends is a dropped connection and a 204
     * an `HTTPStatusError`.
     */
    closed?(): void;
}
/** Where a follower is: the id to resume from, and the connections made. */
export interface Position {
    lastEventId: string;
    connections: number;
}
/** A follower's own abort signal, following the caller's `signal` too; `release` forgets the caller's. */
export declare function stopper(outer: AbortSignal | undefined): {
    stop: AbortController;
    release: () => void;
};
/**
 * Read the stream at `url` into `reader` until it says it is done, or (with
 * `closed`) until the server ends the stream, reconnecting as the module's
 * docstring says. `position` is kept up to date for the follower's getters.
 */
export declare function follow(url: string, options: ConnectionOptions, unknown: UnknownPolicy, reader: Reader, position: Position, signal: AbortSignal): Promise<void>;
/**
 * The budget of one follower's reconnections, whatever it reads over (SSE
 * here, a WebSocket in socket.ts): failed attempts in a row, given up past
 * `retries` with `ConnectionFailed`, and the wait before the next, as the
 * module's docstring says.
 */
export declare class Attempts {
    private readonly url;
    private readonly initialMs;
    private readonly maxMs;
    private readonly retries;
    private failures;
    constructor(url: string, backoff?: Backoff);
    /**
     * A connection ended for `reason` and is to be made again: the attempt
     * that makes it (1 for the first in a row; a connection that `progressed`,
     * bringing a new entry id, starts the count over) and the wait before it:
     * `baseMs` (the server's SSE `retry`) or `initialMs`, doubled per failed
     * attempt up to `maxMs`, jittered, at least `atLeastMs` (a `Retry-After`).
     * Throws `ConnectionFailed` carrying `reason` past `retries`.
     */
    failed(reason: unknown, progressed: boolean, baseMs?: number, atLeastMs?: number): {
        attempt: number;
        delayMs: number;
    };
}
/**
 * A `Retry-After` in milliseconds (delta-seconds or an HTTP date), at most
 * `MAX_RETRY_AFTER_MS`; undefined when absent or unreadable.
 */
export declare function retryAfterMs(value: string | null, nowMs?: number): number | undefined;
/** `ms` milliseconds, or rejected with the signal's reason once it aborts (the followers' backoff). */
export declare function sleep(ms: number, signal: AbortSignal): Promise<void>;
