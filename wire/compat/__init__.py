"""Converters between wire's AgentScope 2.0 model and neighbouring message models.

* :mod:`wire.compat.agentscope1`: AgentScope 1.x ``Msg`` dicts (``Msg.to_dict()``
  JSON and saved memories) to and from 2.0 ``Msg``.
* :mod:`wire.compat.agentx`: AgentX ``Message`` objects and their streamed
  packets to and from 2.0 ``Msg`` and agent events.
* :mod:`wire.compat.agentscope_app`: a session of agentscope 2.0.11's app
  written by wire, the app's own history (storage and cursor) kept in step.

``import wire`` does not import this package; import the module you need.
What each direction drops, and the metadata key that keeps what the
other side has no field for, is listed in each module's docstring.
"""
