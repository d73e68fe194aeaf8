/**
 * `appendEvent`: events in, one Msg out, with wire's Python semantics
 * (wire.reducer, which follows agentscope 2.0.11's `Msg.append_event`).
 *
 * The Msg is a plain object of `wire.d.ts`'s `Msg` type, changed in place and
 * kept in wire's JSON form (see canonical.ts), so `JSON.stringify(msg)` is
 * its wire JSON at any moment. The reducer's own state (block indexes,
 * anomalies) lives beside it in a WeakMap, built on the first event from the
 * Msg's content: a Msg read from a checkpoint resumes where the one that was
 * sent stopped.
 *
 * Cost: O(1) amortized per event. Blocks are found through Maps, text grows
 * with `+=` (JavaScript engines concatenate into ropes, not copies), and
 * base64 grows by whole 3-byte groups: a chunk after whole groups joins as
 * text, and one after a padded chunk is shifted by the 1 or 2 bytes carried,
 * in one pass over its characters (base64.ts's appendBase64).
 *
 * Determinism: a block takes `created_at` from the event that made it, and a
 * text part made inside a tool result takes the id of the delta that made it,
 * so replaying the same events gives the same JSON.
 */
import type { Msg } from "../wire.js";
import { UnknownEvent, type WireEvent } from "./events.js";
/** The names an `Anomaly`'s `kind` takes, as wire.reducer.AnomalyKind. */
export declare const AnomalyKind: {
    /** reply_id differs from the Msg's id: skipped */
    readonly OTHER_REPLY: "other_reply";
    /** delta or END before its START, or for no block: skipped */
    readonly UNKNOWN_BLOCK: "unknown_block";
    /** START for an id that exists: the orphan block is appended */
    readonly DUPLICATE_START: "duplicate_start";
    /** delta or END for a finished block: applied anyway */
    readonly AFTER_END: "after_end";
    /** base64 chunk into a URL-sourced block: skipped */
    readonly DATA_AFTER_URL: "data_after_url";
    /** a URL that is not absolute: skipped */
    readonly INVALID_URL: "invalid_url";
    /** REQUIRE_* or USER_CONFIRM_RESULT for no call: ignored */
    readonly UNKNOWN_TOOL_CALL: "unknown_tool_call";
    /** USER_CONFIRM_RESULT for a call that was not asking: ignored */
    readonly NOT_ASKING: "not_asking";
    /** a block the Msg's role does not allow: skipped */
    readonly ROLE_FORBIDS: "role_forbids";
    /** an event of a type newer than this runtime: skipped */
    readonly UNKNOWN_EVENT: "unknown_event";
    /** a block started after the reply's REPLY_END: applied anyway, as agentscope does */
    readonly AFTER_REPLY_END: "after_reply_end";
    /** a value of the wrong type (an event built in code, e.g. `text` where `delta` belongs): skipped */
    readonly WRONG_TYPE: "wrong_type";
};
export type AnomalyKind = (typeof AnomalyKind)[keyof typeof AnomalyKind];
/**
 * Something in the stream the reducer could not apply as a well-formed stream
 * would have it. `index` counts the events applied to this Msg from 0.
 * Its JSON is wire's `Anomaly` (no `id` when there is none).
 */
export interface Anomaly {
    index: number;
    kind: AnomalyKind;
    event_type: string;
    id?: string;
    detail: string;
}
export interface AppendOptions {
    /** Throw `StreamOrderError` at the first anomaly, before anything changes, instead of recording it. */
    strict?: boolean;
}
/** The anomalies `appendEvent` recorded for `msg` so far, in order. */
export declare function anomaliesOf(msg: Msg): readonly Anomaly[];
/**
 * Apply one event of this reply to `msg` in place, as wire's
 * `Msg.append_event` does, and return the anomaly it found, if any.
 *
 * Events for another reply, deltas for unknown blocks and the other anomalies
 * of `AnomalyKind` are recorded (see `anomaliesOf`) and handled as agentscope
 * does; with `{ strict: true }` the first one throws `StreamOrderError` and
 * leaves the Msg unchanged. The first call puts `msg` in wire's form (fields
 * in order, defaults left out), so `JSON.stringify(msg)` is its wire JSON.
 */
export declare function appendEvent(msg: Msg, event: WireEvent | UnknownEvent, options?: AppendOptions): Anomaly | undefined;
/** `appendEvent` for each event in order; returns the anomalies they caused. */
export declare function extendEvents(msg: Msg, events: Iterable<WireEvent | UnknownEvent>, options?: AppendOptions): Anomaly[];
