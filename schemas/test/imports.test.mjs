// The runtime's modules import one another without a cycle: each one's
// imports (type-only ones too) flow down to modules that do not import it
// back. A cycle is how client.ts and session.ts once shared their loops:
// each imported the other.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..", "src");

/** Each module's local imports and re-exports (`./x.js` names module `x`). */
function graph(files) {
  const edges = new Map();
  for (const [name, text] of files) {
    const found = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']\.\/([\w-]+)\.js["']/g)]
      .map((match) => match[1]);
    edges.set(name, [...new Set(found)]);
  }
  return edges;
}

/** A cycle of the graph as a list of modules (its first repeated last), or undefined. */
function cycle(edges) {
  const state = new Map(); // undefined: not seen; 1: on the current path; 2: done
  const path = [];
  const visit = (name) => {
    state.set(name, 1);
    path.push(name);
    for (const next of edges.get(name) ?? []) {
      if (state.get(next) === 1) return [...path.slice(path.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found) return found;
      }
    }
    path.pop();
    state.set(name, 2);
    return undefined;
  };
  for (const name of [...edges.keys()].sort()) {
    if (state.get(name) === undefined) {
      const found = visit(name);
      if (found) return found;
    }
  }
  return undefined;
}

function sources() {
  return readdirSync(SRC).filter((file) => file.endsWith(".ts"))
    .map((file) => [file.slice(0, -3), readFileSync(join(SRC, file), "utf8")]);
}

test("schemas/src has no import cycle", () => {
  const edges = graph(sources());
  assert.ok(edges.get("index").length > 10, "the imports are read");
  assert.deepEqual(edges.get("client").sort(), ["checkpoint", "events", "follow", "reducer"]);
  assert.equal(cycle(edges), undefined);
});

test("the check finds a cycle, type-only imports and multi-line imports included", () => {
  const files = [
    ["a", 'import { b } from "./b.js";\n'],
    ["b", 'import type {\n  C,\n} from "./c.js";\n'],
    ["c", 'export { a } from "./a.js";\n'],
    ["d", 'import { a } from "./a.js";\n'],
  ];
  assert.deepEqual(cycle(graph(files)), ["a", "b", "c", "a"]);
  assert.equal(cycle(graph(files.slice(0, 2))), undefined);
});
