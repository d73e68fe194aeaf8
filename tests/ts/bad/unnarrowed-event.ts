// expect: TS2339 Property 'delta' does not exist on type 'TextBlockStartEvent'
// Narrowing works: a TEXT_BLOCK_START has no delta.
import type { AgentEvent } from "@wire/agentscope-types";

export function deltaOf(event: AgentEvent): string {
  return event.type === "TEXT_BLOCK_START" ? event.delta : "";
}
