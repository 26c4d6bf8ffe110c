"""Where a Rijndael-256 block's cycles go, per component and per ShiftRows strategy (the
docs/block-ciphers.md's breakdown): S-box, ShiftRows (explicit, packed and natural) or its fixsliced
compensation, MixColumns, AddRoundKey, packing.

Method: every distinct part is compiled ALONE by gen/kernels/thumb2_function.compile_function
(8 words loaded, the part, 8 words stored; the same registers, scheduler and cycle model as
the kernel), the cycles of the same harness without the part are subtracted, and the result is
multiplied by how often a block runs it.  The whole kernel (thumb2.compile_encrypt) is also
compiled; the difference ``interaction`` is spill code that only appears when the parts meet.

``python -m gen.kernels.rijndael256.breakdown [core]`` prints both strategies as JSON.
"""
from __future__ import annotations

import json
import sys

from gen.ir import Builder
from gen.isa import thumb2 as t2
from gen.kernels import block_kernel
from gen.kernels import thumb2_function as TF
from gen.kernels.aes.fixsliced import emit_add_round_key, emit_sbox
from gen.kernels.aes.thumb2_orders import ORDERS as AES_ORDERS
from gen.kernels.rijndael256 import encrypt as E

PARAMS = [TF.Param("rk", "const uint32_t *", "rk"), TF.Param("out", "uint8_t *", "out"),
          TF.Param("in", "const uint8_t *", "in")]


def part_cycles(emit, core: str, order=None) -> int:
    """Modelled cycles of ``emit(b, words) -> words`` on 8 words, compiled alone, harness off;
    ``order``: the part's stored evaluation order (op positions), as the kernel uses it."""
    def cycles(fn, order):
        b = Builder("part", is_imm=t2.is_imm)
        b.declare("in", 8, "r")
        b.declare("rk", 8, "r", constant=True)
        b.declare("out", 8, "w")
        for i, x in enumerate(fn(b, [b.ld("in", i) for i in range(8)])):
            b.st("out", i, x)
        prog = b.finish()
        rank = [None] * len(prog.ops)
        for k, g in enumerate(order or ()):
            rank[8 + g] = k
        return TF.compile_function(prog, "part", PARAMS, core, segments=[1] * len(prog.ops), rank=rank).cycles
    return cycles(emit, order) - cycles(lambda b, q: list(q), None)


def breakdown(spec, shiftrows: str, core: str = "cortex-m4") -> dict:
    from gen.kernels.block_thumb2 import ENC_PARAMS
    from gen.kernels.rijndael256.thumb2 import ORDERS, compile_encrypt
    nr = spec.rounds
    al = E.alignments(nr, shiftrows)
    memo: dict = {}

    def c(key, emit, order=None):
        if key not in memo:
            memo[key] = part_cycles(emit, core, order)
        return memo[key]

    packed = sum(c(("sr", e), lambda b, q, e=e: E.emit_shiftrows(b, q, e))
                 for e in (E.explicit_exponent(al, j) for j in range(1, nr + 1)) if e)
    natural = sum(c(("nat", e), lambda b, w, e=e: E.emit_natural_shiftrows(b, w, e))
                  for e in (-al[0] % 8, al[nr] % 8) if e)
    mix = [c(("mc", a), lambda b, q, a=a: E.emit_mixcolumns_variant(b, q, a), ORDERS.get(f"lin:0:{a}"))
           for a in al[1:nr]]
    plain = c(("mc", 0), lambda b, q: E.emit_mixcolumns_variant(b, q, 0), ORDERS.get("lin:0:0"))
    out = {"sbox": nr * c("sbox", emit_sbox, AES_ORDERS["sbox"]),
           "shiftrows": packed + natural,
           "mixcolumns": sum(mix),
           "compensation": sum(mix) - (nr - 1) * plain,
           "addroundkey": (nr + 1) * c("ark", lambda b, q: emit_add_round_key(b, q, 0)),
           "packing": c("pack", E.emit_pack_columns) + c("unpack", E.emit_unpack_columns)}
    out["sum_of_parts"] = sum(out[k] for k in ("sbox", "shiftrows", "mixcolumns", "addroundkey", "packing"))
    out["kernel"] = compile_encrypt(spec, "k", ENC_PARAMS, core, 0, shiftrows).cycles
    out["interaction"] = out["kernel"] - out["sum_of_parts"]
    return out


def best_alignments(nr: int) -> tuple[int, list[int]]:
    """The cheapest alignment sequence a_0..a_nr of ANY arrangement (explicit, fixsliced, every
    semi-fixsliced mix), by IR ops of the linear layers (packed SR^e, M_a, the natural
    ShiftRows at either end): dynamic programming over the 8 alignments per round."""
    part = block_kernel.part_ops
    sr = [part(lambda b, q, e=e: E.emit_shiftrows(b, q, e), 8) for e in range(8)]
    mc = [part(lambda b, q, a=a: E.emit_mixcolumns_variant(b, q, a), 8) for a in range(8)]
    nat = [part(lambda b, w, e=e: E.emit_natural_shiftrows(b, w, e), 8) for e in range(8)]
    best = {a: (nat[-a % 8], [a]) for a in range(8)}
    for j in range(1, nr + 1):
        best = {a: min((c + sr[(p + 1 - a) % 8] + (mc[a] if j < nr else 0), path + [a])
                       for p, (c, path) in best.items()) for a in range(8)}
    return min((c + nat[a], path) for a, (c, path) in best.items())


if __name__ == "__main__":
    from gen.ciphers import get
    core = sys.argv[1] if len(sys.argv) > 1 else "cortex-m4"
    spec = get("rijndael256")
    res = {sr: breakdown(spec, sr, core) for sr in E.STRATEGIES}
    res["ratio_compensation_to_explicit"] = round(
        (res["fixsliced"]["compensation"] + res["fixsliced"]["shiftrows"]) / res["explicit"]["shiftrows"], 2)
    print(json.dumps(res, indent=1))
