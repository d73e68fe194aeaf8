/**
 * A session's state and rules, sans-IO: no fetch, no timers. The TypeScript
 * side of wire.session (`Session`, `waiting`, `confirmation`, and
 * `Session.refusal` with the same messages), with the same behaviour.
 *
 * A session's log holds its replies one after another (or interleaved); a
 * reply parks at REQUIRE_USER_CONFIRM / REQUIRE_EXTERNAL_EXECUTION, the
 * client's answer goes into the log, and the reply goes on with the same
 * reply id. A new turn is written as a `wire.turn` event before its reply
 * begins. A reader feeds every event it reads to `Session.apply`, which keeps
 * each reply's Msg in the order the replies began and what the session waits
 * for; `waiting(msg)` reads what a reply waits for from its Msg, and
 * `session.refusal(input)` says, before posting, why the session would refuse
 * an input (or `undefined`). The followers (session.ts, client.ts) are this
 * module plus the reconnect loop of follow.ts.
 */
import type { CustomEvent, ExternalExecutionResultEvent, Msg, ToolCallBlock, UserConfirmResultEvent, UserInterruptEvent } from "../wire.js";
import { UnknownEvent, type WireEvent } from "./events.js";
/** What a batch applied to a `Session` changed (wire.session.Changed). */
export interface Changed {
    /** The replies it touched, in the order it first touched them; a checkpoint counts only when it changed its reply's Msg. */
    replies: string[];
    /** Whether a reply began, was taken on, ended or parked in it, a pending turn was withdrawn, or a restart dropped everything. */
    turned: boolean;
}
/**
 * The state of one session, built from its log's events in order
 * (wire.session.Session, with the same rules):
 *
 * - `replies`: every reply's Msg by reply id, in the order the replies
 *   began. A REPLY_START of a new reply begins its Msg (`beginReply`); an
 *   event of a reply never begun here joins it (`joinReply`); a checkpoint
 *   replaces its reply's Msg (or adds it); a `wire.restart` drops everything.
 * - `open`: the replies between their start (or answer) and their end or park.
 * - `turn`: the `wire.turn` written whose reply has not begun yet; a
 *   USER_INTERRUPT naming its id withdraws it (and makes no reply of it).
 * - `interrupted`: replies a USER_INTERRUPT named that have not ended since:
 *   their wait is over, so nothing more is taken for them.
 * - `custom`: CUSTOM events of no reply, in order (turns included), but
 *   checkpoints and restarts; events of a type this runtime does not know are skipped.
 * - `closed`: set by whoever knows the session is closed; every input is refused then.
 *
 * What only wire's stores keep (`last_id`, `positions`, `copy`, `adopt`) is left out.
 */
export declare class Session {
    /** Every reply's Msg by reply id, in the order the replies began. */
    readonly replies: Map<string, Msg>;
    /** The replies between their start (or answer) and their end or park. */
    readonly open: Set<string>;
    /** The `wire.turn` event whose reply has not begun yet. */
    turn: CustomEvent | undefined;
    /** The replies a USER_INTERRUPT named that have not ended since. */
    readonly interrupted: Set<string>;
    /** The CUSTOM events that are neither checkpoints nor restarts, in order. */
    readonly custom: CustomEvent[];
    /** Whether the session is closed: every input is refused. */
    closed: boolean;
    constructor(...msgs: Msg[]);
    /** The Msg of the reply that began last. */
    get last(): Msg | undefined;
    /**
     * Apply `events` in order; what they changed. A checkpoint of the Msg this
     * session holds already (a reconnect's) changes nothing; a checkpoint
     * whose Msg is not one throws DecodeError. Each event is applied on its
     * own, so any split of a log into batches builds the same state.
     */
    apply(events: Iterable<WireEvent | UnknownEvent>): Changed;
    /** The name wire.resume.Conversation had: `apply`. */
    extend(events: Iterable<WireEvent | UnknownEvent>): Changed;
    /** A CUSTOM event: the reply a checkpoint changed, RESTART, or undefined. */
    private custom_;
    /** An event of reply `replyId`; whether the reply began, was taken on, ended or parked. */
    private one;
    /**
     * Why the session cannot take `input` now, or `undefined` when it can; the
     * server's reason word for word (wire.session.Session.refusal), so a page
     * can tell before posting:
     *
     * - nothing is taken once the session is closed;
     * - an answer must name a reply of the session that waits for that kind of
     *   answer; a confirmation must name only calls that await one, each once
     *   (answering twice is refused); an external result likewise. Answering
     *   some of the waiting calls is taken (the others keep waiting). A reply
     *   that was interrupted waits for nothing more;
     * - an interrupt must name a reply that is running or parked (and not
     *   interrupted already), or the pending turn;
     * - a new turn (a Msg, a list of them, or null) is refused while a turn is
     *   pending (its reply has not begun: a double submit), or a reply is
     *   parked (answer or interrupt it first) or running.
     */
    refusal(input: ChatInput): string | undefined;
    /**
     * Whether a reader's run is over: the reply asked for (or, for a turn, the
     * latest reply, once the reader had news of it: `news` holds the replies
     * it had news of) has ended or parked (wire.session.Session.finished).
     */
    finished(options: {
        turn?: boolean;
        replyId?: string;
    }, news?: ReadonlySet<string>): boolean;
    private answerRefusal;
}
/** The old name of `Session` (wire.resume.Conversation is wire.session.Session too). */
export { Session as Conversation };
/** Where a reply stands, read from its Msg (wire.session.Waiting). */
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
/** An input that answers a reply: it names the reply and goes into the log (wire.session.Answer). */
export type Answer = UserConfirmResultEvent | ExternalExecutionResultEvent | UserInterruptEvent;
/** What a chat body's `input` holds: a new turn (a Msg, a list of them, or null), or an answer. */
export type ChatInput = Msg | Msg[] | Answer | null;
/**
 * Why a session of `replies` alone (no pending turn, no interrupt, not
 * closed) cannot take `input` now, or `undefined` (wire.transports.chat.refusal):
 * `new Session(...replies.values()).refusal(input)`. A reader that keeps a
 * `Session` asks it instead, which knows the rest.
 */
export declare function refusal(input: ChatInput, replies: ReadonlyMap<string, Msg>): string | undefined;
/** `repr(text)` as Python writes it, so that reasons that quote an id read as the server's do. */
export declare function pyRepr(text: string): string;
/** A user's message: a new turn's input. */
export declare function userMsg(name: string, text: string): Msg;
