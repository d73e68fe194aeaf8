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
import { FrameError } from "./errors.js";
import { concat, STRICT_UTF8, StreamDecoder } from "./streaming.js";
const BOM = [0xef, 0xbb, 0xbf];
const NO_BYTES = new Uint8Array(0);
const MESSAGE = [109, 101, 115, 115, 97, 103, 101]; // "message"
const MAX_RETRY = 9223372036854775807n; // a longer retry asks for no usable delay
/** Events from an SSE byte stream. `E` is `AgentEvent`, or `AgentEvent | UnknownEvent` with `unknown: "keep"`. */
export class SSEDecoder extends StreamDecoder {
    /**
     * The id to send as `Last-Event-ID` when reconnecting: the id in force when
     * the last frame was dispatched.
     */
    lastEventId;
    /** The reconnection time in milliseconds the server asked for, if it did. */
    retry = undefined;
    /**
     * With `keepIds`: for each event the last `feed` or `close` returned (or
     * its error carried), in order, the id in force when it was dispatched. A
     * consumer that stops after the k-th of them resumes from `ids[k - 1]`,
     * never after an event it was not handed (`lastEventId` covers the whole
     * chunk); one that took them all, from `lastEventId`. Empty without it.
     */
    ids = [];
    head = NO_BYTES; // the first bytes, until a BOM is ruled in or out
    pos = 0; // stream offset of the next byte
    line = []; // an incomplete line
    lineLength = 0;
    lineStart = 0;
    cr = false; // the last byte was a CR: an LF next belongs to it
    frameStart = null;
    fields = false; // the frame has a field line (not only comments)
    data = [];
    dataOffset = 0;
    idBuffer; // the spec's "last event ID buffer"
    named = false; // the frame is named other than "message"
    decodeNamed;
    keepIds;
    constructor(options = {}) {
        super(options);
        this.lastEventId = this.idBuffer = options.lastEventId ?? "";
        const named = options.named ?? "skip";
        if (named !== "skip" && named !== "decode")
            throw new TypeError(`named must be "skip" or "decode", not ${named}`);
        this.decodeNamed = named === "decode";
        this.keepIds = options.keepIds ?? false;
    }
    feed(chunk) {
        if (this.keepIds)
            this.ids.length = 0;
        return super.feed(chunk);
    }
    close() {
        if (this.keepIds)
            this.ids.length = 0;
        return super.close();
    }
    take(data, out) {
        if (this.head !== null) {
            const head = concat([this.head, data], this.head.length + data.length);
            const bom = head.length >= 3 && head[0] === BOM[0] && head[1] === BOM[1] && head[2] === BOM[2];
            if (!bom && head.length < 3 && head.every((byte, i) => byte === BOM[i])) {
                this.head = head.slice();
                return;
            }
            this.head = null;
            data = bom ? head.subarray(3) : head;
            if (bom)
                this.pos = 3;
        }
        let i = 0;
        if (this.cr && data.length) {
            this.cr = false;
            if (data[0] === 10) {
                i = 1; // the LF of a CRLF cut between two chunks
                this.pos++;
            }
        }
        // The next LF and CR at or after i, each searched once per occurrence: linear.
        let lf = data.indexOf(10, i);
        let cr = data.indexOf(13, i);
        while (i < data.length) {
            if (lf !== -1 && lf < i)
                lf = data.indexOf(10, i);
            if (cr !== -1 && cr < i)
                cr = data.indexOf(13, i);
            const eol = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
            if (eol === -1)
                break;
            let next = eol + 1;
            if (data[eol] === 13) {
                if (eol + 1 < data.length) {
                    if (data[eol + 1] === 10)
                        next++;
                }
                else {
                    this.cr = true;
                }
            }
            let segment = data.subarray(i, eol);
            let start = this.pos;
            if (this.line.length) {
                segment = concat([...this.line, segment], this.lineLength + segment.length);
                start = this.lineStart;
                this.line = [];
                this.lineLength = 0;
            }
            this.pos += next - i;
            this.parseLine(segment, start, this.pos, out);
            i = next;
        }
        if (i < data.length) {
            const tail = data.slice(i);
            if (!this.line.length)
                this.lineStart = this.pos;
            this.line.push(tail);
            this.lineLength += tail.length;
            this.pos += tail.length;
            if (this.frameStart === null)
                this.frameStart = this.lineStart;
            this.checkSize(this.pos);
        }
    }
    checkSize(end) {
        if (this.frameStart !== null && end - this.frameStart > this.max) {
            throw new FrameError(`frame longer than maxFrameBytes (${this.max})`, { offset: this.frameStart, index: this.index });
        }
    }
    /** One complete line starting at stream offset `start`; `end` is the offset after its line end. */
    parseLine(line, start, end, out) {
        if (!line.length) {
            this.dispatch(out);
            return;
        }
        if (this.frameStart === null)
            this.frameStart = start;
        this.checkSize(end);
        if (line[0] === 58)
            return; // ":" a comment
        this.fields = true;
        let colon = line.indexOf(58);
        if (colon === -1)
            colon = line.length;
        let skip = Math.min(colon + 1, line.length);
        if (line[skip] === 32 && colon < line.length)
            skip++;
        const value = line.subarray(skip);
        const field = String.fromCharCode(...line.subarray(0, Math.min(colon, 6)));
        if (colon === 4 && field === "data") {
            if (!this.data.length)
                this.dataOffset = start + skip;
            this.data.push(value);
        }
        else if (colon === 2 && field === "id") {
            if (!value.includes(0)) {
                try {
                    this.idBuffer = STRICT_UTF8.decode(value);
                }
                catch {
                    throw new FrameError("an id that is not UTF-8", { offset: start, index: this.index });
                }
            }
        }
        else if (colon === 5 && field === "retry") {
            if (value.length && value.length <= 19 && value.every((b) => b >= 48 && b <= 57)) {
                const retry = BigInt(String.fromCharCode(...value));
                if (retry <= MAX_RETRY)
                    this.retry = Number(retry);
            }
        }
        else if (colon === 5 && field === "event") {
            this.named = !this.decodeNamed && !(value.length === MESSAGE.length && value.every((b, i) => b === MESSAGE[i]));
        }
    }
    dispatch(out) {
        const data = this.data;
        if (data.length) {
            const payload = data.length === 1 ? data[0] : joinLines(data);
            if (!this.named && !payload.every((b) => b === 32 || b === 9 || b === 13 || b === 10)) {
                const before = out.length;
                this.json(payload, out, this.dataOffset, data.length === 1);
                if (this.keepIds && out.length > before)
                    this.ids.push(this.idBuffer); // not an unknown event skipped
            }
            this.data = [];
        }
        this.lastEventId = this.idBuffer;
        this.frameStart = null;
        this.fields = false;
        this.named = false;
    }
    end(out) {
        if (this.head !== null && this.head.length) {
            // Fewer bytes than a BOM: they were data after all.
            const head = this.head;
            this.head = null;
            this.take(head, out);
        }
        if (this.data.length || this.fields || (this.line.length && this.line[0]?.[0] !== 58)) {
            throw new FrameError("the stream ended inside a frame (no blank line after it)", {
                offset: this.frameStart ?? this.lineStart, index: this.index,
            });
        }
    }
}
function joinLines(lines) {
    const total = lines.reduce((n, line) => n + line.length + 1, -1);
    const out = new Uint8Array(total);
    let at = 0;
    lines.forEach((line, i) => {
        if (i)
            out[at++] = 10;
        out.set(line, at);
        at += line.length;
    });
    return out;
}
