"""ECB over whole pairs of blocks, as generated Thumb-2: ``{prefix}_aes_encrypt_pairs``, with
``{prefix}_aes_encrypt2`` as its entry for one pair.

The trick: the straight-line body of gen/kernels/aes/thumb2.py runs n times between one prologue
and one epilogue (no frame and C loop per pair); out is stepped by the post-indexed store of its
word 0, in is derived from out (in - out and the end of out live in the homes).  ``aes_encrypt2``
is ``movs r3, #1`` falling through, so there is one copy of the rounds.  The count is public
(constant time); n = 0 is not allowed.  The loop, the FPU-home variant and the cycle figures:
docs/internals/aes-kernels.md.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from gen.backends import c_backend
from gen.circuits import aes_sbox
from gen.cores import timing as T
from gen.isa import thumb2 as t2
from gen.kernels.aes import fixsliced as AF
from gen.kernels.aes import keyschedule as aes_keyschedule
from gen.kernels.aes import thumb2 as A
from gen.kernels.thumb2_function import (entered_loop_lines, held_at_end, loop_figures, out_stepped,
                                        out_stepped_edge, out_stepped_entry, split_frame, stepped_out)
from gen.sched import listsched


@dataclass
class AesCode:
    code: str                 # the key schedule (C) and the two kernels (C prototypes, file-scope __asm__)
    rk_words: int
    nr: int
    keybits: int = 0
    slicing: str = ""
    stats: dict = field(default_factory=dict)


ENTRY = out_stepped_entry(32)


def back_edge(frame: int, fpu_homes: bool = False, body=(), out_reg: str | None = None) -> tuple[list, list]:
    """The back edge as (instructions, printed lines), thumb2_function.out_stepped_edge: the body's
    last store to out's word 0 stepped out by 32 (``out_reg`` holds the next pair's out), the
    edge reloads the output's end (r3's home, in PUSHED_XOR's place for msg: ``ENTRY``), in - out
    (in's home) and rk, stores out to its home, puts out + (in - out) in r2 and loops while out is
    below the end (the last pair also steps the homes, which nothing reads again).  The body finds
    rk in r0 and in in r2, as at the first pair; out it writes before it reads (it reloads it from
    the home).  ``fpu_homes``: the homes are s12-s15 (A.FPU_HOME), every move a 1-cycle VMOV.
    rk, if the ``body`` left it in r0 (thumb2_function.held_at_end), is not reloaded.  The
    instructions leave out the compare and the branch."""
    get, put = A.home_moves(frame, fpu_homes)
    return out_stepped_edge(get, put, 32, "next pair", out_reg, reload=("r0",),
                            held=held_at_end(body, get, ("r0",)))


def loop_edge(c: A.Compiled) -> tuple[list, list]:
    """``back_edge`` of the compiled kernel ``c`` (``compile_kernel``'s: out-stepped)."""
    start, end, frame = split_frame(c.insns)
    body = c.insns[start:end]
    return back_edge(frame, c.fpu_homes, body, stepped_out(body))


def figures(c: A.Compiled, core: str) -> tuple[int, int]:
    """(loop step, aes_encrypt2 call) in modelled cycles, priced as the emulator's cycle model
    prices the executed instructions (pair terms across the body's end included): the loop's
    (thumb2_function.loop_figures) with, for the call, ``movs r3, #1`` and ``ENTRY`` before the push."""
    step, once = loop_figures(c.insns, loop_edge(c)[0], core)
    return step, (1 + len(ENTRY)) * T.issue_cycles("alu", core) + once


def compile_kernel(keybits: int, slicing: str, core: str, seed: int = 0, spill: str = "stack", **kw) -> A.Compiled:
    """The kernel ``aes_encrypt_pairs`` loops: ``compile_encrypt2`` with r3's home (``count``) and,
    with spill = fpu, the homes in FPU registers and two rounds' keys in s16-s31 (A.FPU_RK_ROUNDS);
    made out-stepped (thumb2_function.out_stepped: in again after the prologue, out's word 0
    stored post-indexed)."""
    fpu = spill == "fpu"
    kw.setdefault("fpu_rk", A.FPU_RK_ROUNDS if fpu else ())
    c = A.compile_encrypt2(keybits, slicing, core, seed, spill=spill, count=True, fpu_homes=fpu, **kw)
    _, _, frame = split_frame(c.insns)
    insns, _ = out_stepped(c.insns, 32, in_home=A.home_moves(frame, fpu)[0]("r2"))
    start, end, _ = split_frame(insns)
    return dataclasses.replace(c, insns=insns, body=insns[start:end], cycles=listsched.cycles(insns, core))


def compile_loop(keybits: int, slicing: str, core: str, seed: int = 0, **kw) -> A.Compiled:
    """``compile_kernel`` with its ``cycles`` one loop step, a pair: the figure the searches minimize
    for a speed drop (ecb_encrypt's bulk rate; ctr_pairs runs the same body XOR-fused,
    aes_encrypt2 the same body once)."""
    c = compile_kernel(keybits, slicing, core, seed, **kw)
    return dataclasses.replace(c, cycles=figures(c, core)[0])


def header_comment(prefix: str, keybits: int, slicing: str, c: A.Compiled, loop: int, call: int) -> str:
    nr = AF.ROUNDS[keybits]
    homes = ("kept in s12-s15" if c.fpu_homes else "pushed with\n * the callee-saved registers")
    return f"""/* {prefix}_aes_encrypt_pairs, {prefix}_aes_encrypt2: AES-{keybits} ({nr} rounds), {slicing} fixslicing,
 * two blocks per pair, generated Thumb-2 for {c.core} ({A.FPU_WORDS if c.spill == "fpu" else "ARMv7-M instructions only"}).
 * Generated by gen/kernels/aes/thumb2.py (the kernel) and gen/kernels/aes/ecb_thumb2.py (the loop).
 *
 * Fixslicing (Adomnicai and Peyrin, TCHES 2021/1): the 32 bytes of two blocks are transposed
 * (SWAPMOVE) into eight 32-bit bit-planes, so one AND/EOR acts on one bit of all 32 bytes and
 * the S-box is a Boolean circuit ({aes_sbox.SOURCES[c.circuit]}; its four NOTs are
 * folded into the round keys). ShiftRows, a bit permutation inside every plane, is never
 * executed: round j works on the state permuted by ShiftRows^-a(j) and uses a MixColumns variant twisted to match
 * ({'four variants, a(j) = j mod 4' if slicing == 'ffs' else 'two variants plus an explicit ShiftRows^2 every other round'}); the
 * round keys are stored pre-permuted and the leftover permutation is undone after unpacking.
 * No table, no secret-dependent branch or address: constant time by construction.
 *
 * Registers: r0-r12 and lr hold the {c.n_ops} IR values, allocated by furthest-next-use (Belady)
 * after a list schedule in stored evaluation orders; rk, out, in - out and the output's end are {homes}
 * and reloaded from there when needed. Spill code: {c.spills} stores ({2 * c.strd} of them
 * paired into {c.strd} STRD), {c.reloads} reloads,
 * {c.remats} round-key reloads, {c.base_reloads} pointer reloads; stack {c.stack_bytes} bytes.
 * The loop: n pairs between one prologue and one epilogue; the last store to out's word 0 steps
 * out by 32 (post-indexed), the back edge sets in = out + (in - out) and loops while out is below
 * its end. aes_encrypt2 is movs r3, #1 falling through into it.
 * Cycle model (gen/cores/timing.py, zero wait states): {loop} cycles per pair in the loop
 * = {loop / 32:.1f} cycles/byte; {call} cycles per aes_encrypt2 call; {len(c.insns)} instructions
 * in the kernel. Schedule seed {c.seed}.
 * in and out may be unaligned (single-word LDR/STR only) and may be the same buffer.
 * No branch but the loop's (n is public), no secret-dependent address.
 */"""


def thumb2(prefix: str, keybits: int, slicing: str, core: str, seed: int = 0, spill: str = "stack") -> AesCode:
    """The key schedule (C printed from its IR) and the looped kernel with its one-pair entry."""
    nr = AF.check_args(keybits, slicing)
    c = compile_kernel(keybits, slicing, core, seed, spill)
    ks = aes_keyschedule.keyschedule_ir(keybits, slicing)
    ks_fn = c_backend.function(
        f"static void {prefix}_aes_keyschedule(uint32_t *rk, const uint8_t *key)", ks,
        {"key": ("bytes_le", "key"), "rk": ("words", "rk")})
    ks_head = (f"/* AES-{keybits} key schedule -> fixsliced ({slicing}) round keys, {nr + 1} x 8 words; "
               f"C printed from the IR of gen/kernels/aes/keyschedule.py (bitsliced SubWord, "
               f"no table, no key-dependent index or branch). */\n")
    edge = loop_edge(c)[1]
    pairs, one = f"{prefix}_aes_encrypt_pairs", f"{prefix}_aes_encrypt2"
    lines = entered_loop_lines(one, pairs, "pair", c.insns, ENTRY, edge)
    loop, call = figures(c, core)
    proto = (f"void {one}(const uint32_t *rk, uint8_t *out, const uint8_t *in);\n"
             f"void {pairs}(const uint32_t *rk, uint8_t *out, const uint8_t *in, size_t n)")
    asm = t2.c_asm(proto, lines, header_comment(prefix, keybits, slicing, c, loop, call))
    stats = {"encrypt2": c.n_ops, "keyschedule": ks.stats(),
             "thumb2": {"cycles": call, "pair_cycles": loop, "kernel_cycles": c.cycles,
                        "cycles_per_byte": round(c.cycles_per_byte, 2),
                        "instructions": len(c.insns), "spills": c.spills, "strd": c.strd,
                        "reload_moves": c.moved, "reloads": c.reloads,
                        "remats": c.remats, "base_reloads": c.base_reloads,
                        "stack_bytes": c.stack_bytes, "core": core, "seed": seed}}
    return AesCode(code=ks_head + ks_fn + "\n" + asm, rk_words=8 * (nr + 1), nr=nr, keybits=keybits,
                   slicing=slicing, stats=stats)
