"""Bridges from agentscope's events to the protocols other agent frontends speak.

Each bridge is a sans-IO, stateful transcoder for one reply, in its own
module: agentscope events in, the target protocol's events out (as dicts),
plus an encoder to the exact bytes the target's own encoder writes; each has
its Starlette helpers beside it. ``import wire`` imports none of them: import
the one you need.

* :mod:`wire.bridges.agui`: AG-UI 1.0 (CopilotKit's ``@ag-ui/client``).
* :mod:`wire.bridges.vercel`: the Vercel AI SDK's UI message stream (``useChat``).

``wire/bridges/README.md`` gives the mapping each follows and what a target
cannot carry.
"""
