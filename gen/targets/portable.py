"""Target `portable`: the fixsliced AES kernel and the ctmul GHASH printed as C99.

Both kernels come from the Python generators (gen/kernels): the AES rounds from the S-box gate
list and the fixsliced MixColumns maps through the IR's C backend, GHASH from the holes-multiply
generator. Nothing here is a cipher as static text.
"""
from __future__ import annotations

from gen.config import Config
from gen.kernels.face import aes_face as aes_face
from gen.kernels.aes import portable as aes_portable
from gen.kernels import ctr_xor
from gen.kernels.ghash import ctmul as ghash_ctmul
from gen.kernels import wipe
from gen.kernels import block_portable
from gen.targets.common import GhashPart, KernelSet, ct_extra_lengths

TARGET_GUARD = "/* target: portable C99 (any compiler with uint32_t and uint64_t) */"


def kernels(config: Config) -> KernelSet:
    return aes_gcm_kernels(config) if config.mode == "gcm" else block_kernels(config)


def block_kernels(config: Config) -> KernelSet:
    """ecb / ctr: the cipher family's BlockKernel (gen/kernels/block_portable.py registers one
    per family: fixsliced AES, bitsliced Rijndael-256, column-sliced SPEEDY)."""
    opts = {k: v for k, v in config.options().items() if k in ("slicing", "shiftrows")}
    k = block_portable.portable_c(config.prefix, config.spec, **opts)
    return KernelSet(sections=[k.code], target_guard=TARGET_GUARD, block_bytes=k.block_bytes,
                     blocks_per_call=k.blocks_per_call, rk_words=k.rk_words,
                     rk_comment=f"{config.spec.title} round keys, bitsliced ({k.rk_words} words)",
                     keyschedule="keyschedule", encrypt="encrypt_blocks")


def aes_gcm_kernels(config: Config) -> KernelSet:
    """Fixsliced AES (two blocks per call), the ctmul GHASH and FACE."""
    keybits = 8 * config.spec.key_bytes
    aes = aes_portable.portable_c(config.prefix, keybits, config.slicing)
    gh = ghash_ctmul.portable_c(config.prefix, "ctmul64")
    return KernelSet(
        sections=[aes.code, gh.code, ctr_xor.c(config.prefix)] + ([] if config.face == "off" else [
            wipe.zero32_c(config.prefix),
            aes_face.portable_c(config.prefix, keybits, config.slicing, config.face).code]),
        target_guard=TARGET_GUARD,
        block_bytes=16,
        blocks_per_call=2,
        rk_words=aes.rk_words,
        rk_comment=f"fixsliced ({config.slicing}) round keys, {aes.nr + 1} x 8 words",
        ghash=GhashPart(gh.hk_words, "H-derived words for the constant-time holes multiply (ctmul64)"),
        face_words={} if config.face == "off" else aes_face.layout(config.face),
        cache_bytes=aes_face.cache_bytes(config.face),
        ct_extra_lengths=ct_extra_lengths(config.face),
    )
