"""Modes as a layer: each mode renders the drop's C API (structs and prototypes) and its glue
over the target's kernels (gen/targets/common.KernelSet). Registering a mode is one line here."""
from __future__ import annotations

from gen.modes import block, gcm

MODES = {"gcm": gcm, "ecb": block, "ctr": block}


def get(mode: str):
    return MODES[mode]
