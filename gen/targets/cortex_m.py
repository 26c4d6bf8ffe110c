"""Targets `cortex-m4` and `cortex-m3`: fixsliced AES and GHASH, both in generated Thumb-2.

AES: gen/kernels/aes/thumb2.py (ARMv7-M instructions only, so the M3 and M4 kernels differ
only in the core their schedule was costed for). GHASH: gen/kernels/ghash/thumb2.py —
`ctmul` is the constant-time holes multiply (UMULL/UMLAL on Cortex-M4, where they take one
cycle whatever the operands; MUL and RBIT only on Cortex-M3, whose long multiplies end early
on small operands), `table4`/`table8` are Shoup's table methods, faster but NOT constant-time.
"""
from __future__ import annotations

from gen.config import Config
from gen.kernels.aes import ctr_thumb2 as aes_ctr_thumb2
from gen.kernels.aes import ecb_thumb2 as aes_ecb_thumb2
from gen.kernels.face import thumb2 as face_thumb2
from gen.kernels.aes import fixsliced as aes_fixsliced
from gen.kernels.aes import keyschedule_compact, compact_thumb2 as aes_compact_thumb2
from gen.kernels.ghash import thumb2 as ghash_thumb2
from gen.kernels import block_figures, block_thumb2, wipe
from gen.kernels.face import aes_face
from gen.targets.common import GhashPart, KernelSet, ct_extra_lengths

HK_COMMENT = {
    "ctmul": "H-derived words for the constant-time holes multiply",
    "table4": "per-key 4-bit tables of multiples of H (NOT constant-time)",
    "table8": "per-key 8-bit table of multiples of H (NOT constant-time)",
}


def target_guard(target: str) -> str:
    if target == "cortex-m4":
        cond = "!defined(__thumb2__) || !defined(__ARM_ARCH_7EM__)"
        what = "Thumb-2 for ARMv7E-M (Cortex-M4: -mcpu=cortex-m4 -mthumb)"
    elif target == "cortex-m3":
        cond = "!defined(__thumb2__) || !(defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__))"
        what = "Thumb-2 for ARMv7-M or ARMv7E-M (Cortex-M3/M4: -mcpu=cortex-m3 -mthumb)"
    else:
        raise ValueError(f"target must be cortex-m4 or cortex-m3 (got {target!r})")
    return (f"/* target: {target}; the AES kernel is Thumb-2 assembly */\n"
            f"#if {cond}\n"
            f"#error \"this drop is generated for {target}: compile it as {what}\"\n"
            f"#endif\n"
            f"#if defined(__ARM_BIG_ENDIAN) || defined(__ARMEB__)\n"
            f"#error \"this drop is little-endian only (its assembly reads and writes bytes as little-endian "
            f"words): compile it without -mbig-endian\"\n"
            f"#endif")


#: the flags that give a Cortex-M4 build its FPU (softfp keeps the soft-float calling convention,
#: so the drop links with code built either way); emu/machines/toolchain.header_cflags reads them back
FPU_CFLAGS = "-mfpu=fpv4-sp-d16 -mfloat-abi=softfp"


def fpu_guard() -> str:
    """The spill = "fpu" drops: their AES kernels keep spilled values in s0-s15, so the build must
    be one for the FPU (whose start-up enables it, and whose RTOS port saves FPU registers)."""
    return (f"\n/* spill = fpu: the AES kernels use FPU registers s0-s15 (VMOV): build for the FPU, e.g.\n"
            f" * REQUIRED_CFLAGS: {FPU_CFLAGS}\n"
            f" * (or -mfloat-abi=hard), and enable the FPU (CPACR) at start-up, as such builds do */\n"
            f"#if !defined(__ARM_FP) || !(__ARM_FP & 4)\n"
            f"#error \"this drop keeps spilled values in FPU registers (Cortex-M4F): compile it with "
            f"{FPU_CFLAGS} (or -mfloat-abi=hard)\"\n"
            f"#endif")


def kernels(config: Config) -> KernelSet:
    if config.target not in ("cortex-m4", "cortex-m3"):
        raise ValueError(f"cortex_m.kernels: target must be cortex-m4 or cortex-m3 (got {config.target!r})")
    return aes_gcm_kernels(config) if config.mode == "gcm" else block_kernels(config)


def block_kernels(config: Config) -> KernelSet:
    """ecb / ctr: the cipher family's IR (gen/kernels/block_portable) in generated Thumb-2."""
    opts = {k: v for k, v in config.options().items() if k in ("slicing", "shiftrows")}
    loop = config.mode == "ecb"           # counter mode calls the kernel once per refill
    k = block_thumb2.thumb2(config.prefix, config.spec, config.target, config.seed,
                            strategies=block_figures.strategies(config.spec), loop=loop,
                            ctr=config.mode == "ctr", **opts)
    comment, figures, facts = block_figures.thumb2(config.spec, config.target, config.seed)
    cycles = {"keyschedule_call": k.stats["keyschedule"]["cycles"],
              "encrypt_blocks_call": k.stats["encrypt_blocks"]["cycles"], **figures}
    if loop:
        cycles["encrypt_blocks_n_per_step"] = k.stats["encrypt_blocks_n"]["cycles_per_step"]
    if "ctr_blocks" in k.stats:
        cycles["ctr_blocks_per_step"] = k.stats["ctr_blocks"]["cycles_per_step"]
    return KernelSet(sections=[wipe.zero32_thumb2(config.prefix), comment + k.code], target_guard=target_guard(config.target),
                     block_bytes=k.block_bytes, blocks_per_call=k.blocks_per_call, rk_words=k.rk_words,
                     rk_comment=f"{config.spec.title} round keys, bitsliced ({k.rk_words} words)",
                     keyschedule="keyschedule", encrypt="encrypt_blocks", zero32_asm=True, file_scope_asm=True,
                     encrypt_n=loop, ctr_blocks="ctr_blocks" in k.stats, kernel_cycles=cycles, kernel_facts=facts)


#: [schedule] objective -> GHASH blocks per aggregated group (None: the core's default,
#: ghash_thumb2.GROUP_BLOCKS).  Each block of a group is unrolled (~2 KB of ctmul on the M4),
#: so the group is the largest single lever on .text; a smaller one costs the reduction and
#: recombination per fewer blocks (docs/size.md).
GHASH_GROUP = {"speed": None, "balanced": 2, "size": 1}
#: a FACE r2 speed drop on the Cortex-M4 (M4 and M4F) hashes in groups of 16 (issue 34): with the
#: FACE kernels at ~56 c/B, GHASH is a third of a 4 KiB message, and 16 blocks a group cost ~500
#: cycles a block against ~525 in groups of 8 (4 KiB: 132,289 -> 130,307 cycles, -0.48 c/B; with the
#: cross-block chains of part 6, gen/kernels/ghash/m4_cross.py, 128,833 -> 126,275).
#: The price: hk 1,152 -> 2,304 bytes, init 6,256 -> 13,138 cycles, ghash_blocks 25.9 -> 56.7 KB
#: of .text (the group of 16 and its tails of 8 and 4). Fewer than 8 blocks cost what they did,
#: 8..15 two cycles more (docs/cortex-m4.md section 1).
FACE_GHASH_GROUP = {"cortex-m4": 16}


def ghash_group(config: Config) -> int | None:
    """Blocks per GHASH group of a Cortex-M GCM drop (None: the core's default)."""
    if config.objective == "speed" and config.face == "r2" and config.ghash == "ctmul":
        return FACE_GHASH_GROUP.get(config.target, GHASH_GROUP["speed"])
    return GHASH_GROUP[config.objective]


def aes_gcm_kernels(config: Config) -> KernelSet:
    """Fixsliced AES-GCM: the AES kernel, the looped counter mode, GHASH, and FACE when asked.

    objective "speed": encrypt_pairs (ECB looped over pairs, aes_encrypt2 its one-pair entry) and
    ctr_pairs (two copies of the rounds, the second XOR-fused), the straight-line
    key schedule, the core's GHASH group.  "balanced"/"size": ctr_pairs is the only AES kernel
    (the glue's aes_encrypt2 is one pair of it with a zero message), the looped key schedule
    (keyschedule_compact), a GHASH group of GHASH_GROUP[objective] blocks; "size" (FACE off)
    loops ctr_pairs over the rounds (compact_thumb2), "balanced" keeps them unrolled."""
    core = config.target
    keybits = 8 * config.spec.key_bytes
    compact = config.objective != "speed"
    gh = ghash_thumb2.thumb2(config.prefix, config.ghash, core, ghash_group(config))
    nr = aes_fixsliced.check_args(keybits, config.slicing)
    if config.objective == "size" and config.face == "off":      # the rounds looped
        ctr = aes_compact_thumb2.thumb2(config.prefix, keybits, config.slicing, core, config.seed)
        aes_code = keyschedule_compact.c_code(config.prefix, keybits, config.slicing)
        figures = {f"size_segment_{k}": v for k, v in ctr.segments.items()}
    elif compact:
        ctr = aes_ctr_thumb2.thumb2(config.prefix, keybits, config.slicing, core, config.seed)
        aes_code = keyschedule_compact.c_code(config.prefix, keybits, config.slicing)
        figures = {"ctr_pairs_per_pair": ctr.pair_cycles, "ctr_pairs_call": ctr.call_cycles}
    else:
        ctr = aes_ctr_thumb2.thumb2(config.prefix, keybits, config.slicing, core, config.seed, config.spill)
        aes = aes_ecb_thumb2.thumb2(config.prefix, keybits, config.slicing, core, config.seed, config.spill)
        aes_code = aes.code
        figures = {"aes_encrypt2_call": aes.stats["thumb2"]["cycles"],
                   "aes_encrypt_pairs_per_pair": aes.stats["thumb2"]["pair_cycles"],
                   "ctr_pairs_per_pair": ctr.pair_cycles}
    sections = [wipe.zero32_thumb2(config.prefix), aes_code, gh.code, ctr.code]
    if config.face != "off":
        text, face = face_thumb2.face_thumb2(config.prefix, keybits, config.slicing, config.face, core,
                                 ctr.call_cycles, config.seed, config.spill)
        sections.append(text)
        figures.update(face_setup=face["setup"]["cycles"], face_fill_group=face["fill"]["cycles"],
                       face_encrypt2_per_pair=face["encrypt2_loop_step"])
        if "encrypt2c_loop_step" in face:     # r2: the kernels of the caller-owned cache
            figures.update(face_encrypt2c_per_pair=face["encrypt2c_loop_step"], face_c2=face["c2"]["cycles"])
    return KernelSet(
        sections=sections,
        target_guard=target_guard(core) + (fpu_guard() if config.spill == "fpu" else ""),
        block_bytes=16,
        blocks_per_call=2,
        rk_words=8 * (nr + 1),
        rk_comment=f"fixsliced ({config.slicing}) round keys, {nr + 1} x 8 words",
        ghash=GhashPart(gh.hk_words, HK_COMMENT[config.ghash]),
        face_words={} if config.face == "off" else aes_face.layout(config.face),
        cache_bytes=aes_face.cache_bytes(config.face),
        ct_extra_lengths=ct_extra_lengths(config.face),
        ctr_pairs=True,
        encrypt_via_ctr=compact,
        encrypt_pairs=not compact,
        zero32_asm=True,
        file_scope_asm=True,
        kernel_cycles=figures,
    )
