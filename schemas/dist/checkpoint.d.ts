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
import type { CustomEvent, Msg, ReplyStartEvent } from "../wire.js";
import { UnknownEvent, type WireEvent } from "./events.js";
/** The name of a checkpoint event (wire.session.CHECKPOINT). */
export declare const CHECKPOINT = "wire.checkpoint";
/** The name of a restart event (wire.session.RESTART): what the reader built before is not this log's. */
export declare const RESTART = "wire.restart";
/** The name of a turn event (wire.session.TURN): the user's Msgs of a new turn, written before the agent starts. */
export declare const TURN = "wire.turn";
/**
 * The Msg a checkpoint event carries (a fresh object, in wire's form), or
 * `undefined` if `event` is no checkpoint. Go on with `appendEvent` for the
 * events after it. A checkpoint whose Msg wire's Python would refuse throws
 * DecodeError naming where (msgcheck.ts; the path is relative to the Msg, as
 * Python's is), so the reducer never meets a value of the wrong type.
 */
export declare function readCheckpoint(event: WireEvent | UnknownEvent): Msg | undefined;
/**
 * The user's Msgs a `wire.turn` event carries (fresh objects, in wire's
 * form), or `undefined` if `event` is no turn. A turn whose Msgs are not
 * Msgs throws DecodeError naming the path (`$.value.msgs[0].role`).
 */
export declare function readTurn(event: WireEvent | UnknownEvent): Msg[] | undefined;
/**
 * The `wire.turn` event of a new turn: the user's Msgs (none for a turn that
 * asks the agent to go on), in wire's form, with a new event id (the id an
 * interrupt of the turn names) and time.
 */
export declare function turn(msgs: Msg | Msg[] | null): CustomEvent;
/**
 * The Msg a reply begins as, from its REPLY_START: its id, name, role and
 * time (wire.session.begin_reply). Stores and readers both begin replies this
 * way, so a reader that resumed from a checkpoint and one that never dropped
 * hold the same JSON.
 */
export declare function beginReply(event: ReplyStartEvent): Msg;
/**
 * The Msg a reply begins as when its first event read is not its
 * REPLY_START (a reader that joined late, a trimmed log): an assistant's
 * Msg with no name, stamped now (wire.session.join_reply).
 */
export declare function joinReply(replyId: string): Msg;
/** The Msg a reply begins as, from the first event of it a reader gets. */
export declare function openReply(event: WireEvent | UnknownEvent): Msg;
