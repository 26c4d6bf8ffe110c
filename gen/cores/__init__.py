"""The cores the generator costs code for: one plain module of tables per core, by name.

``gen/cores/timing.py`` holds the rules that read the tables (shared with the emulator's
cycle model, emu/bench/cycles.py).  A new core is a new module plus one line here.
"""
from gen.cores import cortex_m3, cortex_m4, sifive_e31

BY_NAME = {c.NAME: c for c in (cortex_m4, cortex_m3, sifive_e31)}


def get(name: str):
    """The table module of core ``name``."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown core {name!r}; allowed: {', '.join(BY_NAME)}") from None
