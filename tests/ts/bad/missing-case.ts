// expect: TS2345 Argument of type 'CustomEvent' is not assignable to parameter of type 'never'
// A switch that forgets an event type fails its exhaustiveness check.
import type { AgentEvent } from "@wire/agentscope-types";

function assertNever(value: never): never {
  throw new Error(String(value));
}

export function isStreamed(event: AgentEvent): boolean {
  switch (event.type) {
    case "TEXT_BLOCK_DELTA":
    case "THINKING_BLOCK_DELTA":
    case "TOOL_CALL_DELTA":
    case "TOOL_RESULT_TEXT_DELTA":
    case "TOOL_RESULT_DATA_DELTA":
    case "DATA_BLOCK_DELTA":
      return true;
    case "REPLY_START":
    case "REPLY_END":
    case "MODEL_CALL_START":
    case "MODEL_CALL_END":
    case "TEXT_BLOCK_START":
    case "TEXT_BLOCK_END":
    case "DATA_BLOCK_START":
    case "DATA_BLOCK_END":
    case "THINKING_BLOCK_START":
    case "THINKING_BLOCK_END":
    case "HINT_BLOCK":
    case "TOOL_CALL_START":
    case "TOOL_CALL_END":
    case "TOOL_RESULT_START":
    case "TOOL_RESULT_END":
    case "EXCEED_MAX_ITERS":
    case "REQUIRE_USER_CONFIRM":
    case "REQUIRE_EXTERNAL_EXECUTION":
    case "USER_CONFIRM_RESULT":
    case "USER_INTERRUPT":
    case "EXTERNAL_EXECUTION_RESULT":
      return false;
    default:
      return assertNever(event); // CUSTOM is missing
  }
}
