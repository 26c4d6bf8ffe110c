"""The A-class cores the ARMv8-A drops are costed on (llvm-mca-19's scheduling models), and the one
thing every one of them does that no model does: AESE/AESMC fusion.

Cores: Cortex-A72, Neoverse N1, Neoverse V1, Cortex-A55 (in order) and Neoverse N2 (LLVM 19 has
its model; as an Armv9.0 core its Cryptography Extension is optional, so llvm-mca is told
``-mattr=+aes``, and ``+sha3`` for an EOR3 stream). The SHA-3 extension (EOR3) is in the V1 and N2
models only: an EOR3 drop is costed on those.

Fusion. LLVM lists ``fuse-aes`` for every one of these cores: the decoder turns an AESE followed
directly by an AESMC of its result (``aese vX.16b, vK.16b; aesmc vX.16b, vX.16b``) into one op on
the AES pipe. llvm-mca's models do not (as of LLVM 19 and 22), so they charge the AESMC a second
pipe slot and its latency. ``fuse_aes`` is the transform that gives the fused figure of an
instruction stream: every such adjacent pair is costed as its AESE alone (the AESMC line is
dropped); nothing else changes (an AESMC that is not directly after the AESE of its own register,
or that writes another register, stays; so does every other instruction). It is applied to the
executed stream of a call (emu/bench/mca.py) and to the kernels' loop bodies
(gen/kernels/armv8/choose.py) alike, ours and a peer's, so both figures are measured the same way.
"""
from __future__ import annotations

import re

CORES = ("cortex-a72", "neoverse-n1", "neoverse-v1", "cortex-a55", "neoverse-n2")
#: the cores whose llvm-mca models know the SHA-3 extension (an EOR3 drop is costed on these only)
SHA3_CORES = ("neoverse-v1", "neoverse-n2")
#: the cores the generator's choices are scored on by default (AES and PMULL on one pipe)
CHOICE_CORES = ("cortex-a72", "neoverse-n1")
#: -mattr llvm-mca needs for a core whose model leaves the Cryptography Extension optional
_ATTRS = {"neoverse-n2": ("+aes",)}

_AESE = re.compile(r"^\s*aese\s+v(\d+)\.16b\s*,\s*v\d+\.16b\s*$")
_AESMC = re.compile(r"^\s*aesmc\s+v(\d+)\.16b\s*,\s*v(\d+)\.16b\s*$")


def mattr(core: str, sha3: bool = False) -> list[str]:
    """The ``-mattr=`` argument llvm-mca needs for ``core`` (empty list: none)."""
    attrs = list(_ATTRS.get(core, ()))
    if sha3 and attrs:
        attrs.append("+sha3")
    return [f"-mattr={','.join(attrs)}"] if attrs else []


def fused_pair(first: str, second: str) -> bool:
    """True when ``second`` is the AESMC that fuses with the AESE ``first``: same register
    written by both, and the AESMC reads what the AESE wrote."""
    a, m = _AESE.match(first), _AESMC.match(second)
    return bool(a and m and a.group(1) == m.group(1) == m.group(2))


def fuse_aes(lines: list[str]) -> list[str]:
    """The stream with every adjacent fusible AESE/AESMC pair costed as its AESE alone."""
    out = []
    i = 0
    while i < len(lines):
        out.append(lines[i])
        if i + 1 < len(lines) and fused_pair(lines[i], lines[i + 1]):
            i += 2
        else:
            i += 1
    return out
