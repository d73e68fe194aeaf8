// Re-encode every frame of an AG-UI SSE body with @ag-ui/encoder's own
// EventEncoder and write the result to stdout: equal bytes mean wire writes
// exactly what the official encoder writes for the same events.
//
//   node reencode.mjs BODY.sse
import { readFileSync } from "node:fs";
import { EventEncoder } from "@ag-ui/encoder";

const encoder = new EventEncoder();
const text = readFileSync(process.argv[2], "utf8");
const frames = text.split("\n\n").filter((frame) => frame.length > 0);
const out = frames.map((frame) => {
  if (!frame.startsWith("data: ")) throw new Error(`not a data frame: ${frame.slice(0, 40)}`);
  return encoder.encode(JSON.parse(frame.slice("data: ".length)));
});
process.stdout.write(out.join(""));
