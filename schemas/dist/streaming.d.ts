/**
 * What the three stream decoders share: the contract of wire's Python
 * decoders (wire.framing.StreamDecoder) and the decoding of one payload.
 *
 * - `feed(chunk)` takes the next bytes (a string is taken as its UTF-8 bytes),
 *   in chunks of any size, and returns the events of every frame the chunk
 *   completed. Splitting the stream differently never changes the events,
 *   their order, or an error.
 * - `close()` says the stream has ended: it returns the events of a frame the
 *   end completes and throws FrameError if the stream ended inside a frame.
 *   Again returns `[]`; `feed` after `close` throws LocalProtocolError.
 * - Bad input throws a RemoteProtocolError (FrameError for the framing,
 *   DecodeError for a payload) whose `offset` is the byte in the whole stream
 *   where the bad frame or payload starts (plus the position inside a payload
 *   the JSON parser names), whose `index` counts the events before it, and
 *   whose `events` are the events this call decoded before it.
 * - After an error the decoder is failed: `feed` and `close` throw
 *   LocalProtocolError. A stream cannot be resynchronised after garbage.
 */
import { type UnknownPolicy } from "./events.js";
/**
 * The most one frame may hold, as wire's DEFAULT_MAX_FRAME_BYTES: an inline
 * image of about 20 MB is 26.7 MB of base64, plus the event's other fields.
 */
export declare const DEFAULT_MAX_FRAME_BYTES: number;
export interface DecoderOptions {
    /** What an event of a type this runtime does not know does: throw DecodeError (the default), be skipped, or be kept as an `UnknownEvent`. */
    unknown?: UnknownPolicy;
    /** The longest frame accepted, in bytes; a longer one throws FrameError as soon as the buffered part passes it. */
    maxFrameBytes?: number;
}
export declare const STRICT_UTF8: TextDecoder;
export declare function utf8(chunk: Uint8Array | string): Uint8Array;
export declare function concat(parts: Uint8Array[], total: number): Uint8Array;
export declare abstract class StreamDecoder<E> {
    protected readonly unknown: UnknownPolicy;
    protected readonly max: number;
    /** Frames that carried an event so far: the `index` errors report. */
    protected index: number;
    private state;
    constructor(options?: DecoderOptions);
    get maxFrameBytes(): number;
    /** How many frames carrying an event were read. */
    get frames(): number;
    /** The events of every frame `chunk` completes, in stream order. */
    feed(chunk: Uint8Array | string): E[];
    /** End of stream: the events of a frame the end completes; FrameError if it ended inside one. */
    close(): E[];
    protected abstract take(data: Uint8Array, out: E[]): void;
    protected abstract end(out: E[]): void;
    private fail;
    /**
     * One JSON payload (its bytes, or its text when it was decoded with the
     * others of its chunk) into `out`, under the unknown-event policy.
     * `offset` is where it starts in the stream; `exact` says the payload is
     * contiguous there, so that a position inside it can be added.
     */
    protected json(payload: Uint8Array | string, out: E[], offset: number, exact?: boolean): void;
    /** A parsed payload checked and put into `out` under the unknown-event policy. */
    protected event(value: unknown, out: E[], offset: number, raw: () => Uint8Array, format: "json" | "msgpack"): void;
}
/**
 * Why the parsed JSON `text` (its value `value`) holds a number wire refuses,
 * or undefined: what the decoders check for each payload, for a reader that
 * parses JSON of its own (a WebSocket's text frames, socket.ts).
 */
export declare function refusedNumber(value: unknown, text: string): string | undefined;
