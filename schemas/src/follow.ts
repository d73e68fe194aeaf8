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
import { RESTART } from "./checkpoint.js";
import { FrameError, RemoteProtocolError, WireError } from "./errors.js";
import type { UnknownEvent, UnknownPolicy, WireEvent } from "./events.js";
import { SSEDecoder } from "./sse.js";

/** Statuses worth another attempt (408, 425, 429 and every 5xx); any other but 200 is thrown at once. */
export const RETRYABLE: ReadonlySet<number> = new Set([408, 425, 429, ...Array.from({ length: 100 }, (_, i) => 500 + i)]);

/** The statuses whose `Retry-After` is honoured. */
const RETRY_AFTER = new Set([429, 503]);
/** The longest `Retry-After` honoured: 5 minutes (a longer one is taken as this). */
const MAX_RETRY_AFTER_MS = 300_000;

/** The waits' defaults, wire.transports.client.Follower's. */
const DEFAULTS = { initialMs: 250, maxMs: 8_000, retries: 5 };

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
export class HTTPStatusError extends RemoteProtocolError {
  override name = "HTTPStatusError";
  constructor(readonly method: string, readonly url: string, readonly status: number, readonly contentType: string,
    readonly text: string, expected: string) {
    super(`${method} ${url} answered ${status} with ${contentType || "no content type"}, not ${expected}` +
      (text ? `: ${text}` : ""));
  }
}

/** The follower gave up: `attempts` connections in a row failed; `cause` is the last failure. */
export class ConnectionFailed extends WireError {
  override name = "ConnectionFailed";
  constructor(readonly url: string, readonly attempts: number, cause: unknown) {
    super(`GET ${url}: ${attempts} attempts in a row failed; the last: ${String(cause)}`, { cause });
  }
}

/** The media type of a response, lower case, without parameters. */
export function mediaType(response: Response): string {
  return (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/** How much of an unexpected body an HTTPStatusError quotes, in bytes. */
export const SNIPPET = 300;

/** What came instead of what was asked for, with the first bytes of its body (never all of a large page). */
export async function unexpected(response: Response, method: string, url: string,
  expected: string): Promise<HTTPStatusError> {
  let head = new Uint8Array(0);
  const reader = response.body?.getReader();
  try {
    while (reader !== undefined && head.length < SNIPPET) {
      const { done, value } = await reader.read();
      if (done) break;
      const joined = new Uint8Array(head.length + value.length);
      joined.set(head);
      joined.set(value, head.length);
      head = joined;
    }
  } catch {
    // what was read is enough to say what came
  } finally {
    void reader?.cancel().catch(() => undefined);
  }
  const text = new TextDecoder().decode(head.subarray(0, SNIPPET)).trim();
  return new HTTPStatusError(method, url, response.status, response.headers.get("content-type") ?? "", text,
    expected);
}

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
export function stopper(outer: AbortSignal | undefined): { stop: AbortController; release: () => void } {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener("abort", onAbort, { once: true });
  return { stop, release: () => outer?.removeEventListener("abort", onAbort) };
}

/**
 * Read the stream at `url` into `reader` until it says it is done, or (with
 * `closed`) until the server ends the stream, reconnecting as the module's
 * docstring says. `position` is kept up to date for the follower's getters.
 */
export async function follow(url: string, options: ConnectionOptions, unknown: UnknownPolicy, reader: Reader,
  position: Position, signal: AbortSignal): Promise<void> {
  const attempts = new Attempts(url, options.backoff);
  let retryMs: number | undefined; // the server's SSE retry field, once sent
  let restarts = 0; // connections in a row that brought a wire.restart
  for (;;) {
    signal.throwIfAborted();
    const startId = position.lastEventId;
    const decoder = new SSEDecoder<Events[number]>({ lastEventId: position.lastEventId, unknown, keepIds: true });
    const outcome = await connect(url, options, reader, position, signal, decoder);
    if (outcome === "done") return;
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
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly retries: number;
  private failures = 0;

  constructor(private readonly url: string, backoff: Backoff = {}) {
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
  failed(reason: unknown, progressed: boolean, baseMs?: number, atLeastMs?: number): { attempt: number; delayMs: number } {
    this.failures = progressed ? 1 : this.failures + 1;
    if (this.failures > this.retries) throw new ConnectionFailed(this.url, this.failures, reason);
    const base = Math.min(this.maxMs, (baseMs ?? this.initialMs) * 2 ** (this.failures - 1));
    return { attempt: this.failures, delayMs: Math.max(base / 2 + Math.random() * (base / 2), atLeastMs ?? 0) };
  }
}

type Outcome = "done" | {
  applied: number;
  reason: unknown;
  waitMs?: number | undefined;
  /** The reason of a `wire.restart` the connection brought. */
  restart?: string | undefined;
};

/** What `ConnectionFailed` carries: the last drop, or, after restarts in a row, an error naming them (caused by it). */
function lastFailure(outcome: Exclude<Outcome, "done">, restarts: number): unknown {
  if (!restarts) return outcome.reason;
  const error = new RemoteProtocolError(`the server restarted the stream (wire.restart: ${outcome.restart}) on ` +
    `${restarts} connection${restarts > 1 ? "s" : ""} in a row, then dropped it; the last drop: ${String(outcome.reason)}`);
  error.cause = outcome.reason;
  return error;
}

/** The reason a `wire.restart` gives, or undefined for another event. */
function restartReason(event: AgentEvent | UnknownEvent): string | undefined {
  if (event.type !== "CUSTOM" || !("name" in event) || event.name !== RESTART) return undefined;
  const value: unknown = event.value;
  const reason = typeof value === "object" && value !== null ? (value as Record<string, unknown>).reason : undefined;
  return (reason === undefined || reason === null ? "" : String(reason)) || "no reason given";
}

/** The request of the next connection: the position as a header, or as `after` among the URL's own query parameters. */
function request(url: string, options: ConnectionOptions, lastEventId: string): [string, Headers] {
  const headers = new Headers(options.headers);
  headers.set("Accept", "text/event-stream");
  if (!lastEventId) return [url, headers];
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
export function retryAfterMs(value: string | null, nowMs: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
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
async function connect(url: string, options: ConnectionOptions, reader: Reader, position: Position,
  signal: AbortSignal, decoder: SSEDecoder<AgentEvent | UnknownEvent>): Promise<Outcome> {
  let applied = 0;
  let restart: string | undefined;
  /**
   * Apply a batch (what one decoder call gave); true once the reader is
   * done. The position moves past each event as it is handed to the reader
   * (its id from the decoder's `ids`; a wire.restart's is empty: the next
   * connection starts over), and to the decoder's `lastEventId` once all are.
   */
  const apply = (events: Events): boolean => {
    for (let i = 0; i < events.length; i++) {
      signal.throwIfAborted(); // no callback after close(), even for the rest of a chunk
      const event = events[i]!;
      const finished = reader.apply(event);
      applied++;
      position.lastEventId = decoder.ids[i]!;
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
  const retry = (reason: unknown, waitMs?: number): Outcome => ({ applied, reason, waitMs, restart });
  const network = (error: unknown): Outcome => {
    if (signal.aborted) throw signal.reason;
    if (!(error instanceof TypeError)) throw error;
    return retry(error);
  };
  const closed = (): Outcome => {
    reader.closed!();
    return "done";
  };

  const [target, headers] = request(url, options, position.lastEventId);
  position.connections++;
  let response: Response;
  try {
    response = await (options.fetch ?? globalThis.fetch)(target, { headers, signal, cache: "no-store" });
  } catch (error) {
    return network(error);
  }
  if (response.status === 204 && reader.closed !== undefined) {
    await response.body?.cancel();
    return closed();
  }
  if (response.status !== 200 || mediaType(response) !== "text/event-stream" || response.body === null) {
    const error = await unexpected(response, "GET", target, "200 with text/event-stream");
    if (!RETRYABLE.has(response.status)) throw error;
    const wait = RETRY_AFTER.has(response.status) ? retryAfterMs(response.headers.get("retry-after")) : undefined;
    return retry(error, wait);
  }
  const body = response.body.getReader();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await body.read();
      } catch (error) {
        return network(error);
      }
      if (chunk.done) break;
      const batch = decode(() => decoder.feed(chunk.value), signal);
      if (apply(batch.events)) return "done"; // the events before a bad frame may be the end the reader waits for
      if (batch.error !== undefined) throw batch.error;
    }
    const rest = decode(() => decoder.close(), signal);
    if (apply(rest.events)) return "done";
    // The body ended inside a frame, as a proxy cuts it: a dropped connection.
    if (rest.error instanceof FrameError) return retry(rest.error);
    if (rest.error !== undefined) throw rest.error;
    return reader.closed !== undefined ? closed() : retry(new WireError("the stream ended before REPLY_END"));
  } finally {
    // Closes the connection when the reader was done before the body was; a no-op after the body's end.
    void body.cancel().catch(() => undefined);
  }
}

type Events = (AgentEvent | UnknownEvent)[];

/**
 * What one decoder call gives: its events, or, when it met a frame that is
 * not an event, the events before that frame (valid, to be applied) and the
 * error. Only the decoder's errors are caught here, so that the position
 * never moves past an event a callback failed on.
 */
function decode(step: () => Events, signal: AbortSignal): { events: Events; error?: RemoteProtocolError } {
  try {
    return { events: step() };
  } catch (error) {
    if (!(error instanceof RemoteProtocolError) || signal.aborted) throw error;
    return { events: error.events as Events, error };
  }
}

/** `ms` milliseconds, or rejected with the signal's reason once it aborts (the followers' backoff). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
