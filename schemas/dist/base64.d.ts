/**
 * Standard padded base64 (RFC 4648 section 4), the form wire and agentscope
 * write bytes in JSON. Hand-written so the runtime needs neither Node's
 * Buffer nor the browser's atob, and checks what it reads.
 */
/** Whether `text` is padded standard base64: the alphabet, a length that is a multiple of 4, at most two `=` at the end. */
export declare function isBase64(text: string): boolean;
/** The base64 of `bytes`. */
export declare function encodeBase64(bytes: Uint8Array): string;
/**
 * Base64 that grows by chunks: `text` holds every whole 3-byte group so far,
 * `carry` the 0 to 2 bytes after them (`value` their bits, `bytes` how many).
 * The padded base64 of everything is `text + tailBase64(carry)`.
 */
export interface Carry {
    bytes: number;
    value: number;
}
/** The padded base64 of the 0 to 2 bytes a `Carry` holds ("" for none). */
export declare function tailBase64(carry: Carry): string;
/**
 * Append a chunk to growing base64 (`text`, `carry`): raw bytes, or the
 * padded base64 of a chunk (valid: check with `isBase64`). Returns the new
 * text of whole groups; `carry` is updated in place. A base64 chunk after
 * whole groups is joined as it is, up to its padded last group; after 1 or 2
 * carried bytes its groups shift by that many bytes, which is one pass over
 * its characters straight to the shifted characters, never through a byte
 * array (what providers' audio chunks need: each is base64-encoded on its
 * own, and its length is seldom a multiple of 3).
 */
export declare function appendBase64(text: string, carry: Carry, chunk: string | Uint8Array): string;
/** The bytes of `text`, which must be valid padded base64 (check with `isBase64`). */
export declare function decodeBase64(text: string): Uint8Array;
