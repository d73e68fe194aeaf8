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

import type { AgentEvent, Msg } from "../wire.js";
import { openReply, readCheckpoint, RESTART } from "./checkpoint.js";
import type { UnknownEvent, UnknownPolicy, WireEvent } from "./events.js";
import { type ConnectionOptions, follow, HTTPStatusError, type Position, stopper } from "./follow.js";
import { appendEvent } from "./reducer.js";

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
export const ReplyRequestError = HTTPStatusError;
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
export function followReply(url: string | URL, options: FollowOptions = {}): ReplyFollower {
  const { stop, release } = stopper(options.signal);
  const state: Position & { msg: Msg | undefined } = {
    msg: options.msg,
    lastEventId: options.lastEventId ?? "",
    connections: 0,
  };
  const reader = {
    apply: (event: AgentEvent | UnknownEvent): boolean => applyOne(event, state),
    // After a wire.restart, an empty Msg, so that a page clears what it showed.
    handed: (event: AgentEvent | UnknownEvent): void =>
      options.onEvent?.(event, state.msg ?? { name: "", content: [], role: "assistant" }),
  };
  const done = follow(String(url), options, options.unknown ?? "skip", reader, state, stop.signal).then(() => {
    const msg = state.msg as Msg;
    options.onComplete?.(msg);
    return msg;
  }).finally(release);
  return {
    get msg() { return state.msg; },
    get lastEventId() { return state.lastEventId; },
    get connections() { return state.connections; },
    done,
    close: () => stop.abort(new DOMException("followReply closed", "AbortError")),
  };
}

/** Apply one event; true once the reply has ended. */
function applyOne(event: AgentEvent | UnknownEvent, state: { msg: Msg | undefined }): boolean {
  if (event.type === "CUSTOM" && "name" in event && event.name === RESTART) {
    // The server's log is not the one the kept id came from: what was built is not its; the log follows
    // from its first event (the restart's empty id has reset lastEventId), whose REPLY_START begins the Msg
    // again.
    state.msg = undefined;
    return false;
  }
  const snapshot = readCheckpoint(event);
  if (snapshot !== undefined) {
    state.msg = snapshot;
  } else {
    state.msg ??= openReply(event);
    appendEvent(state.msg, event);
  }
  // A checkpoint of a finished reply (a page reloaded after its end) is the end too: no REPLY_END follows it.
  return event.type === "REPLY_END" || (snapshot !== undefined && snapshot.finished_at != null);
}
