"""Target `rv32imac`: RV32IMAC cores (SiFive E31 class).  Generated RV32I assembly
(gen/kernels/rv32_function.py: the IR split for RV32, scheduled and allocated onto its registers)
for fixsliced AES in GCM (gen/kernels/aes/rv32.py) and for the SPEEDY (gen/kernels/speedy/rv32.py:
rotations and negations folded into the representation) and Rijndael-256 block functions; the
key schedules, the ctmul GHASH and the CTR/FACE glue are the portable target's generated C
kernels compiled for RV32.  Everything sits behind a guard that stops a build for anything else; the
drops are checked in Unicorn's E31 model and measured by the E31 cycle model
(emu/platforms/rv32imac.py).
"""
from __future__ import annotations

import re
from dataclasses import replace

from gen.config import Config
from gen.kernels import block_kernel, block_portable, rv32_function
from gen.kernels.aes import rv32 as aes_rv32
from gen.kernels.speedy import rv32 as speedy_rv32
from gen.kernels.speedy import rv32_bs32_asm, rv32_bs32_c
from gen.targets import portable
from gen.targets.common import KernelSet

TARGET_GUARD = (
    "/* target: rv32imac (RV32IMAC, ILP32; C99 kernels generated for it) */\n"
    "#if !defined(__riscv) || !defined(__riscv_xlen) || __riscv_xlen != 32\n"
    "#error \"this drop is generated for rv32imac: compile it for RV32 (-march=rv32imac -mabi=ilp32)\"\n"
    "#endif")
#: block-cipher families whose block function is generated RV32 assembly: their RV32 IR programs
#: (key schedule, encrypt), in a representation that folds rotations away (docs/riscv.md)
RV32_PROGRAMS = {"speedy": lambda spec, **_: speedy_rv32.programs(spec),
                 # bitsliced as on the Cortex-M; the split turns its masked in-byte rotations
                 # (ShiftRows) into single shifts (gen/kernels/rv32_split.py)
                 "rijndael256": block_portable.programs}
ASM_FAMILIES = tuple(RV32_PROGRAMS)


def replace_sections(sections: list[str], prefix: str, by_function: dict[str, str | None]) -> list[str]:
    """`sections` with, for each name, the one section that defines ``static ... {prefix}_{name}(``
    replaced by ``by_function[name]`` (dropped when None), the others kept in order: a section is
    found by the function it defines, not by its place in the portable kernel set. A name no
    section defines, or several do, is an error (ValueError naming it)."""
    out = list(sections)
    for name, text in by_function.items():
        pattern = re.compile(rf"^static [\w ]+\b{re.escape(prefix)}_{re.escape(name)}\(", re.M)
        where = [i for i, section in enumerate(sections) if pattern.search(section)]
        if len(where) != 1:
            raise ValueError(f"rv32imac: {len(where)} sections of the portable kernel set define "
                             f"{prefix}_{name} (one expected): it replaces that section")
        out[where[0]] = text
    return [section for section in out if section is not None]


def kernels(config: Config) -> KernelSet:
    ks = replace(portable.kernels(config), target_guard=TARGET_GUARD)
    if config.mode == "gcm" and config.face == "off":
        # barrel-shiftrows over 8 blocks for ECB and counter mode, fixsliced 2 blocks for the rest
        # (H, E(J0), the last 0-3 pairs): the portable AES code is replaced; the glue's per-pair
        # XOR (ctr_xor's xor32) is not needed with ctr_pairs
        keybits = 8 * config.spec.key_bytes
        code, c2, c8 = aes_rv32.rv32_barrel_c(config.prefix, keybits, config.slicing)
        nr = aes_rv32.AF.ROUNDS[keybits]
        sections = replace_sections(ks.sections, config.prefix, {"aes_encrypt2": code, "xor32": None})
        return replace(ks, sections=sections, file_scope_asm=True,
                       rk_words=aes_rv32.rk_words(keybits), ctr_pairs=True, encrypt_pairs=True,
                       rk_comment=f"fixsliced ({config.slicing}) round keys, {nr + 1} x 8 words, then "
                                  f"barrel-shiftrows ones, 2 x 4 + {nr - 1} x 32 words",
                       kernel_cycles={"aes_encrypt2": c2.cycles, "aes_encrypt8": c8.cycles},
                       kernel_facts={"aes_encrypt2": rv32_function.facts(c2),
                                     "aes_encrypt8": rv32_function.facts(c8)})
    if config.mode == "gcm":
        code, c = aes_rv32.rv32_c(config.prefix, 8 * config.spec.key_bytes, config.slicing)
        name = "aes_encrypt2"
        sections = replace_sections(ks.sections, config.prefix, {name: code})   # the portable AES code
    elif config.spec.family in ASM_FAMILIES:
        opts = {k: v for k, v in config.options().items() if k in ("shiftrows",)}
        kprog, eprog = RV32_PROGRAMS[config.spec.family](config.spec, **opts)
        c = rv32_function.cheapest(eprog)
        name = "encrypt_blocks"
        sections = [f"/* {config.spec.title}: the key schedule in C, the block function in RV32 assembly, "
                    f"both generated from the IR programs of gen/kernels/{config.spec.family}. */\n"
                    + block_kernel.keyschedule_c(config.prefix, kprog) + "\n"
                    + rv32_function.c_text(f"{config.prefix}_{name}", c, eprog.mems["in"][0],
                                           eprog.mems["out"][0], f"{config.spec.title}, one block")]
        if config.spec.family == "speedy":
            return _speedy_bs32(config, ks, sections, c)
    else:
        return ks
    return replace(ks, sections=sections, file_scope_asm=True, kernel_cycles={name: c.cycles},
                   kernel_facts={name: rv32_function.facts(c)})


def _speedy_bs32(config: Config, ks: KernelSet, sections: list, c) -> KernelSet:
    """SPEEDY: the 32-block bitsliced kernel for whole groups of 32 blocks (ECB and CTR), the
    one-block function ``c`` for the rest (docs/riscv.md, "SPEEDY fully bitsliced over 32 blocks")."""
    spec, p = config.spec, config.prefix
    k = rv32_bs32_asm.kernel(spec, f"{p}_encrypt32_rv32")
    gb = rv32_bs32_c.GROUP * spec.block_bytes
    # a padded group costs the kernel plus the volatile byte copies in and out (~4 cycles a byte)
    pad_from = rv32_bs32_c.remainder_min(c.cycles, k.cycles, 2 * 4 * gb)
    text = rv32_bs32_c.c_text(p, spec, config.mode, k, ks.rk_words, pad_from)
    masks = rv32_bs32_c.mask_words(spec)
    facts = {"encrypt_blocks": rv32_function.facts(c),
             "encrypt32": {"instructions": k.instructions, "stack_bytes": k.frame, "pad_from_blocks": pad_from,
                           **{f"{n}_cycles": b.cycles for n, b in k.bodies.items()},
                           "spill_bytes": max(b.spill_bytes for b in k.bodies.values())}}
    return replace(ks, sections=sections + [text], file_scope_asm=True, keyschedule="keyschedule_bs32",
                   encrypt_n=True, ctr_blocks=config.mode == "ctr", ctr_group=rv32_bs32_c.GROUP, rk_words=ks.rk_words + masks,
                   rk_comment=f"{ks.rk_comment}; then the 32-block kernel's masks, {spec.rounds + 1} x 192 words",
                   kernel_cycles={"encrypt_blocks": c.cycles, "encrypt32": k.cycles}, kernel_facts=facts)
