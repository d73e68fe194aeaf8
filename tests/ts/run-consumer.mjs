// Runs the compiled consumer (out/consumer.js) for tests/test_schema.py.
//
// stdin:  {"cases": [{"events": ["<json line>", ...], "expected": <Msg>}, ...],
//          "invalid": ["<json line>", ...]}
// stdout: {"cases": [{"got": "<rendering of the reply built from the events>",
//                     "want": "<rendering of the expected Msg>"}, ...],
//          "invalid": ["<message of the error parseEvent threw, or null>", ...]}

import { readFileSync } from "node:fs";

import { Conversation, parseEvent, renderMsg } from "./out/consumer.js";

const { cases, invalid } = JSON.parse(readFileSync(0, "utf8"));

const caseResults = cases.map(({ events, expected }) => {
  const conversation = new Conversation();
  for (const line of events) conversation.apply(parseEvent(line));
  const reply = conversation.replies.get(expected.id);
  return { got: reply === undefined ? null : renderMsg(reply), want: renderMsg(expected) };
});

const invalidResults = invalid.map((line) => {
  try {
    parseEvent(line);
    return null;
  } catch (error) {
    return String(error.message);
  }
});

process.stdout.write(JSON.stringify({ cases: caseResults, invalid: invalidResults }));
