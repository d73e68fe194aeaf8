from collections import defaultdict
from collections.abc import Callable

import anyio
from anyio.abc import SocketListener
from anyio.streams.buffered import BufferedByteReceiveStream

from wire.framing import MsgpackFrameDecoder, MsgpackFrameEncoder, NDJSONDecoder, NDJSONEncoder, RawFrame, SSEEncoder
from wire.transports.streams import EventReceiveStream, EventSendStream

Decoder = NDJSONDecoder[RawFrame] | MsgpackFrameDecoder[RawFrame]
Encoder = NDJSONEncoder | MsgpackFrameEncoder | SSEEncoder


async def relay(listener: SocketListener, subscribers: int, decoder: Decoder,
                new_encoder: Callable[[], Encoder]) -> None:
    """Send each frame of a producer, bytes untouched, to the subscriber of its reply.

    The first ``subscribers`` connections subscribe: each sends the id of the
    reply it wants and a newline. The next connection is the producer. The
    decoder (``raw=True, peek=True``) gives each frame its envelope, so no
    event is decoded; a bad frame ends the relay with the decoder's error."""
    routes: dict[str, EventSendStream] = {}
    for _ in range(subscribers):
        connection = await listener.accept()
        hello = await BufferedByteReceiveStream(connection).receive_until(b"\n", 1024)
        routes[hello.decode()] = EventSendStream(connection, new_encoder())
    async with await listener.accept() as producer:
        frames = EventReceiveStream(producer, decoder)
        try:
            while True:
                try:
                    batch = await frames.receive_batch()  # every frame read so far
                except anyio.EndOfStream:
                    return
                by_reply: defaultdict[str | None, list[RawFrame]] = defaultdict(list)
                for frame in batch:
                    by_reply[frame.envelope.reply_id].append(frame)
                for reply_id, frames_of_reply in by_reply.items():
                    if reply_id in routes:  # no subscriber, or a CUSTOM event (no reply): dropped
                        await routes[reply_id].send_batch(frames_of_reply)
        finally:
            for route in routes.values():
                await route.aclose()
