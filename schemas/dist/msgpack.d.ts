/**
 * Length-prefixed MessagePack: a 4-byte big-endian payload length, then one
 * MessagePack event of exactly that length, as wire.framing's
 * MsgpackFrameDecoder reads it. Bytes travel as `bin`, without base64, and
 * come out as `Uint8Array`s, which `appendEvent` takes as they are.
 *
 * In a module of its own, so that a bundle that does not import it leaves
 * `@msgpack/msgpack` out.
 */
import type { UnknownEvent, WireEvent } from "./events.js";
import { StreamDecoder } from "./streaming.js";
/**
 * One MessagePack value, whole (a WebSocket's binary frame, socket.ts), read
 * as the frame decoder reads a payload: DecodeError for what wire refuses or
 * for malformed data, with the offset of the problem.
 */
export declare function decodeMsgpack(payload: Uint8Array): unknown;
/** `value` as MessagePack (fields holding `undefined` left out, as JSON.stringify leaves them out). */
export declare function encodeMsgpack(value: unknown): Uint8Array<ArrayBuffer>;
/** Events from length-prefixed MessagePack frames. `E` widens to `WireEvent | UnknownEvent` with `unknown: "keep"`. */
export declare class MsgpackFrameDecoder<E extends WireEvent | UnknownEvent = WireEvent> extends StreamDecoder<E> {
    private parts;
    private have;
    private need;
    private offset;
    protected take(data: Uint8Array, out: E[]): void;
    protected end(): void;
}
