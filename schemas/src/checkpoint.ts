/**
 * Resuming. wire's SSE server answers a reconnect that carries
 * `Last-Event-ID` with a checkpoint, a CUSTOM event named `wire.checkpoint`
 * whose value holds the Msg built so far, then the events after it. A client
 * replaces its Msg with `readCheckpoint`'s and goes on applying events.
 */

import type { Msg } from "../wire.js";
import { canonical, copyJson } from "./canonical.js";
import { DecodeError } from "./errors.js";
import { checkMsg } from "./msgcheck.js";
import type { UnknownEvent, WireEvent } from "./events.js";

/** The name of a checkpoint event (wire.resume.CHECKPOINT). */
export const CHECKPOINT = "wire.checkpoint";

/**
 * The Msg a checkpoint event carries (a fresh object, in wire's form), or
 * `undefined` if `event` is no checkpoint. Go on with `appendEvent` for the
 * events after it. A checkpoint whose Msg wire's Python would refuse throws
 * DecodeError naming where (msgcheck.ts; the path is relative to the Msg, as
 * Python's is), so the reducer never meets a value of the wrong type.
 */
export function readCheckpoint(event: WireEvent | UnknownEvent): Msg | undefined {
  if (event.type !== "CUSTOM" || !("name" in event) || event.name !== CHECKPOINT) return undefined;
  const value = event.value ?? {};
  if (!Object.hasOwn(value, "msg")) throw new DecodeError("a checkpoint without a msg", { path: "$.value.msg" });
  return canonical(checkMsg(copyJson(value["msg"])), "msg") as unknown as Msg;
}
