"""SymPy (GF(2) matrix) proofs of Rijndael-256's packed linear layers: the eight fixsliced
MixColumns variants against SR^-a . MC . SR^a, the explicit ShiftRows (packed and natural) and
the packing, both for the reference maps of gen/kernels/rijndael256/linear.py and for the exact
IR the kernel emits."""
import pytest

from gen.kernels.rijndael256 import encrypt as E
from gen.kernels.rijndael256 import linear as L
from tests.test_aes_mixcolumns_proof import ir_map


def test_packing_is_the_index_formula():
    assert L.prove_packing(ir_map(E.emit_pack_columns), ir_map(E.emit_unpack_columns))
    assert not L.prove_packing(ir_map(E.emit_pack), ir_map(E.emit_unpack))   # AES's column order


@pytest.mark.parametrize("a", range(8))
def test_variant_equals_twisted_mixcolumns(a):
    assert L.prove_variant(a)
    assert L.prove_variant(a, ir_map(lambda b, q: E.emit_mixcolumns_variant(b, q, a)))


def test_proof_can_fail():
    for a in range(8):
        assert not L.prove_variant(a, lambda q: L.mixcolumns_variant(q, (a + 1) % 8))
    assert not L.prove_shiftrows(1, packed=lambda q: L.packed_shiftrows(q, 3))


@pytest.mark.parametrize("e", [1, 2, 4, 6, 7])
def test_shiftrows_packed_and_natural(e):
    assert L.prove_shiftrows(e)
    assert L.prove_shiftrows(e, ir_map(lambda b, q: E.emit_shiftrows(b, q, e)),
                             ir_map(lambda b, w: E.emit_natural_shiftrows(b, w, e)))


def test_shiftrows_has_order_eight_and_variant_zero_is_plain():
    assert L.prove_shiftrows(8, packed=lambda q: list(q), natural=lambda w: list(w))
    assert not L.prove_shiftrows(4, packed=lambda q: list(q), natural=lambda w: list(w))
    assert L.neighbour_perm(1, 0) == {(0, 8 * r + c): (0, 8 * ((r + 1) % 4) + c) for r in range(4) for c in range(8)}


def test_rows_rotate_non_uniformly():
    # the structural claim: o_(r+1) - o_r is not constant, so M_1's row+1 map needs more
    # rotation groups than AES's (2)
    from gen.kernels import bitperm
    assert len(bitperm.groups(L.neighbour_perm(1, 1))[0]) > 2
    assert len(bitperm.groups(L.neighbour_perm(1, 0))[0]) == 1
