// expect: TS2339 Property 'text' does not exist on type 'ContentBlock'
// A block's fields are reachable only after narrowing on its `type`.
import type { Msg } from "@wire/agentscope-types";

export function firstText(msg: Msg): string | undefined {
  return msg.content[0]?.text;
}
