"""The Boyar-Peralta gate list equals the AES S-box (computed from GF(2^8) inverse + affine map)."""
import random

from gen.circuits import aes_sbox
from gen.ir import Builder, run
from gen.kernels.aes.fixsliced import emit_sbox


def test_reference_sbox_known_values():
    # FIPS-197 Figure 7 entries: S(00)=63, S(01)=7c, S(53)=ed, S(ff)=16
    assert [aes_sbox.sbox_reference(x) for x in (0x00, 0x01, 0x53, 0xFF)] == [0x63, 0x7C, 0xED, 0x16]
    assert sorted(aes_sbox.sbox_reference(x) for x in range(256)) == list(range(256))


def test_circuit_equals_truth_table_all_inputs():
    assert aes_sbox.check() == []
    for x in range(256):
        assert aes_sbox.eval_byte(x) == aes_sbox.sbox_reference(x)


def test_gate_counts_and_folded_constant():
    assert aes_sbox.GATE_COUNTS == {"xor": 79, "xnor": 4, "and": 32}
    assert aes_sbox.NOT_MASK == 0x63
    for x in range(256):
        assert aes_sbox.eval_byte(x, fold_nots=True) == aes_sbox.sbox_reference(x) ^ 0x63


def test_bitsliced_ir_sbox_all_inputs():
    """The IR emission on 32-lane planes: 8 runs cover all 256 inputs."""
    b = Builder("sbox")
    b.declare("in", 8, "r")
    b.declare("out", 8, "w")
    outs = emit_sbox(b, [b.ld("in", i) for i in range(8)])
    for i, v in enumerate(outs):
        b.st("out", i, v)
    prog = b.finish()
    assert prog.stats()["ops"] == 115 + 16
    xs = list(range(256))
    random.Random(1).shuffle(xs)
    for chunk in range(8):
        lane = xs[32 * chunk: 32 * chunk + 32]
        planes = [sum(((x >> p) & 1) << i for i, x in enumerate(lane)) for p in range(8)]
        q = run(prog, {"in": planes})["out"]
        got = [sum(((q[p] >> i) & 1) << p for p in range(8)) for i in range(32)]
        assert got == [aes_sbox.sbox_reference(x) ^ 0x63 for x in lane]
