// expect: TS2561 'blockId' does not exist in type 'TextBlockDeltaEvent'
// Writing a misspelt key fails too (an excess property of an object literal).
import type { TextBlockDeltaEvent } from "@wire/agentscope-types";

export const event: TextBlockDeltaEvent = { type: "TEXT_BLOCK_DELTA", reply_id: "r", blockId: "b", delta: "Hi" };
