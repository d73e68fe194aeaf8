/**
 * Resuming. wire's SSE server answers a reconnect that carries
 * `Last-Event-ID` with a checkpoint, a CUSTOM event named `wire.checkpoint`
 * whose value holds the Msg built so far, then the events after it. A client
 * replaces its Msg with `readCheckpoint`'s and goes on applying events.
 */

import type { Msg } from "../wire.js";
import { canonical, copyJson } from "./canonical.js";
import { DecodeError } from "./errors.js";
import type { UnknownEvent, WireEvent } from "./events.js";

/** The name of a checkpoint event (wire.resume.CHECKPOINT). */
export const CHECKPOINT = "wire.checkpoint";

const ROLES: ReadonlySet<unknown> = new Set(["user", "assistant", "system"]);

/**
 * The Msg a checkpoint event carries (a fresh object, in wire's form), or
 * `undefined` if `event` is no checkpoint. Go on with `appendEvent` for the
 * events after it. A checkpoint whose Msg is not one throws DecodeError.
 */
export function readCheckpoint(event: WireEvent | UnknownEvent): Msg | undefined {
  if (event.type !== "CUSTOM" || !("name" in event) || event.name !== CHECKPOINT) return undefined;
  const msg = (event.value ?? {})["msg"];
  if (msg === undefined) throw new DecodeError("a checkpoint without a msg", { path: "$.value.msg" });
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) {
    throw new DecodeError("Expected `object`", { path: "$.value.msg" });
  }
  const copy = copyJson(msg) as Record<string, unknown>;
  if (typeof copy["name"] !== "string") throw new DecodeError("Expected `str`", { path: "$.value.msg.name" });
  if (!ROLES.has(copy["role"])) throw new DecodeError("Invalid role", { path: "$.value.msg.role" });
  if (!Array.isArray(copy["content"])) throw new DecodeError("Expected `array`", { path: "$.value.msg.content" });
  return canonical(copy, "msg") as unknown as Msg;
}
