"""SSE and checkpoints under their 0.1 name: see :mod:`wire.framing.sse` and
:mod:`wire.resume`."""

from wire.framing import DEFAULT_MAX_FRAME_BYTES, RawFrame, SSEDecoder, SSEEncoder, UnknownPolicy
from wire.resume import CHECKPOINT, checkpoint, read_checkpoint

__all__ = (
    "CHECKPOINT",
    "DEFAULT_MAX_FRAME_BYTES",
    "RawFrame",
    "SSEDecoder",
    "SSEEncoder",
    "UnknownPolicy",
    "checkpoint",
    "read_checkpoint",
)
