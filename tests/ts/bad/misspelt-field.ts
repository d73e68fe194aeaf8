// expect: TS2551 Property 'detla' does not exist on type 'TextBlockDeltaEvent'
// Reading a misspelt field fails: the event types have no index signature.
import type { AgentEvent } from "@wire/agentscope-types";

export function deltaOf(event: AgentEvent): string {
  return event.type === "TEXT_BLOCK_DELTA" ? event.detla : "";
}
