"""Named operations the verifier calls with data from chapter files: check everything, then compute.

``table`` holds every operation and ``check`` / ``evaluate``; each family module (``attention_ops``,
``cost_ops``, ``layer_ops``, ``position_ops``, ``kv_ops``, ``gradient_ops``) keeps an operation's
plan, run and table entry together; ``convert`` and ``shapes`` are the input checks they share.
"""
