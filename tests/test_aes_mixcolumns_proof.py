"""SymPy (GF(2) matrix) proofs for the packed layout and the fixsliced linear layers, both for the
reference maps in gen/circuits/aes_mixcolumns.py and for the exact IR the kernel emits."""
import pytest

from gen.circuits import aes_mixcolumns as mcx
from gen.ir import Builder, run
from gen.kernels.aes import fixsliced as K


def ir_map(emit):
    """A Python function (8 words -> 8 words) running the IR that ``emit`` builds."""
    b = Builder("linear")
    b.declare("in", 8, "r")
    b.declare("out", 8, "w")
    outs = emit(b, [b.ld("in", i) for i in range(8)])
    for i, v in enumerate(outs):
        b.st("out", i, v)
    prog = b.finish()
    return lambda w: run(prog, {"in": w})["out"]


def test_packing_is_the_index_formula():
    assert mcx.prove_packing()
    assert mcx.prove_packing(ir_map(K.emit_pack), ir_map(K.emit_unpack))


@pytest.mark.parametrize("j", range(4))
def test_variant_equals_twisted_mixcolumns(j):
    assert mcx.prove_variant(j)
    assert mcx.prove_variant(j, ir_map(lambda b, q: K.emit_mixcolumns(b, q, j)))


def test_proof_can_fail():
    # each variant differs from the others, and from MixColumns without the twist
    for j in range(4):
        for k in range(4):
            if j != k:
                assert not mcx.prove_variant(j, lambda q: mcx.mixcolumns_variant(q, k))


def test_variant_zero_is_plain_mixcolumns_on_packed_words():
    P = mcx.matrix_of(mcx.def_pack)
    assert mcx.matrix_of(lambda q: mcx.mixcolumns_variant(q, 0)) == \
        P * mcx.matrix_of(mcx.def_mixcolumns) * P.transpose()


def test_shiftrows2_packed_and_natural():
    assert mcx.prove_shiftrows2()
    assert mcx.prove_shiftrows2(ir_map(K.emit_packed_shiftrows2), ir_map(K.emit_natural_shiftrows2))


def test_variant_data():
    # j = 0 uses whole-word rotations only; the others rotate inside bytes
    assert mcx.VARIANTS[0] == {"r1": (1, 0), "r2": (2, 0)}
    assert mcx.VARIANTS[2] == {"r1": (1, 4), "r2": (2, 0)}
    assert {mcx.VARIANTS[1]["r1"][1], mcx.VARIANTS[3]["r1"][1]} == {2, 6}
