// Runs the compiled consumer (out/consumer.js) for tests/test_schema.py.
//
// stdin:  {"cases": [{"events": ["<json line>", ...], "expected": <Msg>}, ...],
//          "invalid": ["<json line>", ...]}
// stdout: {"cases": [{"got": "<rendering of the reply built from the events>",
//                     "streamed": "<the same, read by readReply from the events as SSE>",
//                     "want": "<rendering of the expected Msg>"}, ...],
//          "invalid": ["<message of the error parseEvent threw, or null>", ...]}

import { readFileSync } from "node:fs";

import { Conversation, parseEvent, readReply, renderMsg, startReply } from "./out/consumer.js";

const { cases, invalid } = JSON.parse(readFileSync(0, "utf8"));

const caseResults = [];
for (const { events, expected } of cases) {
  const conversation = new Conversation();
  for (const line of events) conversation.apply(parseEvent(line));
  const reply = conversation.replies.get(expected.id);
  // The same events as a server's SSE stream, fetched from a data: URL.
  const sse = events.map((line) => `data: ${line}\n\n`).join("");
  const url = `data:text/event-stream;base64,${Buffer.from(sse).toString("base64")}`;
  const streamed = await readReply(url, startReply(JSON.parse(events[0])));
  caseResults.push({
    got: reply === undefined ? null : renderMsg(reply),
    streamed: renderMsg(streamed),
    want: renderMsg(expected),
  });
}

const invalidResults = invalid.map((line) => {
  try {
    parseEvent(line);
    return null;
  } catch (error) {
    return String(error.message);
  }
});

process.stdout.write(JSON.stringify({ cases: caseResults, invalid: invalidResults }));
