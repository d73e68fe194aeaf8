/**
 * Standard padded base64 (RFC 4648 section 4), the form wire and agentscope
 * write bytes in JSON. Hand-written so the runtime needs neither Node's
 * Buffer nor the browser's atob, and checks what it reads.
 */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const CODES = new Uint8Array(128).fill(255);
for (let i = 0; i < ALPHABET.length; i++)
    CODES[ALPHABET.charCodeAt(i)] = i;
const OUTSIDE = /[^A-Za-z0-9+/=]/;
/** Whether `text` is padded standard base64: the alphabet, a length that is a multiple of 4, at most two `=` at the end. */
export function isBase64(text) {
    // One search for a character outside the alphabet, then where the first `=` is: about
    // 1.7x faster in V8 than one anchored pattern over the whole text (benchmarks/ts/bench.mjs).
    if (text.length % 4 !== 0 || OUTSIDE.test(text))
        return false;
    const pad = text.indexOf("=");
    const last = text.length - 1;
    return pad < 0 || pad === last || (pad === last - 1 && text.charCodeAt(last) === 61);
}
/** The base64 of `bytes`. */
export function encodeBase64(bytes) {
    let out = "";
    const full = bytes.length - (bytes.length % 3);
    // Built in pieces of at most 8 KiB of text: one `+=` per piece, not per character.
    let piece = "";
    for (let i = 0; i < full; i += 3) {
        const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
        piece += ALPHABET[n >>> 18] + ALPHABET[(n >>> 12) & 63] + ALPHABET[(n >>> 6) & 63] + ALPHABET[n & 63];
        if (piece.length >= 8192) {
            out += piece;
            piece = "";
        }
    }
    out += piece;
    const rest = bytes.length - full;
    if (rest === 1) {
        const n = bytes[full] << 16;
        out += ALPHABET[n >>> 18] + ALPHABET[(n >>> 12) & 63] + "==";
    }
    else if (rest === 2) {
        const n = (bytes[full] << 16) | (bytes[full + 1] << 8);
        out += ALPHABET[n >>> 18] + ALPHABET[(n >>> 12) & 63] + ALPHABET[(n >>> 6) & 63] + "=";
    }
    return out;
}
/** The bytes of `text`, which must be valid padded base64 (check with `isBase64`). */
export function decodeBase64(text) {
    const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
    const out = new Uint8Array((text.length / 4) * 3 - padding);
    let o = 0;
    for (let i = 0; i < text.length; i += 4) {
        const n = (CODES[text.charCodeAt(i)] << 18) |
            (CODES[text.charCodeAt(i + 1)] << 12) |
            ((CODES[text.charCodeAt(i + 2)] & 63) << 6) |
            (CODES[text.charCodeAt(i + 3)] & 63);
        out[o++] = n >>> 16;
        if (o < out.length)
            out[o++] = (n >>> 8) & 255;
        if (o < out.length)
            out[o++] = n & 255;
    }
    return out;
}
