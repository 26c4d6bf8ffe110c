"""Block-cipher kernels in generated Thumb-2 for the Cortex-M4 and M3: the family's IR programs
(gen/kernels/block_portable.programs: key schedule and block encryption) compiled by
gen/kernels/thumb2_function.compile_function (list scheduling and register allocation against
the core's timing table, spill stores paired, reloads pipelined) into file-scope __asm__
functions with the names the ecb/ctr glue calls. Straight-line code from a branch-free IR with
constant memory indices: no branch and no address depends on the key or the data. In ECB the
block function is looped (gen/kernels/block_ecb_thumb2.py), in counter mode some families also
get a fused loop (gen/kernels/block_ctr_thumb2.py); their only branch tests a public length.
"""
from __future__ import annotations

from gen.kernels import block_ctr_thumb2 as CTR
from gen.kernels import block_ecb_thumb2 as ECB
from gen.kernels import block_portable
from gen.kernels import thumb2_function as TF
from gen.kernels.block_kernel import BlockKernel
from gen.kernels.rijndael256 import thumb2 as rijndael256_thumb2

#: families whose encryption / key schedule have their own Thumb-2 compilation (segments,
#: stored orders); the others go through compile_function with the whole program (rk pinned
#: for the encryption)
ENCRYPT = {"rijndael256": rijndael256_thumb2.compile_encrypt}
KEYSCHEDULE = {"rijndael256": rijndael256_thumb2.compile_keyschedule}

KS_PARAMS = [TF.Param("rk", "uint32_t *", "rk"), TF.Param("key", "const uint8_t *", "key")]
ENC_PARAMS = [TF.Param("rk", "const uint32_t *", "rk"), TF.Param("out", "uint8_t *", "out"),
              TF.Param("in", "const uint8_t *", "in")]


def thumb2(prefix: str, spec, core: str, seed: int = 0, strategies=("pressure",), loop: bool = False,
           ctr: bool = False, **options) -> BlockKernel:
    """``strategies``: the list schedulers to try (thumb2_function.compile_function's
    ``strategy``), the cheapest kept per function, for families without their own compilation
    (ENCRYPT, KEYSCHEDULE).  ``loop``: the encryption is also ``{prefix}_encrypt_blocks_n``, its
    body looped n times in one call, and ``encrypt_blocks`` its entry for n = 1
    (gen/kernels/block_ecb_thumb2.py; ECB calls it once); without, the straight-line function
    (counter mode calls it once per refill, where a loop's entry would only add cycles).
    ``ctr``: also ``{prefix}_ctr_blocks``, counter mode fused and looped
    (gen/kernels/block_ctr_thumb2.py), for the families it is built for (``CTR.FAMILIES``)."""
    ks, enc = block_portable.programs(spec, **options)
    if spec.family in KEYSCHEDULE:
        kfn = KEYSCHEDULE[spec.family](spec, f"{prefix}_keyschedule", KS_PARAMS, core, seed, **options)
    else:
        kfn = TF.cheapest(ks, f"{prefix}_keyschedule", KS_PARAMS, core, seed, strategies)
    name = f"{prefix}_encrypt_blocks"
    if spec.family in ENCRYPT:
        efn = ENCRYPT[spec.family](spec, name, ENC_PARAMS, core, seed, count=loop, **options)
    else:
        efn = TF.cheapest(enc, name, ENC_PARAMS, core, seed, strategies, pinned=("rk",), count=loop)
    rk_words = ks.mems["rk"][0]
    step = enc.mems["in"][0] * 4
    per_call = step // spec.block_bytes
    stats = {"keyschedule": kfn.summary(), "encrypt_blocks": efn.summary()}
    if loop:
        if per_call != 1:      # the ECB glue (templates/block_glue.c.j2) loops over single blocks
            raise ValueError(f"{spec.name}: the ECB loop takes one block per step ({per_call} here)")
        step_cycles, call = ECB.figures(efn, step, core)
        stats["encrypt_blocks"]["cycles"] = call
        stats["encrypt_blocks_n"] = {"cycles_per_step": step_cycles, "step_bytes": step}
        enc_text = ECB.c_text(efn, f"{name}_n", name, step, ECB.comment(name, step, step_cycles, call))
        how = f"{per_call} block(s) {call} per encrypt_blocks call, {step_cycles} per step of encrypt_blocks_n"
    else:
        enc_text, how = efn.c_text(), f"{per_call} block(s) {efn.cycles} per call"
    if ctr and spec.family in CTR.FAMILIES:
        if per_call != 1 or spec.family in ENCRYPT:
            raise ValueError(f"{spec.name}: ctr_blocks takes one block per step of the generic kernel")
        cfn = CTR.compile_kernel(enc, prefix, core, seed, strategies)
        ctr_step = CTR.figures(cfn, spec.block_bytes, core)
        stats["ctr_blocks"] = {"cycles_per_step": ctr_step, **cfn.summary()}
        enc_text += "\n" + CTR.c_text(cfn, spec.block_bytes, CTR.comment(cfn, spec.block_bytes, ctr_step))
        how += f", {ctr_step} per step of ctr_blocks (counter mode, XOR fused)"
    head = (f"/* {spec.title} for {core}: the bitsliced IR of gen/kernels/{spec.family} compiled to Thumb-2 by "
            f"gen/kernels/block_thumb2.py{' (looped by gen/kernels/block_ecb_thumb2.py)' if loop else ''}. "
            f"Cycle model: key schedule {kfn.cycles}, {how}. */\n")
    return BlockKernel(cipher=spec.name, code=head + kfn.c_text() + "\n" + enc_text, rk_words=rk_words,
                       block_bytes=spec.block_bytes, key_bytes=spec.key_bytes, blocks_per_call=per_call,
                       stats=stats)
