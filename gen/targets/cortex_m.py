"""Targets `cortex-m4` and `cortex-m3`: fixsliced AES and GHASH, both in generated Thumb-2.

AES: gen/kernels/aes_thumb2.py (ARMv7-M instructions only, so the M3 and M4 kernels differ
only in the core their schedule was costed for). GHASH: gen/kernels/ghash_thumb2.py —
`ctmul` is the constant-time holes multiply (UMULL/UMLAL on Cortex-M4, where they take one
cycle whatever the operands; MUL and RBIT only on Cortex-M3, whose long multiplies end early
on small operands), `table4`/`table8` are Shoup's table methods, faster but NOT constant-time.
"""
from __future__ import annotations

from gen.config import Config
from gen.kernels import aes_face, aes_thumb2, ctr_xor, ghash_thumb2
from gen.kernels.thumb2_function import Param, compile_function
from gen.targets.common import KernelSet, ct_extra_lengths

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
            f"#endif")


def _same_op(a, b) -> bool:
    return (a.kind, a.shift, a.imm, a.mem, a.index) == (b.kind, b.shift, b.imm, b.mem, b.index)


def face_encrypt2_segments(keybits: int, slicing: str, depth: str):
    """(program, segments, rank) for FACE encrypt2: its rounds (d+1)..Nr and the final unpack are
    op for op the tail of the plain kernel's program, so they take the plain kernel's segments
    and stored evaluation orders (gen/kernels/aes_thumb2.py ``build``); the entry decoding
    before them is segment 0."""
    prog = aes_face.face_encrypt2_ir(keybits, slicing, depth)
    plain = aes_thumb2.build(keybits, slicing)
    first = int(depth[1]) + 1                      # first round computed
    start = plain.segment.index(2 * first - 1)     # segment ids: sbox of round j = 2j - 1
    tail = len(plain.program.ops) - start
    head = len(prog.ops) - tail
    if head <= 0 or not all(_same_op(a, b) for a, b in zip(prog.ops[head:], plain.program.ops[start:])):
        return prog, None, None                    # not the same tail: plain list scheduling
    seg = [0] * head + plain.segment[start:]
    rank = [None] * head + plain.rank[start:]
    return prog, seg, rank


def face_functions(prefix: str, keybits: int, slicing: str, depth: str, core: str, seed: int = 0) -> dict:
    """FACE set-up, fill and encrypt2 (gen/kernels/aes_face.py IR) as Thumb-2 functions
    (gen/kernels/thumb2_function.py), with the C prototypes the GCM glue calls."""
    aes_face.check_depth(depth)
    setup = compile_function(
        aes_face.face_setup_ir(keybits, slicing, depth), f"{prefix}_face_setup",
        [Param("fs", "uint32_t *", "fs"), Param("rk", "const uint32_t *", "rk"),
         Param("ctr", "const uint8_t *", "ctr")], core, seed, pinned=("rk",))
    fill = compile_function(
        aes_face.face_fill_ir(keybits, slicing, depth), f"{prefix}_face_fill",
        [Param("tab", "uint32_t *", "tab"), Param("fs", "const uint32_t *", "fs"),
         Param("vhi", "const uint32_t *", "vhi")], core, seed, strategy="sink")
    prog, seg, rank = face_encrypt2_segments(keybits, slicing, depth)
    enc = compile_function(
        prog, f"{prefix}_face_encrypt2",
        [Param("rk", "const uint32_t *", "rk"), Param("fs", "const uint32_t *", "fs" if depth == "r1" else None),
         Param("out", "uint8_t *", "out"), Param("e0", "const uint32_t *", "e0"),
         Param("e1", "const uint32_t *", "e1")], core, seed, pinned=("rk",), segments=seg, rank=rank)
    return {"setup": setup, "fill": fill, "encrypt2": enc}


def face_thumb2(prefix: str, keybits: int, slicing: str, depth: str, core: str, plain_cycles: int,
                seed: int = 0) -> tuple[str, dict]:
    """C text of the FACE section (macros + three __asm__ functions) and its figures.

    The glue thresholds come from the modelled cycles: a 32-entry group is filled only when the
    pairs that read it save more than the fill costs (saving per pair = plain encrypt2 minus FACE
    encrypt2), a run is set up only when its pairs pay for the set-up and one group."""
    fns = face_functions(prefix, keybits, slicing, depth, core, seed)
    setup, fill, enc = fns["setup"], fns["fill"], fns["encrypt2"]
    saving = plain_cycles - enc.cycles
    if saving <= 0:
        raise ValueError(f"FACE {depth} encrypt2 ({enc.cycles} cycles) is not faster than the plain "
                         f"kernel ({plain_cycles})")
    min_group = -(-fill.cycles // saving)
    min_run = -(-(setup.cycles + fill.cycles) // saving)
    n = aes_face.ENTRY_WORDS[depth]
    P = prefix.upper()
    head = (f"/* FACE {depth} for AES-{keybits} {slicing} (counter-mode caching of the state after round "
            f"{depth[1]}; gen/kernels/aes_face.py has the details), generated Thumb-2 for {core} through "
            f"gen/kernels/thumb2_function.py.\n"
            f" * Cycle model: set-up {setup.cycles}, fill (32 entries) {fill.cycles}, encrypt2 {enc.cycles} "
            f"(plain kernel {plain_cycles}: {saving} saved per pair). Per-run constants "
            f"{4 * aes_face.FS_WORDS[depth]} bytes, table {4 * 256 * n} bytes (in the stream).\n"
            f" * Straight-line code only: no branch and no address depends on key or data; the glue reads "
            f"the table at the public low counter byte. */\n")
    defines = (f"#define {P}_FACE_ENTRY_WORDS {n}u   /* words per table entry */\n"
               f"#define {P}_FACE_MIN_GROUP {min_group}u   /* fill a 32-entry group only for >= this many pairs "
               f"({fill.cycles} cycles / {saving} saved per pair) */\n"
               f"#define {P}_FACE_MIN_RUN {min_run}u   /* set up a run only for >= this many pairs "
               f"(set-up {setup.cycles} + one group) */\n")
    text = head + defines + "\n".join(f.c_text() for f in (setup, fill, enc))
    stats = {k: f.summary() for k, f in fns.items()}
    stats.update(plain_encrypt2=plain_cycles, saving_per_pair=saving, min_group=min_group, min_run=min_run)
    return text, stats


def kernels(config: Config) -> KernelSet:
    core = config.target
    if core not in ("cortex-m4", "cortex-m3"):
        raise ValueError(f"cortex_m.kernels: target must be cortex-m4 or cortex-m3 (got {core!r})")
    aes = aes_thumb2.thumb2(config.prefix, config.keybits, config.slicing, core, config.seed)
    gh = ghash_thumb2.thumb2(config.prefix, config.ghash, core)
    sections = [aes.code, gh.code, ctr_xor.thumb2(config.prefix)]
    if config.face != "off":
        sections.append(face_thumb2(config.prefix, config.keybits, config.slicing, config.face, core,
                                    aes.stats["thumb2"]["cycles"], config.seed)[0])
    return KernelSet(
        sections=sections,
        rk_words=aes.rk_words,
        hk_words=gh.hk_words,
        rk_comment=f"fixsliced ({config.slicing}) round keys, {aes.nr + 1} x 8 words",
        hk_comment=HK_COMMENT[config.ghash],
        target_guard=target_guard(core),
        ct_extra_lengths=ct_extra_lengths(config.face),
    )
