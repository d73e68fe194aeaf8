"""Transports: wire's sans-IO framings over real IO.

* :mod:`wire.transports.streams`: event streams over anyio byte streams (TCP,
  TLS, memory streams) and over any async iterable of chunks (``aio`` extra).
* :mod:`wire.transports.http`: Starlette responses and endpoints serving a
  store as SSE or NDJSON (``http`` extra).
"""
