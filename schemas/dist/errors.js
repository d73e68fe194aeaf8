/**
 * The errors the runtime throws on purpose, named and shaped as wire's Python
 * exceptions (wire.errors): a frontend catches `WireError`, tells a peer's bad
 * bytes (`RemoteProtocolError`) from its own misuse (`LocalProtocolError`), and
 * still uses the `events` decoded before the problem.
 */
/** Base class of every error the runtime throws on purpose. */
export class WireError extends Error {
    name = "WireError";
}
/**
 * The peer sent bytes, frames or events the runtime cannot accept. `events`
 * holds the events decoded before the problem in the same call: they are valid
 * and the caller should still apply them.
 */
export class RemoteProtocolError extends WireError {
    name = "RemoteProtocolError";
    reason;
    path;
    offset;
    index;
    events = [];
    constructor(reason, place = {}) {
        super(reason);
        this.reason = reason;
        this.path = place.path;
        this.offset = place.offset;
        this.index = place.index;
        this.message = this.render();
    }
    /** The message with its place: `reason (event 3, byte 120, at $.delta)`. */
    render() {
        const where = [];
        if (this.index !== undefined)
            where.push(`event ${this.index}`);
        if (this.offset !== undefined)
            where.push(`byte ${this.offset}`);
        if (this.path !== undefined)
            where.push(`at ${this.path}`);
        return where.length ? `${this.reason} (${where.join(", ")})` : this.reason;
    }
}
/** Bytes that are not a valid event: bad UTF-8, bad JSON or MessagePack, a missing or mistyped field. */
export class DecodeError extends RemoteProtocolError {
    name = "DecodeError";
}
/** A frame that cannot be cut out of the stream: truncated at the end, too long, or malformed framing. */
export class FrameError extends RemoteProtocolError {
    name = "FrameError";
}
/** An event the reducer cannot apply in strict mode; `kind` names the anomaly, `index` the event. */
export class StreamOrderError extends RemoteProtocolError {
    name = "StreamOrderError";
    kind;
    constructor(reason, kind, index) {
        super(reason, { index });
        this.kind = kind;
    }
}
/** This program used the runtime in a way it does not allow (a feed after close, or after an error). */
export class LocalProtocolError extends WireError {
    name = "LocalProtocolError";
}
