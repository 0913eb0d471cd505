"""Size limits: any request within them finishes in seconds and fits comfortably in memory."""

from __future__ import annotations

MAX_SEQ_LEN = 4096
"""Longest sequence (T, and S for keys) the registry accepts."""

MAX_WIDTH = 4096
"""Widest model / key / value dimension the registry accepts."""

MAX_HEADS = 256
"""Most attention heads the registry accepts."""

MAX_BATCH = 64
"""Largest batch the registry accepts."""

MAX_ELEMENTS = 2**26
"""Cap on the elements of any array the engine would build (e.g. B*h*T*T weights): 512 MiB f64."""

MAX_FLOPS = 10**11
"""Cap on the floating point work (attention_cost convention) of one registry evaluation."""

MAX_COST_DIMENSION = 10**9
"""Cap on attention_cost's arguments: counting is only arithmetic, so this is a sanity bound."""
