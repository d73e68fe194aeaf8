/**
 * What the decoders hand out and the reducer takes: the 28 event types of
 * `wire.d.ts`, events of a type this runtime does not know (kept whole, as
 * wire.events.UnknownEvent does), and the check every decoded payload passes.
 */
import type { AgentEvent } from "../wire.js";
/**
 * `T` where every `data` field may also be a `Uint8Array`: MessagePack carries
 * bytes as `bin`, and `MsgpackFrameDecoder` hands them out as they came.
 * JSON decoders give base64 strings, as `wire.d.ts` says.
 */
export type WithBytes<T> = unknown extends T ? T : T extends string | number | boolean | null | undefined | Uint8Array ? T : T extends readonly (infer U)[] ? WithBytes<U>[] : {
    [K in keyof T]: K extends "data" ? T[K] | Uint8Array : WithBytes<T[K]>;
};
/** An event as a decoder returns it: JSON events are `AgentEvent`s, MessagePack ones may hold `Uint8Array`s. */
export type WireEvent = WithBytes<AgentEvent>;
/** The `type` of every event this runtime knows. */
export declare const EVENT_TYPES: ReadonlySet<string>;
/**
 * An event whose `type` this runtime does not know (a newer server), kept by
 * a decoder made with `unknown: "keep"`. `raw` is the payload's exact bytes,
 * `format` the codec that wrote them. The reducer records it as an
 * `unknown_event` anomaly and changes nothing.
 */
export declare class UnknownEvent {
    readonly type: string;
    readonly raw: Uint8Array;
    readonly format: "json" | "msgpack";
    constructor(type: string, raw: Uint8Array, format: "json" | "msgpack");
}
/** What a decoder does with an event of a type it does not know. */
export type UnknownPolicy = "raise" | "skip" | "keep";
/**
 * The event `value` holds, or the reason it is none: an object whose `type`
 * is a string, and for a known type its required fields, each of the kind the
 * types give, and the blocks and structs it holds field by field as Python
 * decodes them (msgcheck.ts, which normalizes their URLs in place). `data` must be
 * padded base64 in JSON; in MessagePack it may also be bytes.
 * Returns `undefined` for a known event, the `type` of an event of a type
 * this runtime does not know; throws DecodeError for anything else.
 */
export declare function checkEvent(value: unknown): string | undefined;
