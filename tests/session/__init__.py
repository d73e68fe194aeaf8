"""The session package (wire.session): state, rules, checkpoints, the chat body."""
