"""GCM (NIST SP 800-38D) over a 16-byte block cipher and a GHASH kernel: the API of SPEC §5 and
the glue in templates/gcm_glue.c.j2. Stream buffers are sized by the kernels' block and width."""
from __future__ import annotations

from gen.config import Config
from gen.templating import render
from gen.targets.common import KernelSet


def _check(ks: KernelSet) -> None:
    if ks.block_bytes != 16 or ks.ghash is None:
        raise ValueError("GCM needs a 16-byte block cipher and a GHASH kernel")
    if ks.ctr_ghash and not ks.seal96:      # the glue's one-shot 96-bit path with the stitched loop is the kernel's
        raise ValueError("GCM with the stitched ctr_ghash_pairs needs the whole-call gcm96_seal (KernelSet.seal96)")


def api(config: Config, ks: KernelSet) -> str:
    _check(ks)
    p = config.prefix
    return render("gcm_api.h.j2", p=p, P=p.upper(), keybytes=config.spec.key_bytes,
                  rk_words=ks.rk_words, rk_comment=ks.rk_comment, hk_words=ks.ghash.words,
                  hk_comment=ks.ghash.comment, face=config.face, face_words=ks.face_words,
                  block=ks.block_bytes, per_call=ks.blocks_per_call, ctr_table=ks.ctr_table,
                  dec1pass=ks.ctr_ghash_dec, keysizes=[b // 8 for b in config.keybits])


def glue(config: Config, ks: KernelSet) -> str:
    _check(ks)
    p = config.prefix
    lean = lean_one_shot(config, ks)
    return render("gcm_glue.c.j2", p=p, P=p.upper(), face=config.face, ctr_pairs=ks.ctr_pairs,
                  zero32_asm=ks.zero32_asm, ctr_ghash=ks.ctr_ghash, ctr_table=ks.ctr_table, dec1pass=ks.ctr_ghash_dec,
                  seal96=ks.seal96,
                  zero_bytes_asm=ks.zero_bytes_asm, encrypt_via_ctr=ks.encrypt_via_ctr,
                  encrypt_pairs=ks.encrypt_pairs, lean96=lean, keybytes=config.spec.key_bytes,
                  le_words=(lean and not ks.ctr_ghash) or config.face == "r2", keysizes=[b // 8 for b in config.keybits])


def lean_one_shot(config: Config, ks: KernelSet) -> bool:
    """Whether a one-shot encrypt with a 96-bit IV skips the stream (``encrypt96``): with the
    stitched kernel (ARMv8-A, templates/gcm_glue.c.j2), and on the Cortex-M speed drops
    (templates/gcm_lean_pairs.c.j2: ctr_pairs, then GHASH over the ciphertext; issue 34: a 64-byte
    message paid about 1,400 cycles of stream bookkeeping). FACE drops take it only for messages
    too short for a FACE run (``FACE_LEAN_SHORT``), where the stream would use the plain kernel
    anyway; longer ones keep the stream, which sets FACE up."""
    return ks.ctr_ghash or (ks.ctr_pairs and ks.encrypt_pairs)
