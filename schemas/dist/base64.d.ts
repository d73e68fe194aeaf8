/**
 * Standard padded base64 (RFC 4648 section 4), the form wire and agentscope
 * write bytes in JSON. Hand-written so the runtime needs neither Node's
 * Buffer nor the browser's atob, and checks what it reads.
 */
/** Whether `text` is padded standard base64: the alphabet, a length that is a multiple of 4, at most two `=` at the end. */
export declare function isBase64(text: string): boolean;
/** The base64 of `bytes`. */
export declare function encodeBase64(bytes: Uint8Array): string;
/** The bytes of `text`, which must be valid padded base64 (check with `isBase64`). */
export declare function decodeBase64(text: string): Uint8Array;
