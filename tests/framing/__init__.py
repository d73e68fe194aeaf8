"""The framings (wire.framing): NDJSON, length-prefixed MessagePack, SSE."""
