"""A CopilotKit (AG-UI) endpoint over a session: a thread is a session and
each run one reply. A reply that stops to ask the user is two runs, the first
ending with an interrupt, the second after the answer; the next turn in the
same thread is a reply of its own (README, "Serving CopilotKit and useChat
frontends")."""

import asyncio
import contextlib
import json

import anyio
import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.routing import Route

import wire
from wire.blocks import ToolCallBlock, ToolCallState
from wire.bridges.agui_http import agui_endpoint
from wire.stores.memory import EventLog

logs = {"thread-1": EventLog()}  # one log per session (an AG-UI thread): every reply, every answer


async def agent(log, chat):
    """Stands in for your agent: asks before it deletes a file, then goes on."""
    s, value = chat.session_id, chat.input
    if isinstance(value, wire.UserConfirmResultEvent):  # the answer: the parked reply goes on, same id
        r, said = value.reply_id, "Deleted." if value.confirm_results[0].confirmed else "Kept it."
        await log.extend([wire.ReplyStartEvent(session_id=s, reply_id=r, name="Friday"),
                          wire.TextBlockStartEvent(reply_id=r, block_id=f"{r}-t"),
                          wire.TextBlockDeltaEvent(reply_id=r, block_id=f"{r}-t", delta=said),
                          wire.TextBlockEndEvent(reply_id=r, block_id=f"{r}-t"),
                          wire.ReplyEndEvent(session_id=s, reply_id=r)])
        return
    r = f"r{len(log.replies) + 1}"  # a new turn (value: the user's Msgs)
    call = ToolCallBlock(id=f"{r}-c", name="delete_file", input='{"path": "a.txt"}', state=ToolCallState.ASKING)
    await log.extend([wire.ReplyStartEvent(session_id=s, reply_id=r, name="Friday"),
                      wire.ToolCallStartEvent(reply_id=r, tool_call_id=call.id, tool_call_name=call.name),
                      wire.ToolCallDeltaEvent(reply_id=r, tool_call_id=call.id, delta=call.input),
                      wire.ToolCallEndEvent(reply_id=r, tool_call_id=call.id),
                      wire.RequireUserConfirmEvent(reply_id=r, tool_calls=[call])])


@contextlib.asynccontextmanager
async def lifespan(app):
    async with anyio.create_task_group() as tg:
        app.state.tasks = tg
        yield
        tg.cancel_scope.cancel()


def find_log(request, chat):
    return logs.get(chat.session_id)  # the thread's id


def on_input(chat, log, request):  # the turn or answer is in the log already: start the agent, return
    request.app.state.tasks.start_soon(agent, log, chat)


app = Starlette(lifespan=lifespan, routes=[Route("/agent", agui_endpoint(find_log, on_input), methods=["POST"])])


async def run_agent(http: httpx.AsyncClient, messages: list[dict], **fields) -> list[dict]:
    """What @ag-ui/client's HttpAgent.runAgent does: POST a RunAgentInput with the thread's messages, read SSE."""
    body = {"threadId": "thread-1", "runId": "client-run", "messages": messages, **fields}
    response = await http.post("/agent", json=body)
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]


async def main() -> None:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    base = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    async with httpx.AsyncClient(base_url=base) as http:
        thread = [{"id": "u1", "role": "user", "content": "tidy up"}]
        first = await run_agent(http, thread)
        [interrupt] = first[-1]["outcome"]["interrupts"]
        print(first[0]["runId"], interrupt["id"])  # r1 r1-c.confirm
        resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}]
        second = await run_agent(http, thread, resume=resume)
        print(second[0]["runId"], second[-3]["delta"], second[-1]["outcome"])  # r1.1 Deleted. {'type': 'success'}
        thread.append({"id": "u2", "role": "user", "content": "and b.txt?"})  # HttpAgent keeps the replies too
        third = await run_agent(http, thread)
        print(third[0]["runId"], third[-1]["outcome"]["type"])  # r2 interrupt
    server.should_exit = True
    await serving


asyncio.run(main())
