/**
 * The runtime of @wire/agentscope-types: the reducer, the stream decoders and
 * checkpoints, over the types of `wire.d.ts`. This file is the one export list.
 */
export type * from "../wire.js";
export { decodeBase64, encodeBase64, isBase64 } from "./base64.js";
export { beginReply, CHECKPOINT, joinReply, readCheckpoint, readTurn, RESTART, turn, TURN } from "./checkpoint.js";
export { type FollowOptions, followReply, type ReplyFollower, ReplyRequestError } from "./client.js";
export { type Answer, type Changed, type ChatInput, confirmation, Conversation, refusal, Session, userMsg, type Waiting, waiting, } from "./conversation.js";
export { DecodeError, type ErrorPlace, FrameError, LocalProtocolError, RemoteProtocolError, StreamOrderError, WireError, } from "./errors.js";
export { EVENT_TYPES, UnknownEvent, type UnknownPolicy, type WireEvent, type WithBytes } from "./events.js";
export { type Backoff, ConnectionFailed, type ConnectionOptions, HTTPStatusError, RETRYABLE, } from "./follow.js";
export { MsgpackFrameDecoder } from "./msgpack.js";
export { NDJSONDecoder } from "./ndjson.js";
export { type Anomaly, AnomalyKind, anomaliesOf, appendEvent, type AppendOptions, extendEvents } from "./reducer.js";
export { type JSONValue, PartialJSON, PartialJSONError } from "./partial.js";
export { type Answered, answer, type AnswerOptions, followSession, MAX_ANSWER_BYTES, ResponseTooLarge, type SessionBackoff, type SessionFollower, type SessionOptions, } from "./session.js";
export { connectSession, InputRefused, type SendOptions, type SessionSocket, SOCKET_PROTOCOLS, SocketClosed, type SocketConstructor, type SocketEvent, type SocketLike, type SocketOptions, } from "./socket.js";
export { SSEDecoder, type SSEDecoderOptions } from "./sse.js";
export { DEFAULT_MAX_FRAME_BYTES, type DecoderOptions } from "./streaming.js";
