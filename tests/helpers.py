"""What the test modules share, in one place (test modules import from here,
never from each other; Hypothesis strategies live in ``tests/strategies.py``).

* the agentscope 2.0.11 vectors (``tests/vectors``): ``CASES``, the standalone
  messages, and ``CATALOG``, one event of each of the 28 types;
* a reply to build: ``REPLY``, ``initial_msg`` and ``text_reply``;
* stream decoders: ``run`` (a decoder to its outcome), ``cut`` and ``mutate`` (bytes
  split anywhere, or damaged); the framings are ``wire.framing.FRAMINGS``;
* wire's JSON against agentscope's: ``field_default``, ``assert_same_json``,
  and ``check_fields`` for a model's fields against a table;
* the reducer's anomalies, one bad event each: ``ANOMALIES``, and
  ``mask_apply_time`` for the fields wire deliberately takes from events;
* ``growth_ratio``: how a cost grows from n to 4n, for the linear-time tests;
* ``expect(cls, value)``: ``value``, asserted to be a ``cls``;
* ``needs_npm(folder)`` / ``require_npm(folder)``: a test that runs node against
  ``folder/node_modules`` fails with one line naming the missing step.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import pytest

import wire
from wire.events import AgentEvent
from wire.framing import SSEDecoder, StreamDecoder

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")


def expect(cls: type[T], value: object) -> T:
    """``value``, asserted to be a ``cls``: the test says which block or event
    it expects where the model can only say "one of these"."""
    assert isinstance(value, cls), f"expected a {cls.__name__}, got {type(value).__name__}"
    return value


# -- the vectors --------------------------------------------------------------------------------

VECTORS = Path(__file__).parent / "vectors" / "agentscope-2.0.11"
MESSAGES = VECTORS / "_messages"
CASE_DIRS = sorted(p for p in VECTORS.iterdir() if p.is_dir() and not p.name.startswith("_"))


@dataclass(frozen=True)
class Case:
    """One reply recorded from agentscope: its events and the Msg they build."""

    name: str
    path: Path

    @property
    def events_jsonl(self) -> bytes:
        return (self.path / "events.jsonl").read_bytes()

    @property
    def event_lines(self) -> list[bytes]:
        return [line for line in self.events_jsonl.splitlines() if line.strip()]

    @property
    def initial_msg(self) -> bytes:
        return (self.path / "initial_msg.json").read_bytes()

    @property
    def expected_msg(self) -> bytes:
        return (self.path / "expected_msg.json").read_bytes()

    @property
    def sse(self) -> bytes | None:
        p = self.path / "events.sse"
        return p.read_bytes() if p.exists() else None

    @property
    def manifest(self) -> dict[str, object]:
        manifest: dict[str, object] = json.loads((self.path / "manifest.json").read_bytes())
        return manifest


CASES = [Case(p.name, p) for p in CASE_DIRS]


def standalone_messages() -> list[Path]:
    """The compact standalone messages written by agentscope."""
    return sorted(p for p in MESSAGES.glob("*.json")
                  if not p.name.endswith(".pretty.json") and p.name != "invalid_and_lax_inputs.json")


def catalog_lines() -> list[bytes]:
    """One event of each of the 28 types, as agentscope writes them."""
    return [line for line in (MESSAGES / "event_catalog.jsonl").read_bytes().splitlines() if line.strip()]


#: The catalog's events, decoded: one of each type, in the catalog's order.
CATALOG: list[AgentEvent] = [wire.json.decode_event(line) for line in catalog_lines()]

# -- a reply to build ---------------------------------------------------------------------------

REPLY = "reply-1"


def initial_msg() -> wire.Msg:
    """The empty assistant Msg that the events of reply ``REPLY`` build."""
    return wire.Msg(name="Friday", content=[], role="assistant", id=REPLY, created_at="2026-01-01T00:00:00")


def text_reply(n: int = 300) -> list[AgentEvent]:
    """A well-formed reply ``REPLY`` of one text block in ``n`` deltas (with
    non-ASCII text), its ids and timestamps fixed: the same events at every call."""
    fields: list[tuple[type[Any], dict[str, Any]]] = [
        (wire.ReplyStartEvent, {"session_id": "s", "name": "a"}), (wire.TextBlockStartEvent, {"block_id": "t"})]
    fields += [(wire.TextBlockDeltaEvent, {"block_id": "t", "delta": f"{i} é中 "}) for i in range(n)]
    fields += [(wire.TextBlockEndEvent, {"block_id": "t"}), (wire.ReplyEndEvent, {"session_id": "s"})]
    return [cls(id=f"e{i}", created_at="c", reply_id=REPLY, **kw) for i, (cls, kw) in enumerate(fields)]


# -- stream decoders ----------------------------------------------------------------------------

# The items a decoder gave, and the error that stopped it as (type, offset, index).
Outcome = tuple[list[Any], tuple[str, int | None, int | None] | None]


def run(decoder: StreamDecoder[Any], chunks: Iterable[bytes]) -> Outcome:
    """Every item the decoder gives for ``chunks`` then EOF, and the error
    that stopped it (type, offset, index); the events an error carries are
    counted as given, as a caller would use them. Ids and timestamps that
    decoding fills in (a damaged event may lack them) are constants, so that
    two runs compare equal however often a decoder retried a chunk."""
    wire.set_id_factory(lambda: "generated")
    wire.set_timestamp_factory(lambda: "2000-01-01T00:00:00")
    items: list[Any] = []
    try:
        for chunk in chunks:
            items += decoder.feed(chunk)
        items += decoder.close()
    except wire.RemoteProtocolError as exc:
        items += exc.events
        return items, (type(exc).__name__, exc.offset, exc.index)
    finally:
        wire.set_id_factory(None)
        wire.set_timestamp_factory(None)
    return items, None


def cut(data: bytes, points: Iterable[int]) -> list[bytes]:
    """``data`` split at ``points`` (any ints, reduced modulo its length)."""
    marks = sorted({p % (len(data) + 1) for p in points} | {0, len(data)})
    return [data[a:b] for a, b in pairwise(marks)]


def mutate(data: bytes, edits: Sequence[tuple[int, int, bytes]]) -> bytes:
    """``data`` with each (position, bytes to delete, bytes to insert) applied."""
    buf = bytearray(data)
    for pos, delete, insert in edits:
        pos %= len(buf) + 1
        buf[pos:pos + delete] = insert
    return bytes(buf)


# -- wire's JSON against agentscope's -----------------------------------------------------------


def field_default(info: msgspec.structs.FieldInfo) -> Any:
    """The value a field holds when it is left out, or NODEFAULT when leaving it
    out gives a freshly generated value (an id, a timestamp) or is an error."""
    if info.default is not msgspec.NODEFAULT:
        return info.default
    if info.default_factory in (list, dict):
        return info.default_factory()
    return msgspec.NODEFAULT


def strict_equal(ours: Any, theirs: Any) -> bool:
    """JSON values equal in type too (``1`` is not ``1.0`` nor ``true``)."""
    if type(ours) is not type(theirs):
        return False
    if isinstance(ours, dict):
        return ours.keys() == theirs.keys() and all(strict_equal(ours[k], theirs[k]) for k in ours)
    if isinstance(ours, list):
        return len(ours) == len(theirs) and all(strict_equal(a, b) for a, b in zip(ours, theirs, strict=True))
    return bool(ours == theirs)


def assert_same_json(obj: Any, ours: Any, theirs: Any, path: str = "$") -> None:
    """Assert that ``ours`` (wire's JSON of ``obj``, parsed) says what ``theirs``
    (agentscope's JSON, parsed) says: the same keys except fields wire left out
    because they hold their default, and equal values everywhere.

    ``obj`` is the wire object both describe; its Struct fields say which keys
    are fields and what their defaults are. Keys that are not fields (the tag,
    a ThinkingBlock's provider keys) must be present in both and equal."""
    if isinstance(obj, msgspec.Struct):
        assert isinstance(ours, dict) and isinstance(theirs, dict), path
        unexpected = set(ours) - set(theirs)
        assert not unexpected, f"{path}: wire wrote keys agentscope did not: {sorted(unexpected)}"
        fields = msgspec.structs.fields(obj)
        names = {f.encode_name for f in fields}
        for info in fields:
            where = f"{path}.{info.encode_name}"
            assert info.encode_name in theirs, f"{where}: agentscope always writes every field"
            if info.encode_name in ours:
                assert_same_json(getattr(obj, info.name), ours[info.encode_name], theirs[info.encode_name], where)
            else:
                default = field_default(info)
                assert default is not msgspec.NODEFAULT, f"{where}: wire left out a field that has no fixed default"
                assert strict_equal(msgspec.to_builtins(default), theirs[info.encode_name]), (
                    f"{where}: wire left it out as a default, agentscope wrote {theirs[info.encode_name]!r}")
        for key in set(theirs) - names:  # the tag, and provider keys
            assert key in ours, f"{path}: wire dropped {key!r}"
            assert strict_equal(ours[key], theirs[key]), f"{path}.{key}: {ours[key]!r} != {theirs[key]!r}"
    elif isinstance(obj, list):
        assert isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs) == len(obj), path
        for i, (item, a, b) in enumerate(zip(obj, ours, theirs, strict=True)):
            assert_same_json(item, a, b, f"{path}[{i}]")
    else:
        assert strict_equal(ours, theirs), f"{path}: wire wrote {ours!r}, agentscope {theirs!r}"


REQUIRED = "<required>"
GENERATED = "<generated>"


def check_fields(cls: type[Any], spec: list[tuple[str, Any]]) -> None:
    """``cls`` has exactly the fields of ``spec``, in its order, each required,
    generated (a fresh id or timestamp) or defaulting to the given JSON value."""
    fields = msgspec.structs.fields(cls)
    assert [f.encode_name for f in fields] == [name for name, _ in spec]
    for info, (name, default) in zip(fields, spec, strict=True):
        if default == REQUIRED:
            assert info.default is msgspec.NODEFAULT and info.default_factory is msgspec.NODEFAULT, name
        elif default == GENERATED:
            assert info.default_factory not in (msgspec.NODEFAULT, list, dict), name
        else:
            assert field_default(info) is not msgspec.NODEFAULT, name
            assert msgspec.to_builtins(field_default(info)) == default, name
            assert type(msgspec.to_builtins(field_default(info))) is type(default), name


# -- the reducer's anomalies ----------------------------------------------------------------------


# The fields where wire deliberately differs from agentscope (README, "Where
# wire differs from agentscope"): agentscope stamps them with the apply-time
# clock and fresh ids; wire takes them from the events, so replay is exact.
def mask_apply_time(msg: dict[str, Any]) -> dict[str, Any]:
    for block in msg["content"]:
        block["created_at"] = "<event time>"
        if block["type"] == "hint":
            block["finished_at"] = "<event time>"
        if block["type"] == "tool_result" and isinstance(block["output"], list):
            for part in block["output"]:
                part["created_at"] = "<event time>"
                if part["type"] == "text":
                    part["id"] = "<derived id>"
    return msg


def as_json(msg: wire.Msg) -> dict[str, Any]:
    """The Msg as agentscope would print it: defaults re-filled by a decode."""
    parsed: dict[str, Any] = json.loads(wire.json.encode(msg))
    return parsed


START_TEXT = wire.TextBlockStartEvent(block_id="b", reply_id=REPLY)
END_TEXT = wire.TextBlockEndEvent(block_id="b", reply_id=REPLY)
DATA_START = wire.DataBlockStartEvent(block_id="d", media_type="m", reply_id=REPLY)
URL_DELTA = wire.DataBlockDeltaEvent(block_id="d", media_type="m", url="https://x.test/a", reply_id=REPLY)
CALL = wire.ToolCallStartEvent(tool_call_id="c", tool_call_name="f", reply_id=REPLY)
ASK_C = wire.RequireUserConfirmEvent(tool_calls=[wire.ToolCallBlock(id="c", name="f", input="")], reply_id=REPLY)
DATA_END = wire.DataBlockEndEvent(block_id="d", reply_id=REPLY)
RESULT_START = wire.ToolResultStartEvent(tool_call_id="c", tool_call_name="f", reply_id=REPLY)
RESULT_END = wire.ToolResultEndEvent(tool_call_id="c", state=wire.ToolResultState.SUCCESS, reply_id=REPLY)
RESULT_TEXT = wire.ToolResultTextDeltaEvent(tool_call_id="c", delta="out", reply_id=REPLY)
RESULT_DATA = wire.ToolResultDataDeltaEvent(tool_call_id="c", block_id="p", media_type="image/png", data=b"png",
                                            reply_id=REPLY)
ASK = wire.RequireUserConfirmEvent(tool_calls=[wire.ToolCallBlock(id="c", name="f", input="")], reply_id=REPLY)


def delta(text: str = "x", block_id: str = "b") -> wire.TextBlockDeltaEvent:
    return wire.TextBlockDeltaEvent(block_id=block_id, delta=text, reply_id=REPLY)


def confirm(call_id: str) -> wire.UserConfirmResultEvent:
    tool_call = wire.ToolCallBlock(id=call_id, name="f", input="")
    return wire.UserConfirmResultEvent(confirm_results=[wire.ConfirmResult(confirmed=True, tool_call=tool_call)],
                                       reply_id=REPLY)


# What the lenient default leaves: a check of the Msg after the bad event. The
# content is read as ``Any`` because each check knows which block it expects.
Left = Callable[[Any], bool]

# (name, events before, the bad event, kind, what the lenient default leaves)
ANOMALIES: list[tuple[str, list[AgentEvent], AgentEvent, str, Left]] = [
    ("delta before its start", [], delta(), wire.AnomalyKind.UNKNOWN_BLOCK, lambda m: m.content == []),
    ("unknown block id", [START_TEXT], delta(block_id="nope"), wire.AnomalyKind.UNKNOWN_BLOCK,
     lambda m: m.content[0].text == ""),
    ("end of unknown block", [], END_TEXT, wire.AnomalyKind.UNKNOWN_BLOCK, lambda m: m.content == []),
    ("duplicate start", [START_TEXT, delta("a")], START_TEXT, wire.AnomalyKind.DUPLICATE_START,
     lambda m: [b.text for b in m.content] == ["a", ""]),
    ("delta after end", [START_TEXT, delta("a"), END_TEXT], delta("b"), wire.AnomalyKind.AFTER_END,
     lambda m: m.content[0].text == "ab"),
    ("second end", [START_TEXT, END_TEXT], wire.TextBlockEndEvent(block_id="b", created_at="late", reply_id=REPLY),
     wire.AnomalyKind.AFTER_END, lambda m: m.content[0].finished_at == "late"),
    ("data after url", [DATA_START, URL_DELTA],
     wire.DataBlockDeltaEvent(block_id="d", media_type="m", data=b"x", reply_id=REPLY),
     wire.AnomalyKind.DATA_AFTER_URL, lambda m: m.content[0].source.url == "https://x.test/a"),
    ("invalid url", [DATA_START], wire.DataBlockDeltaEvent(block_id="d", media_type="m", url="nope", reply_id=REPLY),
     wire.AnomalyKind.INVALID_URL, lambda m: m.content[0].source.data == b""),
    ("another reply", [START_TEXT], wire.TextBlockDeltaEvent(reply_id="other", block_id="b", delta="x"),
     wire.AnomalyKind.OTHER_REPLY, lambda m: m.content[0].text == ""),
    ("another reply's end", [], wire.ReplyEndEvent(reply_id="other", session_id="s"),
     wire.AnomalyKind.OTHER_REPLY, lambda m: m.finished_at is None),
    ("confirm for unknown call", [], confirm("nope"), wire.AnomalyKind.UNKNOWN_TOOL_CALL,
     lambda m: m.content == []),
    ("confirm for a call not asking", [CALL], confirm("c"), wire.AnomalyKind.NOT_ASKING,
     lambda m: m.content[0].state == "pending"),
    ("ask for unknown call", [], ASK, wire.AnomalyKind.UNKNOWN_TOOL_CALL, lambda m: m.content == []),
    ("data chunk after end", [DATA_START, DATA_END],
     wire.DataBlockDeltaEvent(block_id="d", media_type="m", data=b"x", reply_id=REPLY), wire.AnomalyKind.AFTER_END,
     lambda m: m.content[0].source.data == b"x"),
    ("url after end", [DATA_START, DATA_END], URL_DELTA, wire.AnomalyKind.AFTER_END,
     lambda m: m.content[0].source.url == "https://x.test/a"),
    ("data chunk for unknown block", [],
     wire.DataBlockDeltaEvent(block_id="d", media_type="m", data=b"x", reply_id=REPLY),
     wire.AnomalyKind.UNKNOWN_BLOCK, lambda m: m.content == []),
    ("result text after end", [RESULT_START, RESULT_END], RESULT_TEXT, wire.AnomalyKind.AFTER_END,
     lambda m: m.content[0].output[0].text == "out"),
    ("result data after end", [RESULT_START, RESULT_END], RESULT_DATA, wire.AnomalyKind.AFTER_END,
     lambda m: m.content[0].output[0].source.data == b"png"),
    ("result text for unknown call", [], RESULT_TEXT, wire.AnomalyKind.UNKNOWN_BLOCK, lambda m: m.content == []),
    ("result data for unknown call", [], RESULT_DATA, wire.AnomalyKind.UNKNOWN_BLOCK, lambda m: m.content == []),
    ("submit unknown call", [],
     wire.RequireExternalExecutionEvent(tool_calls=[wire.ToolCallBlock(id="c", name="f", input="")],
                                        reply_id=REPLY),
     wire.AnomalyKind.UNKNOWN_TOOL_CALL, lambda m: m.content == []),
    ("result end without result", [CALL],
     wire.ToolResultEndEvent(tool_call_id="c", state=wire.ToolResultState.SUCCESS, reply_id=REPLY),
     wire.AnomalyKind.UNKNOWN_BLOCK, lambda m: m.content[0].state == "pending"),
]

# -- growth, for the linear-time tests ------------------------------------------------------------


def growth_ratio(cost: Callable[[int], Callable[[], None]], n: int, *, repeats: int = 5) -> float:
    """How much longer the work of size 4n takes than the work of size n:
    about 4 when the work is linear, about 16 when it is quadratic.

    ``cost(size)`` prepares the work and returns it, untimed. Times are this
    thread's CPU time, which neither other processes on a busy machine nor
    other threads of this one (a server another test left serving, under
    pytest-xdist) add to; the two sizes run in turn and each keeps its least
    time, so that a pause (which only ever adds time) weighs on neither."""
    def timed(size: int) -> float:
        work = cost(size)
        start = time.thread_time()
        work()
        return time.thread_time() - start

    small, large = [], []
    for _ in range(repeats):
        small.append(timed(n))
        large.append(timed(4 * n))
    return min(large) / min(small)


# -- AgentScope 1.x -----------------------------------------------------------------------------

# One ReAct turn as agentscope 1.0.21's Msg.to_dict() writes it: the user asks, the
# assistant calls a tool, the tool's result comes back in a system message.
REACT_TURN: list[dict[str, Any]] = [
    {"id": "u1", "name": "user", "role": "user", "content": "北京今天天气怎么样?", "metadata": {},
     "timestamp": "2026-05-10 14:30:00.123"},
    {"id": "a1", "name": "Friday", "role": "assistant", "content": [
        {"type": "thinking", "thinking": "Call the weather tool."},
        {"type": "tool_use", "id": "toolu_abc123", "name": "get_weather", "input": {"city": "北京"},
         "raw_input": '{"city": "北京"}'}], "metadata": {}, "timestamp": "2026-05-10 14:30:01.000"},
    {"id": "s1", "name": "system", "role": "system", "content": [
        {"type": "tool_result", "id": "toolu_abc123", "name": "get_weather",
         "output": [{"type": "text", "text": "晴, 25°C"}]}], "metadata": {}, "timestamp": "2026-05-10 14:30:02.500"},
    {"id": "a2", "name": "Friday", "role": "assistant", "content": "北京今天晴, 25°C。",
     "metadata": {"answer": "sunny"}, "timestamp": "2026-05-10 14:30:03.042"},
]


# -- SSE ----------------------------------------------------------------------------------------------


def general(decoder: SSEDecoder[Any]) -> SSEDecoder[Any]:
    """``decoder`` made to read every byte with the spec parser, the one that
    follows the spec line by line (wire.framing._sse_spec): the reference for
    the fast paths."""
    assert decoder._mode == "bom"  # nothing read yet
    decoder._after_bom = "spec"
    return decoder


# -- servers ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def serve_asgi(app: Any, *, log_level: str = "warning", ws: str = "none", **config: Any) -> Iterator[str]:
    """``app`` served by uvicorn on 127.0.0.1, a port the OS picks, in a
    thread; yields the base URL and stops the server on exit. ``ws`` names
    uvicorn's WebSocket implementation (``"websockets-sansio"``,
    ``"wsproto"``), none by default; ``config`` goes to uvicorn's Config."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level=log_level, lifespan="on", ws=ws, http="h11", **config))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


# -- ids and clocks --------------------------------------------------------------------------------------


@contextlib.contextmanager
def factories(new_id: Callable[[], str], now: Callable[[], str]) -> Iterator[None]:
    """wire's id and timestamp factories set for the block, then the defaults again."""
    wire.set_id_factory(new_id)
    wire.set_timestamp_factory(now)
    try:
        yield
    finally:
        wire.set_id_factory(None)
        wire.set_timestamp_factory(None)


# -- the command line ----------------------------------------------------------------------------


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "wire", *args], input=stdin, capture_output=True,
                          cwd=ROOT, check=False, timeout=120)


# -- what an import loads --------------------------------------------------------------------------

# Prints the modules that importing the argument adds to sys.modules, measured
# inside the fresh interpreter after its own startup (site, .pth hooks).
_PROBE = """
import sys
before = set(sys.modules)
import importlib
importlib.import_module(sys.argv[1])
added = sorted(set(sys.modules) - before)
import json
print(json.dumps(added))
"""


def modules_added_by(name: str) -> set[str]:
    result = subprocess.run([sys.executable, "-W", "error", "-c", _PROBE, name], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", f"importing {name} printed: {result.stderr}"  # no warnings, no noise
    return set(json.loads(result.stdout))


def top(name: str) -> str:
    return name.split(".")[0]


def foreign_modules(name: str) -> set[str]:
    """What importing ``name`` loads beyond wire, msgspec, what msgspec loads
    by itself, and the standard library."""
    allowed = modules_added_by("msgspec")
    return {m for m in modules_added_by(name) - allowed
            if top(m) not in sys.stdlib_module_names and top(m) not in ("wire", "msgspec")}


# -- tests that run node ---------------------------------------------------------------------------


def require_npm(folder: str) -> str:
    """The path of ``node``, after checking that ``npm ci`` has run in ``folder``
    (relative to the repository: ``schemas``, ``tests/clients-agui``...); if
    not, the test fails with one line naming the missing step, rather than
    with node's ``ERR_MODULE_NOT_FOUND`` from deep inside a script."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: this test needs Node 20+ (see the README's set-up)", pytrace=False)
    # npm ci writes this file last, once node_modules is complete.
    if not (ROOT / folder / "node_modules" / ".package-lock.json").is_file():
        pytest.fail(f'{folder}/node_modules is missing: run "npm ci" in {folder}/ (.ci/run does)', pytrace=False)
    return node


def needs_npm(folder: str) -> pytest.MarkDecorator:
    """Mark a test that runs node against ``folder/node_modules``: it fails at
    set-up, before any server starts, when :func:`require_npm` would
    (``tests/conftest.py`` acts on the mark)."""
    return pytest.mark.npm(folder)
