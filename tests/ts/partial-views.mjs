// Reads a JSON array of fragment lists on stdin, feeds each list to the
// runtime's PartialJSON and writes, per list, the view after every fragment,
// then the close() value or the first error: the TypeScript half of
// tests/typescript/test_partial_json_vs_python.py.
import { readFileSync } from "node:fs";

import { PartialJSON, PartialJSONError } from "../../schemas/dist/index.js";

const results = JSON.parse(readFileSync(0, "utf8")).map((fragments) => {
  const parser = new PartialJSON();
  const views = [];
  try {
    for (const fragment of fragments) {
      parser.feed(fragment);
      // A snapshot: the parser's containers keep growing in place.
      const view = parser.value === undefined ? null : { value: parser.value, complete: parser.complete };
      views.push(structuredClone(view));
    }
    return { views, closed: parser.close() };
  } catch (error) {
    if (!(error instanceof PartialJSONError)) throw error;
    return { views, error: { position: error.position, path: error.path } };
  }
});
// JSON.stringify writes Infinity (a number past the largest double) as null; name it instead.
process.stdout.write(JSON.stringify(results, (key, value) =>
  typeof value === "number" && !Number.isFinite(value) ? String(value) : value));
