// The runtime's PartialJSON on the vectors wire's Python PartialJSON runs
// (tests/model/test_partial_json.py): the same views after each fragment, the same
// errors at the same character and path. Run by `npm test`.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

import { PartialJSON, PartialJSONError } from "../dist/index.js";

const VECTORS = new URL("../../tests/vectors/partial-json/", import.meta.url);

function checkView(parser, step, where) {
  if ("value" in step) {
    // JSON.stringify keeps key order; deepEqual alone would not check it.
    assert.equal(JSON.stringify(parser.value), JSON.stringify(step.value), where);
    assert.deepEqual(parser.value, step.value, where);
  } else {
    assert.equal(parser.value, undefined, where);
  }
  assert.equal(parser.complete, step.complete ?? false, where);
}

for (const file of readdirSync(VECTORS).filter((name) => name.endsWith(".json")).sort()) {
  const { cases } = JSON.parse(readFileSync(new URL(file, VECTORS), "utf8"));
  for (const vector of cases) {
    test(`${file}: ${vector.name}`, () => {
      const parser = new PartialJSON();
      for (const [number, step] of vector.steps.entries()) {
        const where = `step ${number} (${JSON.stringify(step.feed)})`;
        if (step.error) {
          assert.throws(() => parser.feed(step.feed), (error) => {
            assert.ok(error instanceof PartialJSONError, String(error));
            assert.deepEqual([error.position, error.path], [step.error.position, step.error.path]);
            return true;
          });
          checkView(parser, step, where);
          assert.throws(() => parser.feed(""), /after a PartialJSONError/);
          return;
        }
        parser.feed(step.feed);
        checkView(parser, step, where);
      }
      if (vector.close.error) {
        assert.throws(() => parser.close(), (error) => {
          assert.ok(error instanceof PartialJSONError);
          assert.deepEqual([error.position, error.path], [vector.close.error.position, vector.close.error.path]);
          return true;
        });
      } else {
        const value = parser.close();
        assert.equal(JSON.stringify(value), JSON.stringify(vector.close.value));
        assert.throws(() => parser.feed("x"), /after close/);
      }
    });
  }
}

test("a __proto__ member is an own property, as JSON.parse makes it", () => {
  const parser = new PartialJSON();
  parser.feed('{"__proto__": {"x": 1}}');
  const value = parser.close();
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.ok(Object.hasOwn(value, "__proto__"));
  assert.deepEqual(value, JSON.parse('{"__proto__": {"x": 1}}'));
});
