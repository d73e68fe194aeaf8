"""The model: blocks, events, Msg, the reducer, partial JSON."""
