/**
 * A session's state and rules, sans-IO: no fetch, no timers. The TypeScript
 * side of wire.resume (`Conversation`, `begin_reply`, `RESTART`) and of
 * wire.transports.chat (`waiting`, `confirmation`, `refusal`), with the same
 * behaviour and, for `refusal`, the same messages.
 *
 * A session's log holds its replies one after another; a reply parks at
 * REQUIRE_USER_CONFIRM / REQUIRE_EXTERNAL_EXECUTION, the client's answer
 * goes into the log, and the reply goes on with the same reply id. A reader
 * feeds every event it reads to `Conversation.apply`, which keeps each
 * reply's Msg in the order the replies began; `waiting(msg)` reads what a
 * reply waits for from its Msg, and `refusal(input, replies)` says, before
 * posting, why the session would refuse an input (or `undefined`). The
 * followers (session.ts, client.ts) are this module plus the reconnect loop
 * of follow.ts.
 */
import type { CustomEvent, ExternalExecutionResultEvent, Msg, ReplyStartEvent, ToolCallBlock, UserConfirmResultEvent, UserInterruptEvent } from "../wire.js";
import { UnknownEvent, type WireEvent } from "./events.js";
/** The name of a restart event (wire.resume.RESTART): what the reader built before is not this log's. */
export declare const RESTART = "wire.restart";
/**
 * The Msg a reply begins as, from its REPLY_START: its id, name, role and
 * time (wire.resume.begin_reply). Stores and readers both begin replies this
 * way, so a reader that resumed from a checkpoint and one that never dropped
 * hold the same JSON.
 */
export declare function beginReply(event: ReplyStartEvent): Msg;
/**
 * The Msg a reply begins as when its first event read is not its
 * REPLY_START (a reader that joined late, a trimmed log): an assistant's
 * Msg with no name, stamped now, as wire.resume.Conversation begins it.
 */
export declare function joinReply(replyId: string): Msg;
/** The Msg a reply begins as, from the first event of it a reader gets. */
export declare function openReply(event: WireEvent | UnknownEvent): Msg;
/**
 * What a reader of a session keeps (wire.resume.Conversation): the Msg of
 * every reply, in the order the replies began. A REPLY_START of a new reply
 * begins its Msg; a checkpoint replaces the Msg of its reply (or adds it); a
 * restart drops everything; other events go to their reply's Msg (CUSTOM
 * events of no reply are kept in `custom`, in order; unknown events are
 * skipped).
 */
export declare class Conversation {
    /** Every reply's Msg by reply id, in the order the replies began. */
    readonly replies: Map<string, Msg>;
    /** The CUSTOM events that are neither checkpoints nor restarts, in order. */
    readonly custom: CustomEvent[];
    constructor(...msgs: Msg[]);
    /** The Msg of the reply that began last. */
    get last(): Msg | undefined;
    /**
     * Apply one event; the Msg of the reply it touched (a checkpoint: the new
     * Msg), or `undefined` for an event of no reply (a restart, another
     * CUSTOM event, an unknown one).
     */
    apply(event: WireEvent | UnknownEvent): Msg | undefined;
    /** `apply` each event in order; the Msgs they touched, each once, in the order first touched. */
    extend(events: Iterable<WireEvent | UnknownEvent>): Msg[];
}
/** Where a reply stands, read from its Msg (wire.transports.chat.Waiting). */
export interface Waiting {
    replyId: string;
    state: "running" | "parked" | "ended";
    /** Tool calls awaiting a confirmation (state `asking`). */
    confirm: ToolCallBlock[];
    /** Tool calls awaiting an external result (`submitted`, no result block of its id yet). */
    external: ToolCallBlock[];
}
/**
 * What the reply `msg` waits for, as agentscope's agent reads its own state:
 * a tool call in state `asking` awaits a confirmation, one `submitted`
 * without a result block of its id an external result, and a reply that
 * ended (`finished_at`) awaits nothing.
 */
export declare function waiting(msg: Msg): Waiting;
/**
 * The answer to every call of `msg` that awaits a confirmation: all allowed
 * or all denied, or each by its id (`{ "call-1": true }`; a call left out
 * throws LocalProtocolError).
 */
export declare function confirmation(msg: Msg, confirmed: boolean | Record<string, boolean>): UserConfirmResultEvent;
/** An input that answers a reply: it names the reply and goes into the log (wire.transports.chat.Answer). */
export type Answer = UserConfirmResultEvent | ExternalExecutionResultEvent | UserInterruptEvent;
/** What a chat body's `input` holds: a new turn (a Msg, a list of them, or null), or an answer. */
export type ChatInput = Msg | Msg[] | Answer | null;
/**
 * Why a session whose replies are `replies` (in the order they began, as
 * `Conversation.replies` holds them) cannot take `input` now, or `undefined`
 * when it can; the server's reason word for word (wire.transports.chat.refusal),
 * so a page can tell before posting:
 *
 * - an answer must name a reply of the session that waits for that kind of
 *   answer; a confirmation must name only calls that await one, each once
 *   (answering twice is refused); an external result likewise. Answering
 *   some of the waiting calls is taken (the others keep waiting);
 * - an interrupt must name a reply that is running or parked;
 * - a new turn (a Msg, a list of them, or null) is refused while a reply is
 *   parked (answer or interrupt it first) or running.
 */
export declare function refusal(input: ChatInput, replies: ReadonlyMap<string, Msg>): string | undefined;
/** `repr(text)` as Python writes it, so that reasons that quote an id read as the server's do. */
export declare function pyRepr(text: string): string;
/** A user's message: a new turn's input. */
export declare function userMsg(name: string, text: string): Msg;
