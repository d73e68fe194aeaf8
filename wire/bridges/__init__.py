"""Bridges from agentscope's events to the protocols agent frontends speak.

Each bridge is a sans-IO, stateful transcoder for one reply: agentscope events
in, the target protocol's events out (as dicts), plus an encoder to the exact
bytes the target's own encoder writes. ``import wire`` imports none of them;
import the one you need (``wire.bridges.agui``...).
"""
