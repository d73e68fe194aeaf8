/**
 * The check a Msg read from the wire passes (a checkpoint's), as wire's
 * Python decoder makes it: `wire.json.decode_msg`, msgspec's typed decoding
 * of `wire.messages.Msg` and its blocks, then their `__post_init__` rules
 * (the role table, URLs normalized). Whatever Python refuses throws
 * DecodeError here, with the path Python's error names (relative to the Msg:
 * `$.content[1].output[0].id`); whatever it accepts passes, so the reducer
 * never meets a value of the wrong type. tests/vectors/checkpoints holds
 * both languages to the same cases.
 *
 * Like msgspec, it reads an object's keys in the order they come (the first
 * bad field found is the one named), takes a tagged block's `type` first,
 * reports a missing required field after the fields present, and ignores
 * keys that are no field. The value rule on numbers (wire/_portable.py) is
 * the stream decoders' (streaming.ts, msgpack.ts): a JavaScript number cannot
 * tell `1` from `1.0`, so a decoded value is taken as JSON gave it.
 */
type Obj = Record<string, unknown>;
/** Checks `value` (at `path`) and returns it, or a normalized copy (a URL). */
type Check = (value: unknown, path: string) => unknown;
/**
 * A URL as agentscope stores it (WHATWG URL serialization, which pydantic's
 * AnyUrl follows too, as wire._url does), or undefined when it is not an
 * absolute URL.
 */
export declare function normalizeUrl(url: string): string | undefined;
/** Any content block, as `wire.blocks.ContentBlock` decodes. */
export declare const checkBlock: Check;
/**
 * Check the blocks and structs an event of `type` holds (a hint's blocks, the
 * tool calls of REQUIRE_*, ...) as Python decodes them, in place (URLs
 * normalized); throws DecodeError at Python's path (`$.tool_calls[0].id`).
 */
export declare function checkEventBlocks(type: string, event: Obj): void;
/**
 * Check `value` as wire's Python decodes a Msg, in place (URLs are
 * normalized as Python's decoder writes them); throws DecodeError with the
 * path Python names, relative to the Msg (`$`, `$.content[0].id`).
 */
export declare function checkMsg(value: unknown): Obj;
export {};
