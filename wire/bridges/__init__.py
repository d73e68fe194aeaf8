"""Bridges from agentscope's events to the streams other frontends read.

Each bridge is a sans-IO transcoder for one reply, in its own module, and
``import wire`` imports none of them. See ``wire/bridges/README.md`` for the
mapping each one follows and what a target cannot carry.
"""
