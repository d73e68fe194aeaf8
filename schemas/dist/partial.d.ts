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
import { DecodeError } from "./errors.js";
/** A JSON value as `JSON.parse` returns it. */
export type JSONValue = null | boolean | number | string | JSONValue[] | {
    [key: string]: JSONValue;
};
/**
 * Text that is not JSON, or not JSON yet when `close()` says it has ended: a
 * DecodeError whose `position` is the index (in UTF-16 code units, as JavaScript
 * indexes strings) of the offending character in the whole text fed so far,
 * and whose `path` says where in the value (`$.days[2]`).
 */
export declare class PartialJSONError extends DecodeError {
    name: string;
    readonly position: number;
    constructor(reason: string, position: number, path: string);
    render(): string;
}
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
export declare class PartialJSON {
    #private;
    /**
     * The value parsed so far, open strings, arrays and objects closed;
     * `undefined` before any value has begun. The containers are the parser's
     * own and keep growing in place (copy them to keep a snapshot).
     */
    get value(): JSONValue | undefined;
    /** Whether the whole top-level value has been read. */
    get complete(): boolean;
    /** The number of characters (UTF-16 code units) fed so far. */
    get length(): number;
    /**
     * Parse the next fragment. Throws PartialJSONError at the first character
     * that cannot be JSON; `value` then still holds what came before it.
     */
    feed(fragment: string): void;
    /** End the text and return the complete value; throws PartialJSONError if it stopped inside a value. */
    close(): JSONValue;
}
