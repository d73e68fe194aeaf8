/**
 * Length-prefixed MessagePack: a 4-byte big-endian payload length, then one
 * MessagePack event of exactly that length, as wire.framing's
 * MsgpackFrameDecoder reads it. Bytes travel as `bin`, without base64, and
 * come out as `Uint8Array`s, which `appendEvent` takes as they are.
 *
 * In a module of its own, so that a bundle that does not import it leaves
 * `@msgpack/msgpack` out.
 */

import { Decoder } from "@msgpack/msgpack";

import { DecodeError, FrameError } from "./errors.js";
import type { UnknownEvent, WireEvent } from "./events.js";
import { concat, StreamDecoder } from "./streaming.js";

const MSGPACK = new Decoder();

/** Events from length-prefixed MessagePack frames. `E` widens to `WireEvent | UnknownEvent` with `unknown: "keep"`. */
export class MsgpackFrameDecoder<E extends WireEvent | UnknownEvent = WireEvent> extends StreamDecoder<E> {
  private parts: Uint8Array[] = []; // the start of an incomplete frame
  private have = 0; // its length
  private need = 4; // the length at which a frame may be complete
  private offset = 0; // stream offset of the first buffered byte

  protected take(data: Uint8Array, out: E[]): void {
    if (!data.length) return;
    this.parts.push(data);
    this.have += data.length;
    if (this.have < this.need) {
      // Kept for later: copied, since the caller may reuse its buffer.
      this.parts[this.parts.length - 1] = data.slice();
      return;
    }
    const buf = concat(this.parts, this.have);
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    let pos = 0;
    try {
      while (buf.length - pos >= 4) {
        const size = view.getUint32(pos);
        if (size > this.max) {
          throw new FrameError(`frame length ${size} exceeds maxFrameBytes (${this.max})`, {
            offset: this.offset + pos, index: this.index,
          });
        }
        const end = pos + 4 + size;
        if (end > buf.length) break;
        const payload = buf.subarray(pos + 4, end);
        let value: unknown;
        try {
          value = MSGPACK.decode(payload);
        } catch (error) {
          throw new DecodeError(`MessagePack data is malformed: ${(error as Error).message}`, {
            offset: this.offset + pos + 4, index: this.index,
          });
        }
        this.event(value, out, this.offset + pos + 4, () => payload.slice(), "msgpack");
        pos = end;
      }
    } finally {
      const rest = buf.slice(pos);
      this.parts = rest.length ? [rest] : [];
      this.have = rest.length;
      this.offset += pos;
      this.need = rest.length < 4 ? 4 : 4 + new DataView(rest.buffer).getUint32(0);
    }
  }

  protected end(): void {
    if (!this.have) return;
    const what = this.have < 4
      ? `inside a length prefix (${this.have} of 4 bytes)`
      : `inside a frame (${this.have - 4} of ${this.need - 4} payload bytes)`;
    throw new FrameError(`the stream ended ${what}`, { offset: this.offset, index: this.index });
  }
}
