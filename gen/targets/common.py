"""What a target hands to the header template."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class KernelSet:
    sections: list[str]      # C (and file-scope __asm__) text, in order
    rk_words: int
    hk_words: int
    rk_comment: str
    hk_comment: str
    target_guard: str
    ct_extra_lengths: tuple[int, ...] = ()   # message lengths the constant-time check adds (FACE)
    #: the target has ``{p}_ctr_pairs(rk, out, cb, in, n)`` (counter mode over n pairs, XOR fused,
    #: looped in generated code); without it the glue runs ``keystream2`` + ``xor32`` per pair
    ctr_pairs: bool = False
    #: the target has ``{p}_zero32(p, nwords)`` in assembly (gen/kernels/wipe.py): an opaque call,
    #: so the glue wipes its structs with it; otherwise (portable C) structs are wiped byte by byte
    zero32_asm: bool = False
    #: the sections hold file-scope ``__asm__`` blocks: string literals far over C99's 4095-character
    #: minimum, which clang -pedantic reports (-Woverlength-strings); the header silences that one
    #: warning around its implementation, for clang only
    file_scope_asm: bool = False
    #: the generator's own cycle-model figures of its asm kernels (gen/sched/timing.py), for the
    #: manifest's ``metrics.kernel_cycles``; empty for targets without generated asm
    kernel_cycles: dict = field(default_factory=dict)


def ct_extra_lengths(face: str) -> tuple[int, ...]:
    """Message lengths the constant-time check adds for a FACE drop: 4128 bytes cross a table
    set-up, every group fill and the carry pair of a 256-block run."""
    return () if face == "off" else (4128,)
