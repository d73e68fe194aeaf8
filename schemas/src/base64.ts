/**
 * Standard padded base64 (RFC 4648 section 4), the form wire and agentscope
 * write bytes in JSON. Hand-written so the runtime needs neither Node's
 * Buffer nor the browser's atob, and checks what it reads.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const CODES = new Uint8Array(128).fill(255);
for (let i = 0; i < ALPHABET.length; i++) CODES[ALPHABET.charCodeAt(i)] = i;

const OUTSIDE = /[^A-Za-z0-9+/=]/;

/** Whether `text` is padded standard base64: the alphabet, a length that is a multiple of 4, at most two `=` at the end. */
export function isBase64(text: string): boolean {
  // One search for a character outside the alphabet, then where the first `=` is: about
  // 1.7x faster in V8 than one anchored pattern over the whole text (benchmarks/ts/bench.mjs).
  if (text.length % 4 !== 0 || OUTSIDE.test(text)) return false;
  const pad = text.indexOf("=");
  const last = text.length - 1;
  return pad < 0 || pad === last || (pad === last - 1 && text.charCodeAt(last) === 61);
}

/** The base64 of `bytes`. */
export function encodeBase64(bytes: Uint8Array): string {
  const carry: Carry = { bytes: 0, value: 0 };
  return appendBase64("", carry, bytes) + tailBase64(carry);
}

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
export function tailBase64(carry: Carry): string {
  const v = carry.value;
  if (carry.bytes === 1) return ALPHABET[v >>> 2]! + ALPHABET[(v & 3) << 4]! + "==";
  if (carry.bytes === 2) return ALPHABET[v >>> 10]! + ALPHABET[(v >>> 4) & 63]! + ALPHABET[(v & 15) << 2]! + "=";
  return "";
}

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
export function appendBase64(text: string, carry: Carry, chunk: string | Uint8Array): string {
  if (typeof chunk === "string") {
    if (chunk.length === 0) return text;
    const pad = chunk.charCodeAt(chunk.length - 1) !== 61 ? 0 : chunk.charCodeAt(chunk.length - 2) === 61 ? 2 : 1;
    const whole = pad ? chunk.length - 4 : chunk.length; // characters of whole groups
    if (carry.bytes === 0) text += pad ? chunk.slice(0, whole) : chunk;
    else text += shifted(chunk, whole, carry);
    if (pad) {
      // the last group's 1 or 2 bytes (low bits past them are ignored, as decoders do)
      const a = CODES[chunk.charCodeAt(whole)]!, b = CODES[chunk.charCodeAt(whole + 1)]!;
      if (pad === 2) text = push(text, carry, (a << 2) | (b >>> 4), 1);
      else text = push(text, carry, (a << 10) | (b << 4) | (CODES[chunk.charCodeAt(whole + 2)]! >>> 2), 2);
    }
    return text;
  }
  let at = 0;
  while (carry.bytes !== 0 && at < chunk.length) text = push(text, carry, chunk[at++]!, 1);
  const end = chunk.length - ((chunk.length - at) % 3);
  const out = buffer(((end - at) / 3) * 4);
  let o = 0;
  for (let i = at; i < end; i += 3) {
    o = group(out, o, (chunk[i]! << 16) | (chunk[i + 1]! << 8) | chunk[i + 2]!);
  }
  text += ascii(out, o);
  for (let i = end; i < chunk.length; i++) text = push(text, carry, chunk[i]!, 1);
  return text;
}

/** The characters of `chunk`'s first `whole` characters (whole groups) once shifted by the carried bytes, which take its last 1 or 2 bytes in their place. */
function shifted(chunk: string, whole: number, carry: Carry): string {
  const out = buffer((whole / 4) * 4);
  let o = 0;
  let p = carry.value;
  const keep = carry.bytes * 8; // bits carried: 8 or 16
  const mask = (1 << keep) - 1;
  for (let i = 0; i < whole; i += 4) {
    const n =
      (CODES[chunk.charCodeAt(i)]! << 18) |
      (CODES[chunk.charCodeAt(i + 1)]! << 12) |
      (CODES[chunk.charCodeAt(i + 2)]! << 6) |
      CODES[chunk.charCodeAt(i + 3)]!;
    o = group(out, o, (p << (24 - keep)) | (n >>> keep));
    p = n & mask;
  }
  carry.value = p;
  return ascii(out, o);
}

/** Add `count` (1 or 2) bytes holding `value` after the carried ones; a whole group goes to the text. */
function push(text: string, carry: Carry, value: number, count: number): string {
  let bytes = carry.bytes + count;
  let v = carry.value * (1 << (8 * count)) + value; // at most 4 bytes: a float keeps them exact
  if (bytes >= 3) {
    const rest = 2 ** (8 * (bytes - 3));
    const n = Math.floor(v / rest);
    text += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]! + ALPHABET[n & 63]!;
    v %= rest;
    bytes -= 3;
  }
  carry.bytes = bytes;
  carry.value = v;
  return text;
}

const CHARS = new Uint8Array(64);
for (let i = 0; i < 64; i++) CHARS[i] = ALPHABET.charCodeAt(i);

function group(out: Uint8Array, o: number, n: number): number {
  out[o] = CHARS[n >>> 18]!;
  out[o + 1] = CHARS[(n >>> 12) & 63]!;
  out[o + 2] = CHARS[(n >>> 6) & 63]!;
  out[o + 3] = CHARS[n & 63]!;
  return o + 4;
}

// One scratch buffer for the characters, grown as needed: a chunk's text is
// made from it by one TextDecoder call (the characters are ASCII), not
// character by character.
let scratch = new Uint8Array(8192);
const LATIN1 = new TextDecoder("latin1");

function buffer(size: number): Uint8Array {
  if (scratch.length < size) scratch = new Uint8Array(Math.max(size, scratch.length * 2));
  return scratch;
}

function ascii(out: Uint8Array, length: number): string {
  return length === 0 ? "" : LATIN1.decode(out.subarray(0, length));
}

/** The bytes of `text`, which must be valid padded base64 (check with `isBase64`). */
export function decodeBase64(text: string): Uint8Array {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const n =
      ((CODES[text.charCodeAt(i)] as number) << 18) |
      ((CODES[text.charCodeAt(i + 1)] as number) << 12) |
      (((CODES[text.charCodeAt(i + 2)] as number) & 63) << 6) |
      ((CODES[text.charCodeAt(i + 3)] as number) & 63);
    out[o++] = n >>> 16;
    if (o < out.length) out[o++] = (n >>> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}
