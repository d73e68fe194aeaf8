/**
 * The events a session's log carries besides the agent's own (checkpoints,
 * restarts and turns), and how a reply's Msg begins: the TypeScript side of
 * wire.session.checkpoints.
 *
 * wire's SSE server answers a reconnect that carries `Last-Event-ID` with a
 * checkpoint, a CUSTOM event named `wire.checkpoint` whose value holds the
 * Msg built so far, then the events after it. A client replaces its Msg with
 * `readCheckpoint`'s and goes on applying events. A new turn goes into the
 * log too, before the agent starts, as a CUSTOM event named `wire.turn`
 * holding the user's Msgs (`turn`, `readTurn`): a session refuses another
 * turn while one is pending (conversation.ts).
 */
import { canonical, copyJson } from "./canonical.js";
import { DecodeError } from "./errors.js";
import { UnknownEvent } from "./events.js";
import { checkMsg } from "./msgcheck.js";
/** The name of a checkpoint event (wire.session.CHECKPOINT). */
export const CHECKPOINT = "wire.checkpoint";
/** The name of a restart event (wire.session.RESTART): what the reader built before is not this log's. */
export const RESTART = "wire.restart";
/** The name of a turn event (wire.session.TURN): the user's Msgs of a new turn, written before the agent starts. */
export const TURN = "wire.turn";
/**
 * The Msg a checkpoint event carries (a fresh object, in wire's form), or
 * `undefined` if `event` is no checkpoint. Go on with `appendEvent` for the
 * events after it. A checkpoint whose Msg wire's Python would refuse throws
 * DecodeError naming where (msgcheck.ts; the path is relative to the Msg, as
 * Python's is), so the reducer never meets a value of the wrong type.
 */
export function readCheckpoint(event) {
    if (event.type !== "CUSTOM" || !("name" in event) || event.name !== CHECKPOINT)
        return undefined;
    const value = event.value ?? {};
    if (!Object.hasOwn(value, "msg"))
        throw new DecodeError("a checkpoint without a msg", { path: "$.value.msg" });
    const msg = value["msg"];
    // A Msg without an id would be given a new one: a reply nobody wrote (wire.session.read_checkpoint).
    if (typeof msg === "object" && msg !== null && !Array.isArray(msg) && !Object.hasOwn(msg, "id")) {
        throw new DecodeError("a checkpoint whose msg has no id", { path: "$.id" });
    }
    return canonical(checkMsg(copyJson(msg)), "msg"); // paths relative to the Msg, as Python's
}
/**
 * The user's Msgs a `wire.turn` event carries (fresh objects, in wire's
 * form), or `undefined` if `event` is no turn. A turn whose Msgs are not
 * Msgs throws DecodeError naming the path (`$.value.msgs[0].role`).
 */
export function readTurn(event) {
    if (event.type !== "CUSTOM" || !("name" in event) || event.name !== TURN)
        return undefined;
    const msgs = (event.value ?? {})["msgs"];
    if (!Array.isArray(msgs))
        throw new DecodeError("a turn without a list of msgs", { path: "$.value.msgs" });
    return msgs.map((msg, i) => readMsg(msg, `$.value.msgs[${i}]`));
}
/**
 * The `wire.turn` event of a new turn: the user's Msgs (none for a turn that
 * asks the agent to go on), in wire's form, with a new event id (the id an
 * interrupt of the turn names) and time.
 */
export function turn(msgs) {
    const items = msgs === null ? [] : Array.isArray(msgs) ? msgs : [msgs];
    return { type: "CUSTOM", id: newId(), created_at: now(), name: TURN,
        value: { msgs: items.map((msg) => canonical(copyJson(msg), "msg")) } };
}
/** A turn's Msg read from JSON at `path`, checked as Python's decoder checks it (the role table included). */
function readMsg(msg, path) {
    try {
        return canonical(checkMsg(copyJson(msg)), "msg");
    }
    catch (error) {
        if (error instanceof DecodeError && error.path !== undefined) {
            error.path = path + error.path.slice(1);
            error.message = error.render();
        }
        throw error;
    }
}
/**
 * The Msg a reply begins as, from its REPLY_START: its id, name, role and
 * time (wire.session.begin_reply). Stores and readers both begin replies this
 * way, so a reader that resumed from a checkpoint and one that never dropped
 * hold the same JSON.
 */
export function beginReply(event) {
    const msg = {
        name: event.name,
        content: [],
        role: event.role ?? "assistant",
        id: event.reply_id,
        created_at: event.created_at,
    };
    return canonical(msg, "msg");
}
/**
 * The Msg a reply begins as when its first event read is not its
 * REPLY_START (a reader that joined late, a trimmed log): an assistant's
 * Msg with no name, stamped now (wire.session.join_reply).
 */
export function joinReply(replyId) {
    return canonical({ name: "", content: [], role: "assistant", id: replyId, created_at: now() }, "msg");
}
/** The Msg a reply begins as, from the first event of it a reader gets. */
export function openReply(event) {
    if (event.type === "REPLY_START" && !(event instanceof UnknownEvent))
        return beginReply(event);
    const replyId = event.reply_id;
    return joinReply(typeof replyId === "string" ? replyId : "");
}
/** wire's default timestamp (wire.clock.now): ISO 8601 in UTC, microseconds, an explicit offset. */
function now() {
    return new Date().toISOString().replace("Z", "000+00:00");
}
/** wire's default id (wire.clock.new_id): a UUID4 as 32 hex digits. getRandomValues works outside secure contexts too. */
function newId() {
    const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40; // version 4
    bytes[8] = (bytes[8] & 0x3f) | 0x80; // the RFC 4122 variant
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
