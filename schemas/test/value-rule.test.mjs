// wire's value rule (wire/_portable.py) in the runtime's stream decoders: the shared vectors in
// tests/vectors/value-rule, which tests/test_portable.py runs through Python's decoders.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { DecodeError, MsgpackFrameDecoder, NDJSONDecoder } from "../dist/index.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { cases } = JSON.parse(readFileSync(join(ROOT, "tests", "vectors", "value-rule", "cases.json"), "utf8"));

for (const c of cases) {
  test(`${c.framing}: ${c.name} is ${c.accepted ? "accepted" : "refused"}`, () => {
    const decoder = c.framing === "ndjson" ? new NDJSONDecoder() : new MsgpackFrameDecoder();
    const data = c.framing === "ndjson" ? `${c.payload}\n` : Uint8Array.from(Buffer.from(c.payload, "hex"));
    if (c.accepted) assert.equal(decoder.feed(data).length, 1);
    else assert.throws(() => decoder.feed(data), DecodeError);
  });
}
