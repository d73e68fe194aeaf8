"""The anyio adapters and the in-memory event log under their 0.1 name: see
:mod:`wire.transports.streams` and :mod:`wire.stores.memory`."""

from wire.stores.memory import EventLog
from wire.transports.streams import EventReceiveStream, EventSendStream, iter_events

__all__ = ("EventLog", "EventReceiveStream", "EventSendStream", "iter_events")
