"""MessagePack frames over TCP with anyio: a server sends a reply with a
picture, a client rebuilds the Msg (README, "MessagePack frames over TCP with anyio")."""

import anyio
from anyio.abc import SocketAttribute, SocketStream

import wire
from wire.framing import MsgpackFrameDecoder, MsgpackFrameEncoder
from wire.transports.streams import EventReceiveStream, EventSendStream

REPLY = "reply-1"
PICTURE = bytes(range(256)) * 64  # 16 KiB of binary data: no base64 on this wire
EVENTS = [
    wire.ReplyStartEvent(session_id="s1", reply_id=REPLY, name="Friday"),
    wire.TextBlockStartEvent(reply_id=REPLY, block_id="t1"),
    wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="t1", delta="Here is the chart."),
    wire.TextBlockEndEvent(reply_id=REPLY, block_id="t1"),
    wire.DataBlockStartEvent(reply_id=REPLY, block_id="d1", media_type="image/png"),
    *[wire.DataBlockDeltaEvent(reply_id=REPLY, block_id="d1", media_type="image/png",
                               data=PICTURE[i:i + 4096]) for i in range(0, len(PICTURE), 4096)],
    wire.DataBlockEndEvent(reply_id=REPLY, block_id="d1"),
    wire.ReplyEndEvent(session_id="s1", reply_id=REPLY),
]


async def serve(connection: SocketStream) -> None:
    async with connection:
        events = EventSendStream(connection, MsgpackFrameEncoder())
        await events.send(EVENTS[0])           # one frame per write, as produced...
        await events.send_batch(EVENTS[1:])    # ...or a burst in one write


async def main() -> None:
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    port = listener.extra(SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, serve)
        msg = wire.AssistantMsg("Friday", [], id=REPLY)
        async with await anyio.connect_tcp("127.0.0.1", port) as connection:
            async for event in EventReceiveStream(connection, MsgpackFrameDecoder()):
                msg.append_event(event)
        tg.cancel_scope.cancel()
    chart = msg.content[1]
    print(msg.get_text_content(), chart.source.data == PICTURE)  # Here is the chart. True


anyio.run(main)  # or anyio.run(main, backend="trio")
