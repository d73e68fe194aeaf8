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
import { FrameError, DecodeError } from "./errors.js";
import type { UnknownEvent } from "./events.js";
import { concat, STRICT_UTF8, StreamDecoder } from "./streaming.js";

const BLANK = /^[ \t\r]*$/;

/** Events from NDJSON bytes. `E` is `AgentEvent`, or `AgentEvent | UnknownEvent` with `unknown: "keep"`. */
export class NDJSONDecoder<E extends AgentEvent | UnknownEvent = AgentEvent> extends StreamDecoder<E> {
  private parts: Uint8Array[] = []; // the incomplete last line, as it came
  private pending = 0; // its length
  private offset = 0; // stream offset of the incomplete line

  protected take(data: Uint8Array, out: E[]): void {
    const last = data.lastIndexOf(10);
    if (last < 0) {
      this.keep(data);
      return;
    }
    const head = data.subarray(0, last + 1);
    const region = this.parts.length ? concat([...this.parts, head], this.pending + head.length) : head;
    this.parts = [];
    this.pending = 0;
    const base = this.offset;
    this.offset = base + region.length;
    if (!this.fast(region, out)) this.lines(region, base, out);
    if (last + 1 < data.length) this.keep(data.slice(last + 1));
  }

  private keep(data: Uint8Array): void {
    if (this.pending + data.length > this.max) {
      throw new FrameError(`line longer than maxFrameBytes (${this.max})`, { offset: this.offset, index: this.index });
    }
    if (data.length) {
      this.parts.push(data.slice()); // the caller may reuse its buffer
      this.pending += data.length;
    }
  }

  /** The lines of `region` (whole lines) decoded in one go; false, with nothing changed, if any is wrong. */
  private fast(region: Uint8Array, out: E[]): boolean {
    let text: string;
    try {
      text = STRICT_UTF8.decode(region);
    } catch {
      return false;
    }
    const lines = text.split("\n");
    lines.pop(); // after the last newline: nothing
    // No line can be too long when all of them together are not (a char is at least a byte).
    if (region.length - lines.length > this.max) return false;
    const start = out.length;
    const index = this.index;
    try {
      for (let line of lines) {
        if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
        const first = line.charCodeAt(0);
        if ((first === 32 || first === 9 || first === 13 || line.length === 0) && BLANK.test(line)) continue;
        this.json(line, out, 0, false);
      }
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      out.length = start;
      this.index = index;
      return false;
    }
    return true;
  }

  /** Whole lines one by one from stream offset `base`: exact offsets and indexes. */
  private lines(region: Uint8Array, base: number, out: E[]): void {
    let start = 0;
    while (start < region.length) {
      const end = region.indexOf(10, start);
      const line = region.subarray(start, end);
      if (line.length > this.max) {
        throw new FrameError(`line longer than maxFrameBytes (${this.max})`, { offset: base + start, index: this.index });
      }
      this.line(line, base + start, out);
      start = end + 1;
    }
  }

  private line(line: Uint8Array, offset: number, out: E[]): void {
    if (line[line.length - 1] === 13) line = line.subarray(0, -1);
    if (line.every((byte) => byte === 32 || byte === 9 || byte === 13)) return;
    this.json(line, out, offset);
  }

  protected end(out: E[]): void {
    if (!this.parts.length) return;
    const line = concat(this.parts, this.pending);
    this.parts = [];
    try {
      this.line(line, this.offset, out);
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      const framing = new FrameError("the stream ended inside a line that is not a whole event", {
        offset: this.offset, index: this.index,
      });
      framing.cause = error;
      throw framing;
    }
  }
}
