"""MixColumns' XOR circuits for barrel-shiftrows AES (gen/circuits/mixcolumns_xor.py): each one
against the 32 x 32 matrix (itself against FIPS-197's definition and a published column), every
single-gate change of the kept circuit caught, bad programs refused, and the IR's MixColumns
(gen/kernels/aes/barrel.py) computing the same map with the circuit's XOR count."""
import random

import pytest

from gen import ir
from gen.circuits import mixcolumns_xor as M
from gen.circuits.aes_sbox import gf_mul
from gen.ir import Builder
from gen.kernels.aes import barrel as B


def mixcolumns_bytes(col: list[int]) -> list[int]:
    """FIPS-197 section 5.1.3 on one column of four bytes."""
    return [gf_mul(2, col[r]) ^ gf_mul(3, col[(r + 1) % 4]) ^ col[(r + 2) % 4] ^ col[(r + 3) % 4]
            for r in range(4)]


def apply_rows(rows: list[int], col: list[int]) -> list[int]:
    """A 32 x 32 matrix (row 8r + i: mask of input words) on one column, bit (r, i) = bit i of byte r."""
    bits = [col[k // 8] >> (k % 8) & 1 for k in range(32)]
    out = [bin(rows[k] & sum(b << n for n, b in enumerate(bits))).count("1") & 1 for k in range(32)]
    return [sum(out[8 * r + i] << i for i in range(8)) for r in range(4)]


def test_the_matrix_is_fips197_mixcolumns():
    assert apply_rows(M.matrix(), [0xDB, 0x13, 0x53, 0x45]) == [0x8E, 0x4D, 0xA1, 0xBC]   # a known column
    rng = random.Random(1)
    for _ in range(200):
        col = [rng.randrange(256) for _ in range(4)]
        assert apply_rows(M.matrix(), col) == mixcolumns_bytes(col)


@pytest.mark.parametrize("name, xors", [("formula108", 108), ("cancel97", 97)])
def test_each_circuit_computes_the_matrix_in_its_count(name, xors):
    assert M.check(M.CIRCUITS[name]) == xors


def test_every_single_gate_change_of_the_kept_circuit_is_caught():
    """Each gate's operand moved to any other earlier word, and each gate dropped (its uses read
    its first operand instead): the matrix differs every time."""
    gates, outs = M.gates(M.CIRCUITS[B.MIXCOLUMNS])
    want, tried = M.matrix(), 0
    for k, (a, b) in enumerate(gates):
        for side in (0, 1):
            for other in range(M.WORDS + k):
                if other in (a, b):
                    continue
                g = list(gates)
                g[k] = (other, b) if side == 0 else (a, other)
                assert M.evaluate(g, outs) != want, (k, side, other)
                tried += 1
        shortcut = lambda w: a if w == M.WORDS + k else w
        g = [(shortcut(p), shortcut(q)) for p, q in gates]
        assert M.evaluate(g, [shortcut(o) for o in outs]) != want
    assert tried > 10000


@pytest.mark.parametrize("prog, msg", [
    ((("a", "add", "x0", "y"),), "before it is defined"),
    ((("a", "add", "x0", "x1"), ("a", "add", "x0", "x2")), "defined twice"),
    ((("a", "mul", "x0", "x1"),), "unknown step kind"),
    ((("o0", "add", "x0", "x1"), ("o1", "add", "x0", "x2"), ("o2", "add", "x0", "x3"),
      ("o3", "add", "x1", "x2")), "does not compute AES MixColumns"),
])
def test_bad_programs_are_refused(prog, msg):
    with pytest.raises(ValueError, match=msg):
        M.check(prog)


def test_an_unknown_circuit_name_is_refused():
    with pytest.raises(ValueError, match="unknown MixColumns circuit 'm92'.*cancel97"):
        B.encrypt8_ir(128, "bpc113", mixcolumns="m92")


@pytest.mark.parametrize("name", sorted(M.CIRCUITS))
def test_the_barrel_ir_mixcolumns_is_the_circuit(name):
    """barrel.emit_mixcolumns on random words: word-wise the matrix, one XOR a gate; the key
    hook sees every output once."""
    b = Builder("mc")
    b.declare("in", 32, "r")
    b.declare("out", 32, "w")
    x = [[b.ld("in", 8 * r + i) for i in range(8)] for r in range(4)]
    seen = []
    out = B.emit_mixcolumns(b, x, name, lambda r, i, v: seen.append((r, i)) or v)
    for r in range(4):
        for i in range(8):
            b.st("out", 8 * r + i, out[r][i])
    prog = b.finish()
    assert sorted(seen) == [(r, i) for r in range(4) for i in range(8)]
    assert sum(op.kind == "eor" for op in prog.ops) == len(M.gates(M.CIRCUITS[name])[0])
    rng = random.Random(name)
    w = [rng.getrandbits(32) for _ in range(32)]
    got = ir.run(prog, {"in": w})["out"]
    for k, row in enumerate(M.matrix()):
        want = 0
        for n in range(32):
            if row >> n & 1:
                want ^= w[n]
        assert got[k] == want


def test_the_kernel_saves_eleven_xors_a_round():
    for keybits, nr in B.ROUNDS.items():
        count = lambda mc: sum(op.kind == "eor" for op in B.encrypt8_ir(keybits, "bpc113", mixcolumns=mc).ops)
        assert count("formula108") - count(B.MIXCOLUMNS) == 11 * (nr - 1)


def test_the_search_finds_a_97_xor_program():
    """gen/circuits/mixcolumns_search.py: 11 additions and 3 doublings, checked against the matrix."""
    from gen.circuits import mixcolumns_search as S
    found = S.search(11, 3)
    assert found is not None and M.check(S.to_program(*found)) == 97


def test_the_search_finds_no_ten_addition_program_on_the_kept_doublings():
    """With CANCEL_97's doublings (x0 + x1, x0 + x2, x2 + x3) no program of 10 additions exists
    (exhaustive); `make mixcolumns-search` runs every choice of three doubled row sums."""
    from gen.circuits import mixcolumns_search as S
    P = (S.rows_of(0, 1), S.rows_of(0, 2), S.rows_of(2, 3))
    assert S.search_p(P, 10) is None
    assert S.search_p(P, 11) is not None
