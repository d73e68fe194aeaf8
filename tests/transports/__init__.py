"""The transports (wire.transports): anyio streams, sockets, relays, HTTP replicas."""
