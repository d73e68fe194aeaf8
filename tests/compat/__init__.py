"""The converters (wire.compat): AgentScope 1.x and AgentX."""
