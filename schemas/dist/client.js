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
import { openReply, readCheckpoint, RESTART } from "./checkpoint.js";
import { follow, HTTPStatusError, stopper } from "./follow.js";
import { appendEvent } from "./reducer.js";
/** The old name of `HTTPStatusError`, which `followReply` now throws as `followSession` does. */
export const ReplyRequestError = HTTPStatusError;
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
export function followReply(url, options = {}) {
    const { stop, release } = stopper(options.signal);
    const state = {
        msg: options.msg,
        lastEventId: options.lastEventId ?? "",
        connections: 0,
    };
    const reader = {
        apply: (event) => applyOne(event, state),
        // After a wire.restart, an empty Msg, so that a page clears what it showed.
        handed: (event) => options.onEvent?.(event, state.msg ?? { name: "", content: [], role: "assistant" }),
    };
    const done = follow(String(url), options, options.unknown ?? "skip", reader, state, stop.signal).then(() => {
        const msg = state.msg;
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
function applyOne(event, state) {
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
    }
    else {
        state.msg ??= openReply(event);
        appendEvent(state.msg, event);
    }
    // A checkpoint of a finished reply (a page reloaded after its end) is the end too: no REPLY_END follows it.
    return event.type === "REPLY_END" || (snapshot !== undefined && snapshot.finished_at != null);
}
