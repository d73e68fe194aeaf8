"""A useChat (Vercel AI SDK) backend over a session: each POST is one turn's
reply, ending where it ends or stops to ask the user; the answer goes on
in the next POST (README, "Serving CopilotKit and useChat frontends")."""

import asyncio
import contextlib
import json

import anyio
import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.routing import Route

import wire
from wire.bridges.vercel_http import chat_endpoint, resume_endpoint
from wire.stores.memory import EventLog

sessions = {"chat-1": EventLog()}  # one log per chat: every turn, reply and answer


async def agent(log, chat):
    """Stands in for your agent: asks before deleting a file, then goes on."""
    s, value = chat.session_id, chat.input
    if isinstance(value, wire.UserConfirmResultEvent):  # the answer: same reply id
        r, said = value.reply_id, "Deleted." if value.confirm_results[0].confirmed else "Kept it."
        await log.extend([wire.ReplyStartEvent(session_id=s, reply_id=r, name="Friday"),
                          wire.TextBlockStartEvent(reply_id=r, block_id="t2"),
                          wire.TextBlockDeltaEvent(reply_id=r, block_id="t2", delta=said),
                          wire.TextBlockEndEvent(reply_id=r, block_id="t2"),
                          wire.ReplyEndEvent(session_id=s, reply_id=r)])
        return
    call = wire.ToolCallBlock(id="c1", name="delete_file", input='{"path": "a.txt"}', state="asking")
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


def find_log(request, chat=None):
    return sessions.get(chat.session_id if chat else request.path_params["id"])


def on_input(chat, log, request):  # every door's hook: the input is in the log; start the agent
    request.app.state.tasks.start_soon(agent, log, chat)


app = Starlette(lifespan=lifespan, routes=[
    Route("/api/chat", chat_endpoint(find_log, on_input), methods=["POST"]),
    Route("/api/chat/{id}/stream", resume_endpoint(find_log)),
])


async def send(http, messages):
    """What useChat's DefaultChatTransport does: POST the history, read the UI message stream."""
    response = await http.post("/api/chat", json={"id": "chat-1", "messages": messages, "trigger": "submit-message"})
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: {")]


async def main() -> None:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    base = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    async with httpx.AsyncClient(base_url=base) as http:
        user = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "tidy up"}]}
        chunks = await send(http, [user])
        print([c["type"] for c in chunks][-2:])  # ['tool-approval-request', 'finish']
        # The user clicks Allow: useChat posts the assistant message with the answered part.
        answered = {"id": "r1", "role": "assistant", "parts": [
            {"type": "tool-delete_file", "toolCallId": "c1", "state": "approval-responded",
             "input": {"path": "a.txt"}, "approval": {"id": "c1.confirm", "approved": True}}]}
        chunks = await send(http, [user, answered])
        said = [c["delta"] for c in chunks if c["type"] == "text-delta"]
        print(said, chunks[-1]["finishReason"])  # ['Deleted.'] stop
        print((await http.get("/api/chat/chat-1/stream")).status_code)  # 204
    server.should_exit = True
    await serving


asyncio.run(main())
