"""Target `armv8a`: AES-GCM for ARMv8-A in AArch64 state with the Cryptography Extension.

AES with AESE/AESMC (gen/kernels/armv8/aes.py; ECB through a loop of 8 blocks in flight), counter mode with the counters in NEON registers
(ctr.py), GHASH with PMULL and an aggregated reduction (ghash.py); the glue is the shared GCM
glue (gen/modes/gcm.py). Options ([armv8], SPEC §3): `unroll` blocks per loop step (4 or 8) of
the counter mode and GHASH, or `auto` (the default: the one llvm-mca costs cheapest, choose.py),
`mul` karatsuba (3 PMULLs per product) or schoolbook (4), `eor3` the SHA-3 extension's
three-way XOR (then the drop needs a core with it: -march=...+sha3), `core` generic (the kernels
as written, for out-of-order cores) or cortex-a55 (the kernels whose loops llvm-mca costs cheaper
on the in-order A55 list-scheduled for it, inorder.py), `decrypt` verify-first (the default: hash,
check the tag, then counter mode) or single-pass (one pass, the output zeroed on a bad tag:
open96.py's whole call with a 96-bit IV, stitched_dec.py's loop for streams and other IVs).
"""
from __future__ import annotations

from gen.config import Config
from gen.kernels.armv8 import aes, choose, ctr, ctr_table, ghash, open96, seal, stitched, stitched_dec, wipe
from gen.targets.common import GhashPart, KernelSet


def target_guard(eor3: bool) -> str:
    cond = "!defined(__aarch64__) || !(defined(__ARM_FEATURE_AES) || defined(__ARM_FEATURE_CRYPTO))"
    flag = "-march=armv8-a+crypto"
    if eor3:
        cond += " || !defined(__ARM_FEATURE_SHA3)"
        flag = "-march=armv8.2-a+crypto+sha3"
    return ("/* target: armv8a (AArch64 with the Cryptography Extension); the kernels are A64 assembly */\n"
            f"#if {cond}\n"
            f"#error \"this drop is generated for armv8a: compile it for AArch64 with {flag}\"\n"
            "#endif\n"
            "#if defined(__AARCH64EB__) || defined(__ARM_BIG_ENDIAN)\n"
            "#error \"this drop is little-endian only (its assembly loads and stores bytes as little-endian "
            "lanes): compile it without -mbig-endian\"\n"
            "#endif")


def kernels(config: Config, ctx_rk_words: int | None = None) -> KernelSet:
    """`ctx_rk_words`: the length of the ctx's rk array when it is not this key size's round keys
    alone (a multi-key drop's ctx, gen/targets/multikey.py): the whole-call kernels gcm96_seal and
    gcm96_open, which take the ctx, find hk and ctr_tab after it (seal.ctx_offsets)."""
    if config.target != "armv8a" or config.mode != "gcm":
        raise ValueError(f"armv8a.kernels: AES-GCM on armv8a only (got {config.mode}/{config.target})")
    keybits = 8 * config.spec.key_bytes
    p = config.prefix
    eor3 = config.eor3 == "on"
    figures = {}
    unroll = config.unroll
    if unroll == "auto":                                                        # llvm-mca's choice
        unroll, costs = choose.choose_unroll(keybits, config.mul, eor3)
        figures["unroll_chosen"] = {"unroll": unroll, "loop_cycles_per_byte_summed": costs}
    spread = choose.choose_spread(keybits, unroll, config.mul, eor3)            # llvm-mca's choice
    form = choose.choose_ghash_form(keybits, unroll, config.mul, spread, eor3, config.core)  # llvm-mca's choice
    figures["ghash_form"] = {"pairs": sorted(form[0]), "hoisted_constant": form[1]}
    sched, core = {}, ""
    if config.core != "generic":                # an in-order core: the loops llvm-mca costs cheaper scheduled
        core = config.core
        sched = choose.choose_schedules(keybits, unroll, config.mul, spread, eor3, core, form)
        figures["scheduled_for"] = {"core": core, "kernels": sched}

    def on(kernel):
        return choose.sched_spec(core, sched[kernel]) if core else ""
    sections = [wipe.zero32(p), wipe.zero_bytes(p), wipe.vector_wipe(p), aes.keyschedule(p, keybits), aes.encrypt2(p, keybits),
                aes.encrypt_pairs(p, keybits, sched=on("aes_encrypt_pairs")),
                ghash.ghash_blocks(p, unroll, config.mul, eor3, sched=on("ghash_blocks")), ghash.ghash_init(p),
                ctr.ctr_pairs(p, keybits, unroll, eor3, sched=on("ctr_pairs")), ctr_table.ctr_table(p),
                stitched.ctr_ghash_pairs(p, keybits, unroll, config.mul, spread, eor3, sched=on("ctr_ghash_pairs"),
                                         form=form),
                seal.gcm96_seal(p, keybits, unroll, config.mul, spread, eor3, sched=on("ctr_ghash_pairs"), form=form,
                                ctx_rk_words=ctx_rk_words)]
    single_pass = config.decrypt == "single-pass"
    if single_pass:
        sections.append(stitched_dec.ctr_ghash_dec_pairs(p, keybits, unroll, config.mul, spread, eor3,
                                                         sched=on("ctr_ghash_pairs"), form=form))  # the same loop step
        sections.append(open96.gcm96_open(p, keybits, unroll, config.mul, spread, eor3,   # 96-bit IVs, one call
                                          sched=on("ctr_ghash_pairs"), form=form, ctx_rk_words=ctx_rk_words))
    figures.update(ghash_spread=spread,
                   steady_state_cycles_per_byte=choose.kernel_figures(keybits, unroll, config.mul, spread, eor3,
                                                                      sched=sched, core=core, form=form),
                   steady_state_cycles_per_byte_fused=choose.kernel_figures(keybits, unroll, config.mul, spread,
                                                                            eor3, fused=True, sched=sched, core=core,
                                                                            form=form))
    return KernelSet(
        sections=sections,
        target_guard=target_guard(eor3),
        block_bytes=16,
        blocks_per_call=2,
        rk_words=4 * (aes.rounds_of(keybits) + 1),
        rk_comment=f"AES-{keybits} round keys, {aes.rounds_of(keybits) + 1} x 16 bytes in order (AESE operands)",
        ghash=GhashPart(ghash.HK_WORDS, "H^1..H^8 twisted for PMULL (swapped, unswapped, Karatsuba words)"),
        ctr_pairs=True,
        encrypt_pairs=True,
        ctr_ghash=True,
        ctr_ghash_dec=single_pass,
        ctr_table=True,
        seal96=seal.ctx_offsets(keybits, ctx_rk_words),
        zero32_asm=True,
        zero_bytes_asm=True,
        file_scope_asm=True,
        kernel_cycles=figures,
        core="armv8a-max" if eor3 else "",
    )
