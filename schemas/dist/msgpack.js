/**
 * Length-prefixed MessagePack: a 4-byte big-endian payload length, then one
 * MessagePack event of exactly that length, as wire.framing's
 * MsgpackFrameDecoder reads it. Bytes travel as `bin`, without base64, and
 * come out as `Uint8Array`s, which `appendEvent` takes as they are.
 *
 * In a module of its own, so that a bundle that does not import it leaves
 * `@msgpack/msgpack` out.
 */
import { Decoder, encode } from "@msgpack/msgpack";
import { DecodeError, FrameError } from "./errors.js";
import { concat, STRICT_UTF8, StreamDecoder } from "./streaming.js";
const MSGPACK = new Decoder();
/**
 * The first item of `payload` that wire refuses although @msgpack/msgpack reads it, with its
 * offset: a `str` that is not valid UTF-8 (@msgpack/msgpack turns bad UTF-8 into U+FFFD; wire
 * refuses it, as it does in JSON), an `ext` (a timestamp or an application type, which JSON
 * cannot carry), a NaN or infinite float, or a map key that is no str (wire's value rule,
 * wire/_portable.py). A walk over
 * the items' headers (https://github.com/msgpack/msgpack/blob/master/spec.md); a malformed
 * payload stops it, and the decoder then says what is wrong.
 */
function refused(payload) {
    const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
    let pos = 0;
    // The containers open around the item at `pos`: items still to read in each, and for a map
    // how many it has read (an even count: the next item is a key, which must be a str).
    const open = [{ left: 1, map: false, read: 0 }];
    while (open.length > 0 && pos < payload.length) {
        const inside = open[open.length - 1];
        if (inside.left === 0) {
            open.pop();
            continue;
        }
        inside.left -= 1;
        const isKey = inside.map && inside.read % 2 === 0;
        inside.read += 1;
        const head = payload[pos];
        if (isKey && !(head >= 0xa0 && head <= 0xbf) && !(head >= 0xd9 && head <= 0xdb)) {
            return { at: pos, reason: "a map key that is no str; keys must be strings" };
        }
        let items = 0;
        let map = false;
        let size = 0; // bytes of a str, bin or ext body after the header
        let header = 1;
        let str = false;
        if (head <= 0x7f || head >= 0xe0 || (head >= 0xc0 && head <= 0xc3)) {
            // fixint, nil, false, true
        }
        else if (head <= 0x8f) {
            [items, map] = [2 * (head & 15), true];
        }
        else if (head <= 0x9f) {
            items = head & 15;
        }
        else if (head <= 0xbf) {
            [str, size] = [true, head & 31];
        }
        else if ((head >= 0xc7 && head <= 0xc9) || (head >= 0xd4 && head <= 0xd8)) {
            return { at: pos, reason: "a value of type Ext, which JSON and MessagePack do not both carry" };
        }
        else if ((head === 0xca || head === 0xcb) && pos + (head === 0xca ? 5 : 9) <= payload.length
            && !Number.isFinite(head === 0xca ? view.getFloat32(pos + 1) : view.getFloat64(pos + 1))) {
            const value = head === 0xca ? view.getFloat32(pos + 1) : view.getFloat64(pos + 1);
            return { at: pos, reason: `the float ${Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf"}, which JSON cannot carry` };
        }
        else if (pos + 5 > payload.length && head >= 0xc4) {
            return undefined; // truncated: the decoder reports it
        }
        else {
            switch (head) {
                case 0xd9:
                    [str, size, header] = [true, view.getUint8(pos + 1), 2];
                    break;
                case 0xda:
                    [str, size, header] = [true, view.getUint16(pos + 1), 3];
                    break;
                case 0xdb:
                    [str, size, header] = [true, view.getUint32(pos + 1), 5];
                    break;
                case 0xc4:
                    [size, header] = [view.getUint8(pos + 1), 2];
                    break;
                case 0xc5:
                    [size, header] = [view.getUint16(pos + 1), 3];
                    break;
                case 0xc6:
                    [size, header] = [view.getUint32(pos + 1), 5];
                    break;
                case 0xc7:
                    [size, header] = [view.getUint8(pos + 1), 3];
                    break;
                case 0xc8:
                    [size, header] = [view.getUint16(pos + 1), 4];
                    break;
                case 0xc9:
                    [size, header] = [view.getUint32(pos + 1), 6];
                    break;
                case 0xca:
                    header = 5;
                    break;
                case 0xcb:
                    header = 9;
                    break;
                case 0xcc:
                case 0xd0:
                    header = 2;
                    break;
                case 0xcd:
                case 0xd1:
                    header = 3;
                    break;
                case 0xce:
                case 0xd2:
                    header = 5;
                    break;
                case 0xcf:
                case 0xd3:
                    header = 9;
                    break;
                case 0xd4:
                    header = 3;
                    break;
                case 0xd5:
                    header = 4;
                    break;
                case 0xd6:
                    header = 6;
                    break;
                case 0xd7:
                    header = 10;
                    break;
                case 0xd8:
                    header = 18;
                    break;
                case 0xdc:
                    [items, header] = [view.getUint16(pos + 1), 3];
                    break;
                case 0xdd:
                    [items, header] = [view.getUint32(pos + 1), 5];
                    break;
                case 0xde:
                    [items, map, header] = [2 * view.getUint16(pos + 1), true, 3];
                    break;
                case 0xdf:
                    [items, map, header] = [2 * view.getUint32(pos + 1), true, 5];
                    break;
                default: return undefined; // 0xc1, never used: the decoder reports it
            }
        }
        // A key of the event's own map names a field: msgspec skips an unknown one without
        // reading it as text, so an invalid-UTF-8 key is no error there, as here (keys deeper
        // down, of free-form maps, are checked).
        if (str && size && !(isKey && open.length === 2)) {
            const body = payload.subarray(pos + header, pos + header + size);
            if (body.some((byte) => byte >= 0x80)) {
                try {
                    STRICT_UTF8.decode(body);
                }
                catch {
                    return { at: pos, reason: "invalid UTF-8 in a str" };
                }
            }
        }
        pos += header + size;
        if (items > 0)
            open.push({ left: items, map, read: 0 });
    }
    return undefined;
}
/**
 * One MessagePack value, whole (a WebSocket's binary frame, socket.ts), read
 * as the frame decoder reads a payload: DecodeError for what wire refuses or
 * for malformed data, with the offset of the problem.
 */
export function decodeMsgpack(payload) {
    const bad = refused(payload);
    if (bad !== undefined)
        throw new DecodeError(bad.reason, { offset: bad.at });
    try {
        return MSGPACK.decode(payload);
    }
    catch (error) {
        throw new DecodeError(`MessagePack data is malformed: ${error.message}`, { offset: 0 });
    }
}
/** `value` as MessagePack (fields holding `undefined` left out, as JSON.stringify leaves them out). */
export function encodeMsgpack(value) {
    return encode(value, { ignoreUndefined: true });
}
/** Events from length-prefixed MessagePack frames. `E` widens to `WireEvent | UnknownEvent` with `unknown: "keep"`. */
export class MsgpackFrameDecoder extends StreamDecoder {
    parts = []; // the start of an incomplete frame
    have = 0; // its length
    need = 4; // the length at which a frame may be complete
    offset = 0; // stream offset of the first buffered byte
    take(data, out) {
        if (!data.length)
            return;
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
                if (end > buf.length)
                    break;
                const payload = buf.subarray(pos + 4, end);
                let value;
                const bad = refused(payload);
                if (bad !== undefined) {
                    throw new DecodeError(bad.reason, { offset: this.offset + pos + 4 + bad.at, index: this.index });
                }
                try {
                    value = MSGPACK.decode(payload);
                }
                catch (error) {
                    throw new DecodeError(`MessagePack data is malformed: ${error.message}`, {
                        offset: this.offset + pos + 4, index: this.index,
                    });
                }
                this.event(value, out, this.offset + pos + 4, () => payload.slice(), "msgpack");
                pos = end;
            }
        }
        finally {
            const rest = buf.slice(pos);
            this.parts = rest.length ? [rest] : [];
            this.have = rest.length;
            this.offset += pos;
            this.need = rest.length < 4 ? 4 : 4 + new DataView(rest.buffer).getUint32(0);
        }
    }
    end() {
        if (!this.have)
            return;
        const what = this.have < 4
            ? `inside a length prefix (${this.have} of 4 bytes)`
            : `inside a frame (${this.have - 4} of ${this.need - 4} payload bytes)`;
        throw new FrameError(`the stream ended ${what}`, { offset: this.offset, index: this.index });
    }
}
