"""What a target hands to the header template."""
from __future__ import annotations

from dataclasses import dataclass


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


def ct_extra_lengths(face: str) -> tuple[int, ...]:
    """Message lengths the constant-time check adds for a FACE drop: 4128 bytes cross a table
    set-up, every group fill and the carry pair of a 256-block run."""
    return () if face == "off" else (4128,)
