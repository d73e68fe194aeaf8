"""The chat with confirmations of examples/chat_confirmations.py over one
WebSocket per conversation: the session's socket, its Python client, and the
TypeScript runtime's connectSession as a browser runs it
(examples/session_socket.mjs, under node: README, "A chat with confirmations")."""

import asyncio
import contextlib
import subprocess
from pathlib import Path

import anyio
import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute

import wire
from wire.blocks import ToolCallBlock, ToolCallState
from wire.stores.memory import EventLog
from wire.transports.chat import confirmation, waiting
from wire.transports.ws import session_socket
from wire.transports.ws_client import SessionSocket

logs = {"s1": EventLog(), "s2": EventLog()}  # one log per session: every reply, every answer
TOKENS = {"alice-token": "alice"}  # what your login handed out


async def agent(log, chat):
    """Stands in for your agent: asks to delete a file, then goes on."""
    s, value = chat.session_id, chat.input
    if isinstance(value, wire.UserConfirmResultEvent):  # the answer: same reply id
        said = "Deleted." if value.confirm_results[0].confirmed else "Kept it."
        await log.extend([wire.ReplyStartEvent(session_id=s, reply_id=value.reply_id, name="Friday"),
                          wire.TextBlockStartEvent(reply_id=value.reply_id, block_id="t"),
                          wire.TextBlockDeltaEvent(reply_id=value.reply_id, block_id="t", delta=said),
                          wire.TextBlockEndEvent(reply_id=value.reply_id, block_id="t"),
                          wire.ReplyEndEvent(session_id=s, reply_id=value.reply_id)])
        return
    call = ToolCallBlock(id="c1", name="delete_file", input='{"path": "a.txt"}', state=ToolCallState.ASKING)
    await log.extend([wire.ReplyStartEvent(session_id=s, reply_id="r1", name="Friday"),
                      wire.ToolCallStartEvent(reply_id="r1", tool_call_id="c1", tool_call_name="delete_file"),
                      wire.ToolCallDeltaEvent(reply_id="r1", tool_call_id="c1", delta=call.input),
                      wire.ToolCallEndEvent(reply_id="r1", tool_call_id="c1"),
                      wire.RequireUserConfirmEvent(reply_id="r1", tool_calls=[call])])


@contextlib.asynccontextmanager
async def lifespan(app):
    async with anyio.create_task_group() as tg:
        app.state.tasks = tg
        yield
        tg.cancel_scope.cancel()


def find_log(websocket):
    return logs.get(websocket.path_params["session_id"])


def on_input(chat, log, websocket):  # a turn or an answer, in the log already: start the agent, return
    websocket.app.state.tasks.start_soon(agent, log, chat)


def authorize(websocket, session_id):  # your check; a browser sends a cookie or a query token, not headers
    user = websocket.headers.get("x-user-id") or TOKENS.get(websocket.query_params.get("token", ""))
    return user == "alice"


app = Starlette(lifespan=lifespan, routes=[
    WebSocketRoute("/sessions/{session_id}/socket", session_socket(find_log, on_input, authorize=authorize)),
])


async def main() -> None:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    base = f"ws://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    async with SessionSocket(f"{base}/sessions/s1/socket", headers={"x-user-id": "alice"}) as socket:
        await socket.send(wire.UserMsg("alice", "tidy up"), agent_id="friday", session_id="s1")
        msg = (await socket.run(turn=True)).last  # read up to the park
        asked = waiting(msg).confirm
        print(asked[0].name, asked[0].input)  # delete_file {"path": "a.txt"}
        await socket.send(confirmation(msg, True), agent_id="friday", session_id="s1")
        msg = (await socket.run(turn=True)).last  # the same reply, to its end
        print(msg.get_text_content(), msg.finished_reason)  # Deleted. completed
    # The browser's client, the same turn in session s2 (node 20 wants the flag for its WebSocket class):
    browser = Path(__file__).with_name("session_socket.mjs")
    node = await asyncio.create_subprocess_exec("node", "--experimental-websocket", browser,
                                                f"{base}/sessions/s2/socket?token=alice-token",
                                                stdout=subprocess.PIPE)
    out = (await node.communicate())[0].decode()
    if node.returncode:
        raise SystemExit(f"{browser.name} failed ({node.returncode}); is node 20 or later on the PATH?")
    asked, said = out.splitlines()
    print(asked)  # delete_file {"path": "a.txt"}
    print(said)  # Deleted. completed
    server.should_exit = True
    await serving


asyncio.run(main())
