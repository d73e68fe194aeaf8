// Validates JSON values against the installed @wire/agentscope-types schemas
// with strict Ajv2020, for tests/test_schema.py: one node process per batch.
//
// stdin:  {"instances": [{"schema": "agent-event.schema.json", "value": ...}, ...]}
// stdout: {"results": [{"valid": bool, "errors": [...], "allErrors": [...]}, ...]}
//
// `errors` comes from the configuration a frontend uses (stop at the first
// failing keyword); `allErrors` from allErrors mode, which reports every
// problem ajv finds, so "exactly one error" there means exactly one problem.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

import Ajv2020 from "ajv/dist/2020.js";

// Resolved through the package's "exports", as a frontend's bundler would.
const require = createRequire(import.meta.url);
const schemaPath = (name) => require.resolve(`@wire/agentscope-types/${name}`);

function validators(options) {
  // strict: true makes every strict-mode finding (unknown keyword, missing
  // type beside a discriminator, ...) a compile error, not a log line.
  const ajv = new Ajv2020({ strict: true, discriminator: true, ...options });
  const cache = new Map();
  return (name) => {
    if (!cache.has(name)) cache.set(name, ajv.compile(JSON.parse(readFileSync(schemaPath(name), "utf8"))));
    return cache.get(name);
  };
}

const firstError = validators({});
const everyError = validators({ allErrors: true });

const simplify = (errors) =>
  (errors ?? []).map(({ instancePath, keyword, params, message }) => ({ instancePath, keyword, params, message }));

const { instances } = JSON.parse(readFileSync(0, "utf8"));
const results = instances.map(({ schema, value }) => {
  const first = firstError(schema);
  const every = everyError(schema);
  const valid = first(value);
  if (every(value) !== valid) throw new Error("allErrors mode disagrees on validity");
  return { valid, errors: simplify(first.errors), allErrors: simplify(every.errors) };
});
process.stdout.write(JSON.stringify({ results }));
