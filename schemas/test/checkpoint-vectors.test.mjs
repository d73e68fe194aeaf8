// Checkpoints as wire's Python reads them (wire.session.checkpoints.read_checkpoint): the shared
// vectors in tests/vectors/checkpoints, which tests/session/test_checkpoint_vectors.py runs in
// Python. A Msg Python refuses is a DecodeError here too (never a TypeError, then or later in the
// reducer); one it accepts comes out as the same wire JSON.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { DecodeError, extendEvents, readCheckpoint } from "../dist/index.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { cases } = JSON.parse(readFileSync(join(ROOT, "tests", "vectors", "checkpoints", "cases.json"), "utf8"));

const checkpoint = (msg) => ({ type: "CUSTOM", name: "wire.checkpoint", value: { msg } });

for (const c of cases) {
  test(`${c.name}: ${c.accepted ? "accepted" : `refused at ${c.path}`}`, () => {
    if (!c.accepted) {
      assert.throws(() => readCheckpoint(checkpoint(structuredClone(c.msg))), (error) => {
        assert.ok(error instanceof DecodeError, `${error.name}: ${error.message}`);
        assert.equal(error.path, c.path);
        return true;
      });
      return;
    }
    const msg = readCheckpoint(checkpoint(structuredClone(c.msg)));
    assert.equal(JSON.stringify(msg), c.wire_json);
    // and the reducer goes on from it
    extendEvents(msg, [{ type: "TEXT_BLOCK_START", reply_id: msg.id, block_id: "new", created_at: "t" },
      { type: "TEXT_BLOCK_DELTA", reply_id: msg.id, block_id: "new", delta: "x", created_at: "t" }]);
    assert.equal(msg.content.at(-1).text, "x");
  });
}

test("the vectors hold every kind of case", () => {
  assert.ok(cases.filter((c) => !c.accepted).length >= 50);
  assert.ok(cases.filter((c) => c.accepted).length >= 10);
});
