/**
 * The errors the runtime throws on purpose, named and shaped as wire's Python
 * exceptions (wire.errors): a frontend catches `WireError`, tells a peer's bad
 * bytes (`RemoteProtocolError`) from its own misuse (`LocalProtocolError`), and
 * still uses the `events` decoded before the problem.
 */

/** Base class of every error the runtime throws on purpose. */
export class WireError extends Error {
  override name = "WireError";
}

/** Where a `RemoteProtocolError` happened; each is undefined when it does not apply. */
export interface ErrorPlace {
  /** Where inside one event, as a JSON path (`$.delta`). */
  path?: string | undefined;
  /** The byte offset in the whole stream where the bad frame or payload starts. */
  offset?: number | undefined;
  /** The 0-based index of the bad event in its stream. */
  index?: number | undefined;
}

/**
 * The peer sent bytes, frames or events the runtime cannot accept. `events`
 * holds the events decoded before the problem in the same call: they are valid
 * and the caller should still apply them.
 */
export class RemoteProtocolError extends WireError {
  override name = "RemoteProtocolError";
  readonly reason: string;
  path: string | undefined;
  offset: number | undefined;
  index: number | undefined;
  events: unknown[] = [];

  constructor(reason: string, place: ErrorPlace = {}) {
    super(reason);
    this.reason = reason;
    this.path = place.path;
    this.offset = place.offset;
    this.index = place.index;
    this.message = this.render();
  }

  /** The message with its place: `reason (event 3, byte 120, at $.delta)`. */
  render(): string {
    const where: string[] = [];
    if (this.index !== undefined) where.push(`event ${this.index}`);
    if (this.offset !== undefined) where.push(`byte ${this.offset}`);
    if (this.path !== undefined) where.push(`at ${this.path}`);
    return where.length ? `${this.reason} (${where.join(", ")})` : this.reason;
  }
}

/** Bytes that are not a valid event: bad UTF-8, bad JSON or MessagePack, a missing or mistyped field. */
export class DecodeError extends RemoteProtocolError {
  override name = "DecodeError";
}

/** A frame that cannot be cut out of the stream: truncated at the end, too long, or malformed framing. */
export class FrameError extends RemoteProtocolError {
  override name = "FrameError";
}

/** An event the reducer cannot apply in strict mode; `kind` names the anomaly, `index` the event. */
export class StreamOrderError extends RemoteProtocolError {
  override name = "StreamOrderError";
  readonly kind: string;

  constructor(reason: string, kind: string, index: number) {
    super(reason, { index });
    this.kind = kind;
  }
}

/** This program used the runtime in a way it does not allow (a feed after close, or after an error). */
export class LocalProtocolError extends WireError {
  override name = "LocalProtocolError";
}
