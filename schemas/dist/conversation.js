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
import { canonical, copyJson } from "./canonical.js";
import { beginReply, CHECKPOINT, joinReply, readCheckpoint, RESTART, TURN } from "./checkpoint.js";
import { LocalProtocolError } from "./errors.js";
import { UnknownEvent } from "./events.js";
import { appendEvent } from "./reducer.js";
// The events after which a reply waits or is over (agentscope.app.channel._stream).
const TERMINAL = new Set(["REPLY_END", "REQUIRE_USER_CONFIRM", "REQUIRE_EXTERNAL_EXECUTION"]);
// The events with which a reply begins, or is taken on after its park.
const OPENING = new Set(["REPLY_START", "USER_CONFIRM_RESULT", "EXTERNAL_EXECUTION_RESULT"]);
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
export class Session {
    /** Every reply's Msg by reply id, in the order the replies began. */
    replies = new Map();
    /** The replies between their start (or answer) and their end or park. */
    open = new Set();
    /** The `wire.turn` event whose reply has not begun yet. */
    turn = undefined;
    /** The replies a USER_INTERRUPT named that have not ended since. */
    interrupted = new Set();
    /** The CUSTOM events that are neither checkpoints nor restarts, in order. */
    custom = [];
    /** Whether the session is closed: every input is refused. */
    closed = false;
    constructor(...msgs) {
        for (const msg of msgs)
            this.replies.set(msg.id ?? "", msg);
    }
    /** The Msg of the reply that began last. */
    get last() {
        let last;
        for (const msg of this.replies.values())
            last = msg;
        return last;
    }
    /**
     * Apply `events` in order; what they changed. A checkpoint of the Msg this
     * session holds already (a reconnect's) changes nothing; a checkpoint
     * whose Msg is not one throws DecodeError. Each event is applied on its
     * own, so any split of a log into batches builds the same state.
     */
    apply(events) {
        if (typeof events?.[Symbol.iterator] !== "function") {
            throw new LocalProtocolError("Session.apply takes a list of events: apply([event]) for one");
        }
        const touched = new Set();
        let turned = false;
        for (const event of events) {
            if (event instanceof UnknownEvent)
                continue; // a type this runtime does not know
            if (event.type === "CUSTOM") { // of no reply
                const changed = this.custom_(event);
                if (changed === RESTART) {
                    touched.clear();
                    turned = true;
                }
                else if (changed !== undefined) {
                    touched.add(changed);
                }
                continue;
            }
            const replyId = event.reply_id;
            if (typeof replyId !== "string")
                continue;
            if (event.type === "USER_INTERRUPT" && this.turn !== undefined && this.turn.id === replyId) {
                // The interrupt of a turn whose reply never began (its agent failed to start): the turn is
                // withdrawn, and no reply is made of its id.
                this.turn = undefined;
                turned = true;
                continue;
            }
            touched.add(replyId);
            turned = this.one(replyId, event) || turned;
        }
        return { replies: [...touched], turned };
    }
    /** The name wire.resume.Conversation had: `apply`. */
    extend(events) {
        return this.apply(events);
    }
    /** A CUSTOM event: the reply a checkpoint changed, RESTART, or undefined. */
    custom_(event) {
        if (event.name === CHECKPOINT) {
            const msg = readCheckpoint(event);
            const id = msg.id ?? "";
            const held = this.replies.get(id);
            if (held !== undefined && sameMsg(held, msg))
                return undefined; // a reconnect's checkpoint of what is held: no news
            this.replies.set(id, msg);
            return id;
        }
        if (event.name === RESTART) {
            this.replies.clear();
            this.open.clear();
            this.interrupted.clear();
            this.custom.length = 0;
            this.turn = undefined;
            return RESTART;
        }
        if (event.name === TURN)
            this.turn = event;
        this.custom.push(event);
        return undefined;
    }
    /** An event of reply `replyId`; whether the reply began, was taken on, ended or parked. */
    one(replyId, event) {
        let msg = this.replies.get(replyId);
        if (msg === undefined) {
            msg = event.type === "REPLY_START" ? beginReply(event) : joinReply(replyId);
            this.replies.set(replyId, msg);
            if (event.type === "REPLY_START")
                this.turn = undefined; // the pending turn's reply has begun
        }
        appendEvent(msg, event);
        if (TERMINAL.has(event.type)) {
            // Even for a reply not open here (one taken on from a checkpoint and ended at once, as an
            // interrupted park is): a store checkpoints the end or park.
            this.open.delete(replyId);
            if (event.type === "REPLY_END")
                this.interrupted.delete(replyId);
            return true;
        }
        if (OPENING.has(event.type) && !this.open.has(replyId)) {
            this.open.add(replyId);
            return true;
        }
        if (event.type === "USER_INTERRUPT")
            this.interrupted.add(replyId);
        return false;
    }
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
    refusal(input) {
        if (this.closed)
            return "the session is closed";
        if (isAnswer(input))
            return this.answerRefusal(input);
        if (this.turn !== undefined) {
            return `turn ${pyRepr(this.turn.id ?? "")} is waiting for its reply to begin: ` +
                "wait for it, or interrupt it (a USER_INTERRUPT naming the turn's id)";
        }
        for (const msg of this.replies.values()) { // any reply, not only the latest: interleaved replies
            const state = waiting(msg);
            if (state.state === "parked" && !this.interrupted.has(msg.id ?? "")) {
                const calls = [...state.confirm, ...state.external].map((call) => call.id).join(", ");
                return `reply ${pyRepr(msg.id ?? "")} waits for an answer about ${calls}: answer or interrupt it first`;
            }
            if (state.state !== "ended")
                return `reply ${pyRepr(msg.id ?? "")} is still running`;
        }
        return undefined;
    }
    /**
     * Whether a reader's run is over: the reply asked for (or, for a turn, the
     * latest reply, once the reader had news of it: `news` holds the replies
     * it had news of) has ended or parked (wire.session.Session.finished).
     */
    finished(options, news = new Set()) {
        let replyId = options.replyId;
        if (replyId === undefined && options.turn) {
            const last = this.last;
            if (last === undefined || !news.has(last.id ?? ""))
                return false;
            replyId = last.id ?? "";
        }
        if (replyId === undefined)
            return false;
        const msg = this.replies.get(replyId);
        return msg !== undefined && waiting(msg).state !== "running";
    }
    answerRefusal(input) {
        if (input.type === "USER_INTERRUPT" && this.turn !== undefined && this.turn.id === input.reply_id)
            return undefined;
        const msg = this.replies.get(input.reply_id);
        if (msg === undefined)
            return `the session has no reply ${pyRepr(input.reply_id)}`;
        const state = waiting(msg);
        const id = pyRepr(msg.id ?? "");
        if (state.state === "ended")
            return `reply ${id} is over: it waits for nothing`;
        if (this.interrupted.has(msg.id ?? ""))
            return `reply ${id} was interrupted: it waits for nothing more`;
        if (input.type === "USER_INTERRUPT")
            return undefined;
        const [kind, pending, named] = input.type === "USER_CONFIRM_RESULT"
            ? ["confirmation", state.confirm, input.confirm_results.map((result) => result.tool_call.id)]
            : ["external result", state.external, input.execution_results.map((result) => result.id)];
        if (pending.length === 0)
            return `reply ${id} waits for no ${kind}`;
        const seen = new Set();
        for (const callId of named) {
            if (seen.has(callId))
                return `the ${kind} names tool call ${pyRepr(callId)} twice`;
            seen.add(callId);
        }
        if (named.length === 0)
            return `the ${kind} answers no tool call`;
        const awaited = new Set(pending.map((call) => call.id));
        const stray = named.find((callId) => !awaited.has(callId));
        if (stray !== undefined) {
            return `tool call ${pyRepr(stray)} awaits no ${kind} (reply ${id} waits for ${[...awaited].sort(byCodePoint).join(", ")})`;
        }
        return undefined;
    }
}
/** The old name of `Session` (wire.resume.Conversation is wire.session.Session too). */
export { Session as Conversation };
/** Whether two Msgs are equal as wire's Python compares them: the same fields, objects' keys in any order. */
function sameMsg(held, msg) {
    // The held Msg may be one a caller gave, not in wire's form: compare a copy in that form.
    return sameJson(canonical(copyJson(held), "msg"), msg);
}
function sameJson(a, b) {
    if (a === b)
        return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null)
        return false;
    if (Array.isArray(a) || Array.isArray(b)) {
        if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length)
            return false;
        return a.every((item, i) => sameJson(item, b[i]));
    }
    const x = a;
    const y = b;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length)
        return false;
    return keys.every((key) => Object.hasOwn(y, key) && sameJson(x[key], y[key]));
}
/**
 * What the reply `msg` waits for, as agentscope's agent reads its own state:
 * a tool call in state `asking` awaits a confirmation, one `submitted`
 * without a result block of its id an external result, and a reply that
 * ended (`finished_at`) awaits nothing.
 */
export function waiting(msg) {
    const replyId = msg.id ?? "";
    if (msg.finished_at != null)
        return { replyId, state: "ended", confirm: [], external: [] };
    const results = new Set(msg.content.filter((block) => block.type === "tool_result").map((block) => block.id));
    const confirm = [];
    const external = [];
    for (const block of msg.content) {
        if (block.type !== "tool_call")
            continue;
        if (block.state === "asking")
            confirm.push(block);
        else if (block.state === "submitted" && !results.has(block.id))
            external.push(block);
    }
    return { replyId, state: confirm.length || external.length ? "parked" : "running", confirm, external };
}
/**
 * The answer to every call of `msg` that awaits a confirmation: all allowed
 * or all denied, or each by its id (`{ "call-1": true }`; a call left out
 * throws LocalProtocolError).
 */
export function confirmation(msg, confirmed) {
    const results = waiting(msg).confirm.map((call) => {
        const allowed = typeof confirmed === "boolean" ? confirmed : confirmed[call.id];
        if (typeof allowed !== "boolean")
            throw new LocalProtocolError(`no decision for tool call ${JSON.stringify(call.id)}`);
        return { confirmed: allowed, tool_call: call };
    });
    return { type: "USER_CONFIRM_RESULT", reply_id: msg.id ?? "", confirm_results: results };
}
const ANSWERS = new Set(["USER_CONFIRM_RESULT", "EXTERNAL_EXECUTION_RESULT", "USER_INTERRUPT"]);
function isAnswer(input) {
    return input !== null && !Array.isArray(input) && ANSWERS.has(input.type);
}
/**
 * Why a session of `replies` alone (no pending turn, no interrupt, not
 * closed) cannot take `input` now, or `undefined` (wire.transports.chat.refusal):
 * `new Session(...replies.values()).refusal(input)`. A reader that keeps a
 * `Session` asks it instead, which knows the rest.
 */
export function refusal(input, replies) {
    return new Session(...replies.values()).refusal(input);
}
/** Python's string order (by code point), which `sorted` uses; JavaScript's sort compares UTF-16 units. */
function byCodePoint(a, b) {
    const x = [...a];
    const y = [...b];
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const d = x[i].codePointAt(0) - y[i].codePointAt(0);
        if (d !== 0)
            return d;
    }
    return x.length - y.length;
}
// Python's str.isprintable is false for these categories, but for the space.
const UNPRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;
/** `repr(text)` as Python writes it, so that reasons that quote an id read as the server's do. */
export function pyRepr(text) {
    const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
    let out = quote;
    for (const ch of text) {
        const code = ch.codePointAt(0);
        if (ch === quote || ch === "\\")
            out += "\\" + ch;
        else if (ch === "\n")
            out += "\\n";
        else if (ch === "\r")
            out += "\\r";
        else if (ch === "\t")
            out += "\\t";
        else if (ch !== " " && UNPRINTABLE.test(ch)) {
            out += code < 0x100 ? `\\x${hex(code, 2)}` : code < 0x10000 ? `\\u${hex(code, 4)}` : `\\U${hex(code, 8)}`;
        }
        else
            out += ch;
    }
    return out + quote;
}
function hex(code, width) {
    return code.toString(16).padStart(width, "0");
}
/** A user's message: a new turn's input. */
export function userMsg(name, text) {
    return { name, content: [{ type: "text", text, id: randomId() }], role: "user", id: randomId(),
        created_at: new Date().toISOString() };
}
function randomId() {
    const bytes = new Uint8Array(12);
    globalThis.crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
