"""The stores (wire.stores): the in-memory EventLog and the Redis log."""
