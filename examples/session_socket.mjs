// The browser's half of examples/session_socket.py: the same turn over the
// session's socket, from the TypeScript runtime's connectSession (schemas/,
// built in schemas/dist). A browser has the WebSocket class and sends no
// headers: it proves who it is with a cookie or, here, a token in the URL.
// Node 20 has the same class behind --experimental-websocket (22 and later
// by default). Usage: node --experimental-websocket session_socket.mjs WS_URL
import { confirmation, connectSession, userMsg, waiting } from "../schemas/dist/index.js";

const session = connectSession(process.argv[2], { agentId: "friday", sessionId: "s2" });
await session.send(userMsg("alice", "tidy up"));
let msg = (await session.run({ turn: true })).last; // read up to the park
const asked = waiting(msg).confirm;
console.log(asked[0].name, asked[0].input);
await session.send(confirmation(msg, true));
msg = (await session.run({ turn: true })).last; // the same reply, to its end
console.log(msg.content.at(-1).text, msg.finished_reason);
session.close();
