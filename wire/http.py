"""The Starlette helpers under their 0.1 name: see :mod:`wire.transports.http`."""

from wire.transports.http import SSE_HEADERS, ndjson_response, sse_endpoint, sse_response

__all__ = ("SSE_HEADERS", "ndjson_response", "sse_endpoint", "sse_response")
