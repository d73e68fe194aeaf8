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
import { canonical } from "./canonical.js";
import { CHECKPOINT, readCheckpoint } from "./checkpoint.js";
import { LocalProtocolError } from "./errors.js";
import { UnknownEvent } from "./events.js";
import { appendEvent } from "./reducer.js";
/** The name of a restart event (wire.resume.RESTART): what the reader built before is not this log's. */
export const RESTART = "wire.restart";
/**
 * The Msg a reply begins as, from its REPLY_START: its id, name, role and
 * time (wire.resume.begin_reply). Stores and readers both begin replies this
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
 * Msg with no name, stamped now, as wire.resume.Conversation begins it.
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
/**
 * What a reader of a session keeps (wire.resume.Conversation): the Msg of
 * every reply, in the order the replies began. A REPLY_START of a new reply
 * begins its Msg; a checkpoint replaces the Msg of its reply (or adds it); a
 * restart drops everything; other events go to their reply's Msg (CUSTOM
 * events of no reply are kept in `custom`, in order; unknown events are
 * skipped).
 */
export class Conversation {
    /** Every reply's Msg by reply id, in the order the replies began. */
    replies = new Map();
    /** The CUSTOM events that are neither checkpoints nor restarts, in order. */
    custom = [];
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
     * Apply one event; the Msg of the reply it touched (a checkpoint: the new
     * Msg), or `undefined` for an event of no reply (a restart, another
     * CUSTOM event, an unknown one).
     */
    apply(event) {
        if (event.type === "CUSTOM" && "name" in event) {
            if (event.name === CHECKPOINT) {
                const msg = readCheckpoint(event);
                this.replies.set(msg.id ?? "", msg);
                return msg;
            }
            if (event.name === RESTART) {
                this.replies.clear();
                this.custom.length = 0;
            }
            else {
                this.custom.push(event);
            }
            return undefined;
        }
        const replyId = event.reply_id;
        if (event instanceof UnknownEvent || typeof replyId !== "string")
            return undefined;
        let msg = this.replies.get(replyId);
        if (msg === undefined) {
            msg = openReply(event);
            this.replies.set(replyId, msg);
        }
        appendEvent(msg, event);
        return msg;
    }
    /** `apply` each event in order; the Msgs they touched, each once, in the order first touched. */
    extend(events) {
        const touched = new Set();
        for (const event of events) {
            const msg = this.apply(event);
            if (msg !== undefined)
                touched.add(msg);
        }
        return [...touched];
    }
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
export function refusal(input, replies) {
    if (isAnswer(input)) {
        const msg = replies.get(input.reply_id);
        if (msg === undefined)
            return `the session has no reply ${pyRepr(input.reply_id)}`;
        const state = waiting(msg);
        const id = pyRepr(msg.id ?? "");
        if (state.state === "ended")
            return `reply ${id} is over: it waits for nothing`;
        if (input.type === "USER_INTERRUPT")
            return undefined;
        const [kind, pending, named] = input.type === "USER_CONFIRM_RESULT"
            ? ["confirmation", state.confirm, input.confirm_results.map((result) => result.tool_call.id)]
            : ["external result", state.external, input.execution_results.map((result) => result.id)];
        if (pending.length === 0)
            return `reply ${id} waits for no ${kind}`;
        if (named.length === 0)
            return `the ${kind} answers no tool call`;
        const seen = new Set();
        for (const callId of named) {
            if (seen.has(callId))
                return `the ${kind} names tool call ${pyRepr(callId)} twice`;
            seen.add(callId);
        }
        const awaited = new Set(pending.map((call) => call.id));
        const stray = named.find((callId) => !awaited.has(callId));
        if (stray !== undefined) {
            return `tool call ${pyRepr(stray)} awaits no ${kind} (reply ${id} waits for ${[...awaited].sort(byCodePoint).join(", ")})`;
        }
        return undefined;
    }
    for (const msg of replies.values()) { // any reply, not only the latest: a store may list them in another order
        const state = waiting(msg);
        if (state.state === "parked") {
            const calls = [...state.confirm, ...state.external].map((call) => call.id).join(", ");
            return `reply ${pyRepr(msg.id ?? "")} waits for an answer about ${calls}: answer or interrupt it first`;
        }
        if (state.state === "running")
            return `reply ${pyRepr(msg.id ?? "")} is still running`;
    }
    return undefined;
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
