// Follows one reply with the runtime's followReply and prints what it saw as
// JSON: the final Msg, the events and checkpoints applied, the connections
// made and the reconnections' reasons. The node half of tests/typescript/test_follow_reply.py.
// Usage: node follow-reply.mjs URL [LAST_EVENT_ID] [CLOSE_AFTER_EVENTS] [THROW_AFTER_EVENTS]
import { followReply } from "../../schemas/dist/index.js";

const [url, lastEventId, closeAfter, throwAfter] = process.argv.slice(2);
const seen = { events: 0, checkpoints: 0, types: [], reconnects: [], completed: 0 };
const reply = followReply(url, {
  lastEventId,
  backoff: { initialMs: 20, maxMs: 200, maxAttempts: 3 },
  onEvent(event) {
    seen.events++;
    seen.types.push(event.type === "CUSTOM" ? event.name : event.type);
    if (event.type === "CUSTOM" && event.name === "wire.checkpoint") seen.checkpoints++;
    if (seen.events === Number(closeAfter)) reply.close();
    if (seen.events === Number(throwAfter)) throw new TypeError("a bug in the page's callback");
  },
  onComplete() { seen.completed++; },
  onReconnect(attempt, delayMs, reason) { seen.reconnects.push(String(reason?.cause ?? reason)); },
});
try {
  const msg = await reply.done;
  console.log(JSON.stringify({ ...seen, connections: reply.connections, lastEventId: reply.lastEventId, msg }));
} catch (error) {
  console.log(JSON.stringify({ ...seen, connections: reply.connections, error: `${error.name}: ${error.message}` }));
}
