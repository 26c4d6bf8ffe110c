"""Rijndael-256 as portable C: the IR programs of encrypt.py and keyschedule.py, printed."""
from __future__ import annotations

from gen.kernels import block_kernel
from gen.kernels.aes.fixsliced import emit_add_round_key, emit_mixcolumns, emit_sbox
from gen.kernels.rijndael256.encrypt import (emit_pack_columns, emit_shiftrows, emit_unpack_columns,
                                             encrypt_program)
from gen.kernels.rijndael256.keyschedule import keyschedule_program

__all__ = ["encrypt_program", "keyschedule_program", "portable_c", "round_stats"]


def round_stats(spec) -> dict:
    """IR ops of one middle round, by part, and of the packing transposes."""
    sr = spec.linear_layer["shiftrows"]
    out = {"sbox": block_kernel.part_ops(emit_sbox, 8),
           "shiftrows": block_kernel.part_ops(lambda b, q: emit_shiftrows(b, q, sr), 8),
           "mixcolumns": block_kernel.part_ops(lambda b, q: emit_mixcolumns(b, q, 0), 8),
           "addroundkey": block_kernel.part_ops(lambda b, q: emit_add_round_key(b, q, 0), 8, 8)}
    out["round"] = sum(out.values())
    out["pack"] = block_kernel.part_ops(emit_pack_columns, 8)
    out["unpack"] = block_kernel.part_ops(emit_unpack_columns, 8)
    return out


def portable_c(prefix: str, spec) -> block_kernel.BlockKernel:
    enc, ks = encrypt_program(spec), keyschedule_program(spec)
    head = (f"/* {spec.title}, bitsliced, one {spec.block_bytes}-byte block per call; generated "
            f"by gen/kernels/rijndael256 from the Boyar-Peralta S-box gate list, an explicit "
            f"ShiftRows (offsets {', '.join(map(str, spec.linear_layer['shiftrows']))}) and "
            f"AES's MixColumns. Straight-line code: no branch or index depends on key or data. "
            f"rk: {spec.rounds + 1} round keys x 8 bit-plane words. */\n")
    return block_kernel.make(prefix, spec, head, ks, enc, blocks_per_call=1,
                             extra_stats={"round": round_stats(spec)})
