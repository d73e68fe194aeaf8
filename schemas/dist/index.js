/**
 * The runtime of @wire/agentscope-types: the reducer, the stream decoders and
 * checkpoints, over the types of `wire.d.ts`. This file is the one export list.
 */
export { decodeBase64, encodeBase64, isBase64 } from "./base64.js";
export { beginReply, CHECKPOINT, joinReply, readCheckpoint, readTurn, RESTART, turn, TURN } from "./checkpoint.js";
export { followReply, ReplyRequestError } from "./client.js";
export { confirmation, Conversation, refusal, Session, userMsg, waiting, } from "./conversation.js";
export { DecodeError, FrameError, LocalProtocolError, RemoteProtocolError, StreamOrderError, WireError, } from "./errors.js";
export { EVENT_TYPES, UnknownEvent } from "./events.js";
export { ConnectionFailed, HTTPStatusError, RETRYABLE, } from "./follow.js";
export { MsgpackFrameDecoder } from "./msgpack.js";
export { NDJSONDecoder } from "./ndjson.js";
export { AnomalyKind, anomaliesOf, appendEvent, extendEvents } from "./reducer.js";
export { PartialJSON, PartialJSONError } from "./partial.js";
export { answer, followSession, MAX_ANSWER_BYTES, ResponseTooLarge, } from "./session.js";
export { connectSession, InputRefused, SOCKET_PROTOCOLS, SocketClosed, } from "./socket.js";
export { SSEDecoder } from "./sse.js";
export { DEFAULT_MAX_FRAME_BYTES } from "./streaming.js";
