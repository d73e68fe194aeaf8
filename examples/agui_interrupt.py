"""A CopilotKit (AG-UI) endpoint for a reply that stops to ask the user: two
AG-UI runs, the first ending with an interrupt, the second after the answer
(README, "Serving CopilotKit and useChat frontends")."""

import asyncio
import json

import anyio
import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.routing import Route

import wire
from wire.bridges.agui_http import agui_endpoint
from wire.stores.memory import EventLog

REPLY, SESSION = "reply-1", "session-1"
log = EventLog(wire.AssistantMsg("Friday", [], id=REPLY))
answered = anyio.Event()


async def agent() -> None:
    """An agent that asks before running a tool (your agentscope agent feeds the log instead)."""
    call = wire.ToolCallBlock(id="call-1", name="rm", input='{"path": "/tmp/x"}', state="asking")
    await log.extend([
        wire.ReplyStartEvent(session_id=SESSION, reply_id=REPLY, name="Friday"),
        wire.TextBlockStartEvent(reply_id=REPLY, block_id="t1"),
        wire.TextBlockDeltaEvent(reply_id=REPLY, block_id="t1", delta="Deleting it."),
        wire.TextBlockEndEvent(reply_id=REPLY, block_id="t1"),
        wire.ToolCallStartEvent(reply_id=REPLY, tool_call_id="call-1", tool_call_name="rm"),
        wire.ToolCallDeltaEvent(reply_id=REPLY, tool_call_id="call-1", delta=call.input),
        wire.ToolCallEndEvent(reply_id=REPLY, tool_call_id="call-1"),
        wire.RequireUserConfirmEvent(reply_id=REPLY, tool_calls=[call]),
    ])
    await answered.wait()  # the reply is parked until the user answers
    await log.extend([
        wire.UserConfirmResultEvent(reply_id=REPLY, confirm_results=[
            wire.ConfirmResult(confirmed=True, tool_call=call)]),
        wire.ReplyStartEvent(session_id=SESSION, reply_id=REPLY, name="Friday"),
        wire.ToolResultStartEvent(reply_id=REPLY, tool_call_id="call-1", tool_call_name="rm"),
        wire.ToolResultTextDeltaEvent(reply_id=REPLY, tool_call_id="call-1", delta="removed"),
        wire.ToolResultEndEvent(reply_id=REPLY, tool_call_id="call-1", state="success"),
        wire.ReplyEndEvent(session_id=SESSION, reply_id=REPLY),
    ])
    await log.close()


def find_log(request, run_input):
    if run_input.resume:  # the user's answer (a RunInput's resume entries): pass it on to the agent here
        answered.set()
    return log


app = Starlette(routes=[Route("/agent", agui_endpoint(find_log), methods=["POST"])])


async def run_agent(http: httpx.AsyncClient, **fields) -> list[dict]:
    """What @ag-ui/client's HttpAgent.runAgent does: POST a RunAgentInput, read SSE."""
    body = {"threadId": SESSION, "runId": "client-run", "messages": [], **fields}
    response = await http.post("/agent", json=body)
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]


async def main() -> None:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    serving = asyncio.create_task(server.serve())
    producing = asyncio.create_task(agent())
    while not server.started:
        await asyncio.sleep(0.01)
    base = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    async with httpx.AsyncClient(base_url=base) as http:
        first = await run_agent(http)
        print([e["type"] for e in first][-3:])  # ['TOOL_CALL_ARGS', 'TOOL_CALL_END', 'RUN_FINISHED']
        [interrupt] = first[-1]["outcome"]["interrupts"]
        print(interrupt["id"], interrupt["toolCallId"])  # call-1.confirm call-1
        resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}]
        second = await run_agent(http, resume=resume)
        print(second[0]["runId"], second[-2]["content"], second[-1]["outcome"])  # reply-1.1 removed {'type': 'success'}
    await producing
    server.should_exit = True
    await serving


asyncio.run(main())
