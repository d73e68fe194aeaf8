/**
 * Server-Sent Events by the WHATWG rules
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html), each
 * message's data one JSON event, as wire.framing.sse.SSEDecoder reads them:
 *
 * - lines end in CR, LF or CRLF (a CRLF may be cut between chunks); one
 *   leading BOM is dropped;
 * - `:` starts a comment (agentscope's heartbeat); otherwise `field: value`
 *   (one space after the colon dropped; no colon: the whole line is the field);
 *   `data` lines are joined with LF; `id` sets the last event id unless it
 *   holds NUL; `retry` sets the reconnection time if it is all ASCII digits
 *   (and fits 64 bits: a longer one is ignored); other fields are ignored;
 * - a frame named by an `event` line other than `message` is skipped by
 *   default (`named: "skip"`), as a browser's `onmessage` never sees it (a
 *   server's `event: ping` keep-alive is the common one); `named: "decode"`
 *   reads it as an event too;
 * - a blank line ends the frame, and a frame with data is one message.
 *
 * Stricter than a browser's EventSource, as wire is, so that no event is
 * dropped or altered silently: bytes that are not UTF-8 fail instead of
 * becoming U+FFFD, the stream ending inside a frame that has fields throws
 * FrameError, and a frame whose data is empty or blank is skipped (a keep-alive).
 */
import type { AgentEvent } from "../wire.js";
import type { UnknownEvent } from "./events.js";
import { type DecoderOptions, StreamDecoder } from "./streaming.js";
export interface SSEDecoderOptions extends DecoderOptions {
    /** The id a previous connection ended with, to start `lastEventId` from. */
    lastEventId?: string;
    /** What a frame named other than `message` does: skipped (the default) or decoded. */
    named?: "skip" | "decode";
    /** Keep `ids`: the id each event was dispatched with, for a consumer that may stop in the middle of a chunk. */
    keepIds?: boolean;
}
/** Events from an SSE byte stream. `E` is `AgentEvent`, or `AgentEvent | UnknownEvent` with `unknown: "keep"`. */
export declare class SSEDecoder<E extends AgentEvent | UnknownEvent = AgentEvent> extends StreamDecoder<E> {
    /**
     * The id to send as `Last-Event-ID` when reconnecting: the id in force when
     * the last frame was dispatched.
     */
    lastEventId: string;
    /** The reconnection time in milliseconds the server asked for, if it did. */
    retry: number | undefined;
    /**
     * With `keepIds`: for each event the last `feed` or `close` returned (or
     * its error carried), in order, the id in force when it was dispatched. A
     * consumer that stops after the k-th of them resumes from `ids[k - 1]`,
     * never after an event it was not handed (`lastEventId` covers the whole
     * chunk); one that took them all, from `lastEventId`. Empty without it.
     */
    readonly ids: string[];
    private head;
    private pos;
    private line;
    private lineLength;
    private lineStart;
    private cr;
    private frameStart;
    private fields;
    private data;
    private dataOffset;
    private idBuffer;
    private named;
    private readonly decodeNamed;
    private readonly keepIds;
    constructor(options?: SSEDecoderOptions);
    feed(chunk: Uint8Array | string): E[];
    close(): E[];
    protected take(data: Uint8Array, out: E[]): void;
    private checkSize;
    /** One complete line starting at stream offset `start`; `end` is the offset after its line end. */
    private parseLine;
    private dispatch;
    protected end(out: E[]): void;
}
