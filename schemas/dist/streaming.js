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
import { DecodeError, LocalProtocolError, RemoteProtocolError } from "./errors.js";
import { checkEvent, EVENT_TYPES, UnknownEvent } from "./events.js";
/**
 * The most one frame may hold, as wire's DEFAULT_MAX_FRAME_BYTES: an inline
 * image of about 20 MB is 26.7 MB of base64, plus the event's other fields.
 */
export const DEFAULT_MAX_FRAME_BYTES = 32 * 1024 * 1024;
const UTF8 = new TextEncoder();
export const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
export function utf8(chunk) {
    return typeof chunk === "string" ? UTF8.encode(chunk) : chunk;
}
export function concat(parts, total) {
    if (parts.length === 1)
        return parts[0];
    const out = new Uint8Array(total);
    let at = 0;
    for (const part of parts) {
        out.set(part, at);
        at += part.length;
    }
    return out;
}
export class StreamDecoder {
    unknown;
    max;
    /** Frames that carried an event so far: the `index` errors report. */
    index = 0;
    state = "open";
    constructor(options = {}) {
        const unknown = options.unknown ?? "raise";
        if (!["raise", "skip", "keep"].includes(unknown))
            throw new TypeError(`unknown must be raise, skip or keep, not ${unknown}`);
        const max = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
        if (!(max >= 1))
            throw new RangeError(`maxFrameBytes must be positive, not ${max}`);
        this.unknown = unknown;
        this.max = max;
    }
    get maxFrameBytes() {
        return this.max;
    }
    /** How many frames carrying an event were read. */
    get frames() {
        return this.index;
    }
    /** The events of every frame `chunk` completes, in stream order. */
    feed(chunk) {
        if (this.state !== "open")
            throw new LocalProtocolError(`feed() on a decoder that is ${this.state}`);
        const out = [];
        try {
            this.take(utf8(chunk), out);
        }
        catch (error) {
            this.fail(error, out);
        }
        return out;
    }
    /** End of stream: the events of a frame the end completes; FrameError if it ended inside one. */
    close() {
        if (this.state === "closed")
            return [];
        if (this.state === "failed")
            throw new LocalProtocolError("close() on a decoder that is failed");
        const out = [];
        try {
            this.end(out);
        }
        catch (error) {
            this.fail(error, out);
        }
        this.state = "closed";
        return out;
    }
    fail(error, out) {
        this.state = "failed";
        if (error instanceof RemoteProtocolError)
            error.events = [...out, ...error.events];
        throw error;
    }
    /**
     * One JSON payload (its bytes, or its text when it was decoded with the
     * others of its chunk) into `out`, under the unknown-event policy.
     * `offset` is where it starts in the stream; `exact` says the payload is
     * contiguous there, so that a position inside it can be added.
     */
    json(payload, out, offset, exact = true) {
        let text;
        if (typeof payload === "string") {
            text = payload;
        }
        else {
            try {
                text = STRICT_UTF8.decode(payload);
            }
            catch {
                throw new DecodeError("invalid UTF-8", { offset, index: this.index });
            }
        }
        let value;
        try {
            value = JSON.parse(text);
        }
        catch (error) {
            const at = /position (\d+)/.exec(String(error))?.[1];
            const inside = at !== undefined && exact ? UTF8.encode(text.slice(0, Number(at))).length : 0;
            throw new DecodeError(`JSON is malformed: ${error.message}`, {
                offset: offset + inside, index: this.index,
            });
        }
        if (mayBeOutOfRange(value)) {
            const reason = numberOutOfRange(text);
            if (reason !== undefined)
                throw new DecodeError(reason, { offset, index: this.index });
        }
        this.event(value, out, offset, () => (typeof payload === "string" ? UTF8.encode(payload) : payload.slice()), "json");
    }
    /** A parsed payload checked and put into `out` under the unknown-event policy. */
    event(value, out, offset, raw, format) {
        let unknownType;
        try {
            unknownType = checkEvent(value);
        }
        catch (error) {
            if (error instanceof DecodeError) {
                error.offset = offset;
                error.index = this.index;
                error.message = error.render();
            }
            throw error;
        }
        if (unknownType !== undefined) {
            if (this.unknown === "raise") {
                throw new DecodeError(unknownTypeReason(unknownType), { path: "$.type", offset, index: this.index });
            }
            this.index++;
            if (this.unknown === "keep")
                out.push(new UnknownEvent(unknownType, raw(), format));
            return;
        }
        this.index++;
        out.push(value);
    }
}
/** The reason for an event type this runtime does not know, naming the nearest known
 * type when one is close, as wire._codec does: "unknown event type 'TEXT_BLOK_DELTA':
 * did you mean 'TEXT_BLOCK_DELTA'?". Only the error path runs this. */
function unknownTypeReason(tag) {
    const shown = tag.slice(0, 64);
    let text = `unknown event type ${JSON.stringify(shown).replace(/^"|"$/g, "'")}`;
    const upper = shown.toUpperCase();
    let best;
    let bestDistance = Math.max(2, Math.floor(upper.length / 5)) + 1;
    for (const known of EVENT_TYPES) {
        const distance = editDistance(upper, known);
        if (distance < bestDistance)
            [best, bestDistance] = [known, distance];
    }
    if (best !== undefined)
        text += `: did you mean '${best}'?`;
    return text;
}
function editDistance(a, b) {
    let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
        const row = [i];
        for (let j = 1; j <= b.length; j++) {
            row.push(Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
        }
        previous = row;
    }
    return previous[b.length];
}
// JSON.parse reads any number: 1e400 as Infinity, 18446744073709551616 as a float that is not
// it. wire's value rule (wire/_portable.py) refuses both, as Python's decoders do: floats must
// be finite and integers within -2**63 .. 2**64-1, the range MessagePack carries. Such a number
// parses to an infinity or to a magnitude of at least 2**63, so only a text whose parsed value
// holds a number of magnitude 2**53 or more (or an infinity) is scanned. The parsed value is
// walked, not the text: a regular expression over every line cost half as much again as
// JSON.parse on a reply with base64 data (benchmarks/ts/bench.mjs). A number hidden by a later
// duplicate key is not in the parsed value; such a key is not checked either (JSON.parse keeps
// the last), as for every other field.
const LARGE = 2 ** 53;
/** Whether a parsed JSON value holds a number that may be out of wire's range. */
function mayBeOutOfRange(value) {
    if (typeof value !== "object" || value === null)
        return typeof value === "number" && !(Math.abs(value) < LARGE);
    // for...in and indexes rather than Object.values: no array made per object, which was
    // most of this walk's cost on every event (benchmarks/ts/bench.mjs).
    let stack;
    let item = value;
    for (;;) {
        if (Array.isArray(item)) {
            for (let i = 0; i < item.length; i++) {
                const v = item[i];
                if (typeof v === "number") {
                    if (!(Math.abs(v) < LARGE))
                        return true;
                }
                else if (typeof v === "object" && v !== null) {
                    (stack ??= []).push(v);
                }
            }
        }
        else {
            for (const key in item) {
                const v = item[key];
                if (typeof v === "number") {
                    if (!(Math.abs(v) < LARGE))
                        return true;
                }
                else if (typeof v === "object" && v !== null) {
                    (stack ??= []).push(v);
                }
            }
        }
        const next = stack?.pop();
        if (next === undefined)
            return false;
        item = next;
    }
}
/**
 * Why the parsed JSON `text` (its value `value`) holds a number wire refuses,
 * or undefined: what the decoders check for each payload, for a reader that
 * parses JSON of its own (a WebSocket's text frames, socket.ts).
 */
export function refusedNumber(value, text) {
    return mayBeOutOfRange(value) ? numberOutOfRange(text) : undefined;
}
const NUMBER = /-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const INT_MIN = -(2n ** 63n);
const INT_MAX = 2n ** 64n - 1n;
/** Why a JSON text (already parsed, so well-formed) holds a number wire refuses, or undefined. */
function numberOutOfRange(text) {
    let inString = false;
    for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (inString) {
            if (c === 0x5c)
                i++; // a backslash: skip the escaped character
            else if (c === 0x22)
                inString = false;
            continue;
        }
        if (c === 0x22) {
            inString = true;
        }
        else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
            NUMBER.lastIndex = i;
            const match = NUMBER.exec(text);
            if (match === null)
                continue;
            const token = match[0];
            if (match[1] !== undefined || match[2] !== undefined) {
                if (!Number.isFinite(Number(token)))
                    return "Number out of range";
            }
            else if (token.length > 15) {
                const value = BigInt(token);
                if (value < INT_MIN || value > INT_MAX) {
                    return "an integer outside -2**63 .. 2**64-1, which MessagePack cannot carry";
                }
            }
            i += token.length - 1;
        }
    }
    return undefined;
}
