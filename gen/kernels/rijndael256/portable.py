"""Rijndael-256 as portable C: the IR programs of encrypt.py and keyschedule.py, printed."""
from __future__ import annotations

from gen.kernels import block_kernel
from gen.kernels.aes.fixsliced import emit_add_round_key, emit_sbox
from gen.kernels.rijndael256 import encrypt as E
from gen.kernels.rijndael256.encrypt import encrypt_program
from gen.kernels.rijndael256.keyschedule import keyschedule_program

__all__ = ["encrypt_program", "keyschedule_program", "portable_c", "round_stats"]


def round_stats(spec, shiftrows: str = "explicit") -> dict:
    """IR ops of a block by part: S-box, explicit ShiftRows (packed, and natural at either
    end), MixColumns (the twisted variants included), AddRoundKey, packing."""
    nr = spec.rounds
    al = E.alignments(nr, shiftrows)
    part = block_kernel.part_ops
    sr_packed = sum(part(lambda b, q, e=E.explicit_exponent(al, j): E.emit_shiftrows(b, q, e), 8)
                    for j in range(1, nr + 1))
    sr_natural = sum(part(lambda b, w, e=e: E.emit_natural_shiftrows(b, w, e), 8) for e in (-al[0], al[nr]))
    out = {"sbox": nr * part(emit_sbox, 8),
           "shiftrows": sr_packed + sr_natural,
           "mixcolumns": sum(part(lambda b, q, a=al[j]: E.emit_mixcolumns_variant(b, q, a), 8)
                             for j in range(1, nr)),
           "addroundkey": (nr + 1) * part(lambda b, q: emit_add_round_key(b, q, 0), 8, 8),
           "pack": part(E.emit_pack_columns, 8) + part(E.emit_unpack_columns, 8)}
    out["block"] = sum(out.values())
    return out


def portable_c(prefix: str, spec, shiftrows: str = "explicit") -> block_kernel.BlockKernel:
    enc, ks = encrypt_program(spec, shiftrows), keyschedule_program(spec, shiftrows)
    head = (f"/* {spec.title}, bitsliced, one {spec.block_bytes}-byte block per call; generated "
            f"by gen/kernels/rijndael256 from the Boyar-Peralta S-box gate list, ShiftRows "
            f"{shiftrows} (offsets {', '.join(map(str, spec.linear_layer['shiftrows']))}) and "
            f"AES's MixColumns. Straight-line code: no branch or index depends on key or data. "
            f"rk: {spec.rounds + 1} round keys x 8 bit-plane words. */\n")
    return block_kernel.make(prefix, spec, head, ks, enc, blocks_per_call=1,
                             extra_stats={"parts": round_stats(spec, shiftrows)})
