/**
 * NDJSON: one JSON event per line, `\n` after each (`\r\n` accepted), as
 * wire.framing.NDJSONDecoder reads it. Blank lines are ignored; a last line
 * without its newline is accepted at `close()` if it holds a whole event.
 *
 * Speed: a chunk without a newline is only kept. The complete lines a chunk
 * brings are decoded from UTF-8 in one call and split once; only a region
 * holding something wrong is gone through again line by line, on its bytes,
 * to say exactly where.
 */
import type { AgentEvent } from "../wire.js";
import type { UnknownEvent } from "./events.js";
import { StreamDecoder } from "./streaming.js";
/** Events from NDJSON bytes. `E` is `AgentEvent`, or `AgentEvent | UnknownEvent` with `unknown: "keep"`. */
export declare class NDJSONDecoder<E extends AgentEvent | UnknownEvent = AgentEvent> extends StreamDecoder<E> {
    private parts;
    private pending;
    private offset;
    protected take(data: Uint8Array, out: E[]): void;
    private keep;
    /** The lines of `region` (whole lines) decoded in one go; false, with nothing changed, if any is wrong. */
    private fast;
    /** Whole lines one by one from stream offset `base`: exact offsets and indexes. */
    private lines;
    private line;
    protected end(out: E[]): void;
}
