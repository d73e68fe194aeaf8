/**
 * The JSON value of a text that is still arriving: a streaming tool call's
 * input, parsed as its fragments come, in time linear in its length.
 *
 * The same parser as wire's Python `wire.partial_json.PartialJSON`, with the
 * same rules, run on the same vectors (tests/vectors/partial-json):
 *
 * - strings appear as soon as they open and grow as they stream; an escape
 *   split between fragments waits for its last character, a `\uD83D` escape
 *   for the low surrogate that may follow it;
 * - objects and arrays appear when they open; an object member appears once
 *   its key is complete and its value has begun;
 * - numbers, `true`, `false` and `null` appear once complete: `12` may still
 *   become `123`, so a number waits for the character after it (for a number
 *   alone at the top level, that is `close()`).
 *
 * So the value only ever grows towards the final one. Each fragment is read
 * once: containers are updated in place and the open string grows by
 * concatenation (constant time in JavaScript engines), so N fragments cost
 * O(total length), where re-parsing the buffer per fragment costs O(N x length).
 */
import { DecodeError, LocalProtocolError } from "./errors.js";
/**
 * Text that is not JSON, or not JSON yet when `close()` says it has ended: a
 * DecodeError whose `position` is the index (in UTF-16 code units, as JavaScript
 * indexes strings) of the offending character in the whole text fed so far,
 * and whose `path` says where in the value (`$.days[2]`).
 */
export class PartialJSONError extends DecodeError {
    name = "PartialJSONError";
    position;
    constructor(reason, position, path) {
        super(reason, { path });
        this.position = position;
        this.message = this.render();
    }
    render() {
        // Called by the base constructor too, before position is set.
        return this.position === undefined ? super.render() : `${this.reason} (character ${this.position}, at ${this.path})`;
    }
}
const NUMBER_MOVES = [
    { "-": 1 /* N.Minus */, "0": 2 /* N.Zero */, "1": 3 /* N.Int */ }, // Start
    { "0": 2 /* N.Zero */, "1": 3 /* N.Int */ }, // Minus
    { ".": 4 /* N.Dot */, e: 6 /* N.E */ }, // Zero
    { "0": 3 /* N.Int */, "1": 3 /* N.Int */, ".": 4 /* N.Dot */, e: 6 /* N.E */ }, // Int
    { "0": 5 /* N.Frac */, "1": 5 /* N.Frac */ }, // Dot
    { "0": 5 /* N.Frac */, "1": 5 /* N.Frac */, e: 6 /* N.E */ }, // Frac
    { "-": 7 /* N.ESign */, "+": 7 /* N.ESign */, "0": 8 /* N.Exp */, "1": 8 /* N.Exp */ }, // E
    { "0": 8 /* N.Exp */, "1": 8 /* N.Exp */ }, // ESign
    { "0": 8 /* N.Exp */, "1": 8 /* N.Exp */ }, // Exp
];
const NUMBER_ENDS = new Set([2 /* N.Zero */, 3 /* N.Int */, 5 /* N.Frac */, 8 /* N.Exp */]);
function numberClass(char) {
    if (char >= "1" && char <= "9")
        return "1";
    switch (char) {
        case "0":
        case "-":
        case "+":
        case ".": return char;
        case "e":
        case "E": return "e";
        default: return undefined;
    }
}
const ESCAPES = {
    '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t",
};
const LITERALS = {
    t: ["true", true], f: ["false", false], n: ["null", null],
};
const WHITESPACE = /[ \t\n\r]*/y;
const PLAIN = /[^"\\\u0000-\u001f]+/y; // string characters that need no decoding
const HEX = /^[0-9a-fA-F]$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * An incremental JSON parser whose `value` is the value parsed so far:
 * `feed(fragment)` as fragments come, read `value` whenever the view is
 * needed, `close()` when the text has ended. One instance per text (per tool
 * call); after an error, or after `close()`, `feed` throws LocalProtocolError.
 *
 * ```ts
 * const view = new PartialJSON();
 * view.feed('{"city": "Par');   // view.value: { city: "Par" }
 * view.feed('is", "days": [1'); // view.value: { city: "Paris", days: [] }
 * view.feed(", 2]}");           // view.value: { city: "Paris", days: [1, 2] }
 * ```
 */
export class PartialJSON {
    #mode = 0 /* Mode.Value */;
    #offset = 0; // characters fed before the current fragment
    #root = undefined;
    // Open containers, outermost first, and for each its current key (objects) or undefined (arrays).
    #stack = [];
    #keys = [];
    #string = "";
    #stringIsKey = false;
    #escape = "";
    #high = -1; // a high surrogate escape waiting for its pair, or -1
    #number = "";
    #numberState = 0 /* N.Start */;
    #literal = "";
    #literalValue = null;
    #matched = 0;
    #closed = false;
    #error = undefined;
    /**
     * The value parsed so far, open strings, arrays and objects closed;
     * `undefined` before any value has begun. The containers are the parser's
     * own and keep growing in place (copy them to keep a snapshot).
     */
    get value() {
        return this.#root;
    }
    /** Whether the whole top-level value has been read. */
    get complete() {
        return this.#mode === 6 /* Mode.Done */;
    }
    /** The number of characters (UTF-16 code units) fed so far. */
    get length() {
        return this.#offset;
    }
    /**
     * Parse the next fragment. Throws PartialJSONError at the first character
     * that cannot be JSON; `value` then still holds what came before it.
     */
    feed(fragment) {
        if (this.#error !== undefined)
            throw new LocalProtocolError("feed() after a PartialJSONError: the text is not JSON");
        if (this.#closed)
            throw new LocalProtocolError("feed() after close()");
        try {
            this.#parse(fragment);
        }
        catch (error) {
            if (error instanceof PartialJSONError)
                this.#error = error;
            throw error;
        }
        this.#offset += fragment.length;
    }
    /** End the text and return the complete value; throws PartialJSONError if it stopped inside a value. */
    close() {
        if (this.#error !== undefined)
            throw new LocalProtocolError("close() after a PartialJSONError: the text is not JSON");
        if (!this.#closed) {
            this.#closed = true;
            if (this.#mode === 9 /* Mode.Number */ && NUMBER_ENDS.has(this.#numberState) && this.#stack.length === 0) {
                this.#endNumber(this.#offset);
            }
            if (this.#mode !== 6 /* Mode.Done */) {
                const empty = this.#mode === 0 /* Mode.Value */ && this.#stack.length === 0;
                this.#error = this.#fail(empty ? "no JSON value" : "the JSON text ends inside a value", this.#offset);
                throw this.#error;
            }
        }
        return this.#root;
    }
    #parse(text) {
        let i = 0;
        const n = text.length;
        while (i < n) {
            const mode = this.#mode;
            if (mode === 7 /* Mode.String */) {
                i = this.#stringRun(text, i, n);
                continue;
            }
            if (mode === 8 /* Mode.Escape */) {
                i = this.#escapeRun(text, i, n);
                continue;
            }
            if (mode === 9 /* Mode.Number */) {
                i = this.#numberRun(text, i, n);
                continue;
            }
            if (mode === 10 /* Mode.Literal */) {
                i = this.#literalRun(text, i, n);
                continue;
            }
            WHITESPACE.lastIndex = i;
            WHITESPACE.test(text);
            i = WHITESPACE.lastIndex;
            if (i === n)
                break;
            const char = text[i];
            const at = this.#offset + i;
            if (mode === 5 /* Mode.After */) {
                const isObject = !Array.isArray(this.#stack[this.#stack.length - 1]);
                if (char === ",") {
                    this.#mode = isObject ? 3 /* Mode.Key */ : 0 /* Mode.Value */;
                }
                else if (char === (isObject ? "}" : "]")) {
                    this.#endContainer();
                }
                else {
                    throw this.#fail(`expected ',' or '${isObject ? "}" : "]"}' after a value, not ${quote(char)}`, at);
                }
                i += 1;
            }
            else if (mode === 0 /* Mode.Value */ || mode === 1 /* Mode.ValueOrEnd */) {
                if (char === "]" && mode === 1 /* Mode.ValueOrEnd */) {
                    this.#endContainer();
                    i += 1;
                }
                else {
                    i = this.#beginValue(char, i, at);
                }
            }
            else if (mode === 3 /* Mode.Key */ || mode === 2 /* Mode.KeyOrEnd */) {
                if (char === '"') {
                    this.#beginString(true);
                }
                else if (char === "}" && mode === 2 /* Mode.KeyOrEnd */) {
                    this.#endContainer();
                }
                else {
                    const expected = mode === 2 /* Mode.KeyOrEnd */ ? "a key or '}'" : "a key";
                    throw this.#fail(`expected ${expected} (a string), not ${quote(char)}`, at);
                }
                i += 1;
            }
            else if (mode === 4 /* Mode.Colon */) {
                if (char !== ":")
                    throw this.#fail(`expected ':' after an object key, not ${quote(char)}`, at);
                this.#mode = 0 /* Mode.Value */;
                i += 1;
            }
            else {
                throw this.#fail(`extra data after the JSON value: ${quote(char)}`, at);
            }
        }
    }
    #beginValue(char, i, at) {
        if (char === '"') {
            this.#beginString(false);
            this.#placeNew("");
            return i + 1;
        }
        if (char === "{" || char === "[") {
            const container = char === "{" ? {} : [];
            this.#placeNew(container);
            this.#stack.push(container);
            this.#keys.push(undefined);
            this.#mode = char === "{" ? 2 /* Mode.KeyOrEnd */ : 1 /* Mode.ValueOrEnd */;
            return i + 1;
        }
        if (char === "-" || (char >= "0" && char <= "9")) {
            this.#number = "";
            this.#numberState = 0 /* N.Start */;
            this.#mode = 9 /* Mode.Number */;
            return i;
        }
        const literal = LITERALS[char];
        if (literal !== undefined) {
            [this.#literal, this.#literalValue] = literal;
            this.#matched = 0;
            this.#mode = 10 /* Mode.Literal */;
            return i;
        }
        throw this.#fail(`expected a JSON value, not ${quote(char)}`, at);
    }
    #beginString(isKey) {
        this.#string = "";
        this.#stringIsKey = isKey;
        this.#mode = 7 /* Mode.String */;
    }
    /** Append decoded text to the open string, and show it if it is a value. */
    #grow(piece) {
        this.#string += piece;
        if (!this.#stringIsKey)
            this.#place(this.#string);
    }
    #stringRun(text, i, n) {
        PLAIN.lastIndex = i;
        if (PLAIN.test(text)) {
            if (this.#high >= 0)
                this.#flushHigh();
            this.#grow(text.slice(i, PLAIN.lastIndex));
            i = PLAIN.lastIndex;
            if (i === n)
                return i;
        }
        const char = text[i];
        if (char === '"') {
            this.#endString();
        }
        else if (char === "\\") {
            this.#escape = "\\";
            this.#mode = 8 /* Mode.Escape */;
        }
        else {
            throw this.#fail(`control character ${quote(char)} in a string: it must be escaped`, this.#offset + i);
        }
        return i + 1;
    }
    #escapeRun(text, i, n) {
        let escape = this.#escape;
        for (; i < n; i++) {
            const char = text[i];
            if (escape.length === 1) {
                if (char === "u") {
                    escape = "\\u";
                    continue;
                }
                const decoded = ESCAPES[char];
                if (decoded === undefined)
                    throw this.#fail(`invalid escape '\\${char}' in a string`, this.#offset + i);
                if (this.#high >= 0)
                    this.#flushHigh();
                this.#grow(decoded);
                this.#mode = 7 /* Mode.String */;
                return i + 1;
            }
            if (!HEX.test(char)) {
                throw this.#fail(`invalid \\u escape: ${quote(char)} is not a hex digit`, this.#offset + i);
            }
            escape += char;
            if (escape.length === 6) {
                this.#codeUnit(parseInt(escape.slice(2), 16));
                this.#mode = 7 /* Mode.String */;
                return i + 1;
            }
        }
        this.#escape = escape;
        return i;
    }
    /** One \uXXXX escape; a high surrogate waits to see whether its low one follows, so that the view never ends in half a character. */
    #codeUnit(unit) {
        if (this.#high >= 0) {
            if (unit >= 0xdc00 && unit <= 0xdfff) {
                this.#grow(String.fromCharCode(this.#high, unit));
                this.#high = -1;
                return;
            }
            this.#flushHigh();
        }
        if (unit >= 0xd800 && unit <= 0xdbff)
            this.#high = unit;
        else
            this.#grow(String.fromCharCode(unit));
    }
    #flushHigh() {
        const high = this.#high;
        this.#high = -1;
        this.#grow(String.fromCharCode(high)); // a lone surrogate, as JSON.parse keeps it
    }
    #endString() {
        if (this.#high >= 0)
            this.#flushHigh();
        const text = this.#string;
        this.#string = "";
        if (this.#stringIsKey) {
            this.#keys[this.#keys.length - 1] = text;
            this.#mode = 4 /* Mode.Colon */;
        }
        else {
            this.#place(text);
            this.#endValue();
        }
    }
    #numberRun(text, i, n) {
        let state = this.#numberState;
        const start = i;
        for (; i < n; i++) {
            const cls = numberClass(text[i]);
            if (cls === undefined)
                break;
            const moved = NUMBER_MOVES[state][cls];
            if (moved === undefined) {
                const before = this.#number + text.slice(start, i);
                throw this.#fail(`invalid number: ${quote(text[i])} cannot follow ${quote(before)}`, this.#offset + i);
            }
            state = moved;
        }
        this.#number += text.slice(start, i);
        this.#numberState = state;
        if (i < n)
            this.#endNumber(this.#offset + i); // a character that is not part of a number ends it
        return i;
    }
    #endNumber(at) {
        if (!NUMBER_ENDS.has(this.#numberState))
            throw this.#fail(`incomplete number ${quote(this.#number)}`, at);
        this.#placeNew(Number(this.#number));
        this.#endValue();
    }
    #literalRun(text, i, n) {
        const want = this.#literal.slice(this.#matched);
        const take = text.slice(i, Math.min(n, i + want.length));
        for (let k = 0; k < take.length; k++) {
            if (take[k] !== want[k])
                throw this.#fail(`invalid literal: expected '${this.#literal}'`, this.#offset + i + k);
        }
        this.#matched += take.length;
        if (this.#matched === this.#literal.length) {
            this.#placeNew(this.#literalValue);
            this.#endValue();
        }
        return i + take.length;
    }
    /** Put a value that has just begun where it belongs. */
    #placeNew(value) {
        const container = this.#stack[this.#stack.length - 1];
        if (container === undefined)
            this.#root = value;
        else if (Array.isArray(container))
            container.push(value);
        else
            setMember(container, this.#keys[this.#keys.length - 1], value);
    }
    /** Replace the value being parsed (the open string) with `value`. */
    #place(value) {
        const container = this.#stack[this.#stack.length - 1];
        if (container === undefined)
            this.#root = value;
        else if (Array.isArray(container))
            container[container.length - 1] = value;
        else
            setMember(container, this.#keys[this.#keys.length - 1], value);
    }
    #endValue() {
        this.#mode = this.#stack.length > 0 ? 5 /* Mode.After */ : 6 /* Mode.Done */;
    }
    #endContainer() {
        this.#stack.pop();
        this.#keys.pop();
        this.#endValue();
    }
    #fail(reason, position) {
        return new PartialJSONError(reason, position, this.#path());
    }
    /** Where the parser is, as a JSON path: the keys and indexes of the open containers down to the value being read. */
    #path() {
        let path = "$";
        const last = this.#stack.length - 1;
        const mode = this.#mode;
        const readingKey = mode === 3 /* Mode.Key */ || mode === 2 /* Mode.KeyOrEnd */
            || (this.#stringIsKey && (mode === 7 /* Mode.String */ || mode === 8 /* Mode.Escape */));
        this.#stack.forEach((container, depth) => {
            const innermost = depth === last;
            if (Array.isArray(container)) {
                // The innermost array's next item is not placed yet while the parser waits for it or reads a number or literal.
                const pending = innermost && (mode === 0 /* Mode.Value */ || mode === 1 /* Mode.ValueOrEnd */ || mode === 9 /* Mode.Number */
                    || mode === 10 /* Mode.Literal */);
                if (container.length > 0 || pending)
                    path += `[${pending ? container.length : container.length - 1}]`;
            }
            else {
                const key = this.#keys[depth];
                if (key !== undefined && !(innermost && readingKey)) {
                    path += IDENTIFIER.test(key) ? `.${key}` : `[${asciiJSON(key)}]`;
                }
            }
        });
        return path;
    }
}
/** obj[key] = value as JSON.parse does it: "__proto__" is an own member, not the prototype. */
function setMember(obj, key, value) {
    if (key === "__proto__") {
        Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
    }
    else {
        obj[key] = value;
    }
}
/** A string as JSON with every character past '~' escaped, as wire's Python paths write it (json.dumps). */
function asciiJSON(text) {
    return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
/** A character or text as Python's repr shows it in wire's messages: 'x'. */
function quote(text) {
    return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n")}'`;
}
