"""Maximov and Ekdahl's forward S-box (gen/circuits/sbox_maximov.py, 'me111'): the paper's gate
list and its Thumb-2 lowering equal the AES S-box on every byte; the kernels built with it encrypt
like pyca/cryptography (IR interpreter here; the Thumb-2 kernel on Unicorn in
tests/test_explore_circuit.py, which runs every circuit of aes_sbox.CIRCUITS)."""
import random
from collections import Counter

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from gen.circuits import aes_sbox, sbox_maximov as M
from gen.ir import Builder, run
from gen.kernels.aes.fixsliced import emit_sbox, encrypt2_ir
from gen.kernels.aes.keyschedule import keyschedule_ir


def test_the_papers_gate_list_is_the_sbox_on_every_byte_and_a_wrong_gate_is_caught(monkeypatch):
    assert M.GATE_COUNT == 111
    assert [x for x in range(256) if M.eval_paper(x) != aes_sbox.sbox_reference(x)] == []
    ops = Counter(g[1] for g in M.PAPER_GATES)
    assert ops["mux"] + ops["nmux"] == 10 and ops["nand"] == 27 and ops["nor"] == 5 and ops["xor"] + ops["xnor"] == 69
    # one NAND read as an AND (a dropped NOT) breaks the circuit
    k = [g[0] for g in M.PAPER_GATES].index("N7")
    bad = M.PAPER_GATES[:k] + (("N7", "and", "Y00", "Q16"),) + M.PAPER_GATES[k + 1:]
    monkeypatch.setattr(M, "PAPER_GATES", bad)
    assert sum(M.eval_paper(x) != aes_sbox.sbox_reference(x) for x in range(256)) > 0


def test_the_lowering_is_one_thumb2_op_per_gate_with_the_nots_of_0x63_left_over():
    assert aes_sbox.check("me111") == []
    gates = aes_sbox.circuit_gates("me111")
    assert len(gates) == 127 and gates == M.GATES          # 111 gates, each MUX three ops
    assert Counter(g[1] for g in gates) == {"xor": 85, "and": 29, "orr": 6, "bic": 5, "orn": 2}
    names = [g[0] for g in gates]
    assert len(set(names)) == len(names) and set(aes_sbox.OUTPUTS) <= set(names)
    assert M.COMPLEMENTED == {"s1", "s2", "s6", "s7"}       # bits 6, 5, 1, 0: 0x63
    for x in range(256):
        assert aes_sbox.eval_byte(x, circuit="me111") == aes_sbox.sbox_reference(x)
        assert aes_sbox.eval_byte(x, fold_nots=True, circuit="me111") == aes_sbox.sbox_reference(x) ^ 0x63
    with pytest.raises(ValueError, match="no Boyar-Peralta top layer"):
        aes_sbox.gates(("y7",), "me111")


def test_the_bitsliced_ir_sbox_on_all_inputs():
    b = Builder("sbox")
    b.declare("in", 8, "r")
    b.declare("out", 8, "w")
    for i, v in enumerate(emit_sbox(b, [b.ld("in", i) for i in range(8)], "me111")):
        b.st("out", i, v)
    prog = b.finish()
    assert prog.stats()["ops"] == 127 + 16
    kinds = Counter(op.kind for op in prog.ops)
    assert kinds["bic"] == 5 and kinds["orn"] == 2 and kinds["orr"] == 6
    xs = list(range(256))
    random.Random(3).shuffle(xs)
    for chunk in range(8):
        lanes = xs[32 * chunk:32 * chunk + 32]
        planes = [sum(((x >> i) & 1) << lane for lane, x in enumerate(lanes)) for i in range(8)]
        out = run(prog, {"in": planes})["out"]
        for lane, x in enumerate(lanes):
            y = sum(((out[i] >> lane) & 1) << i for i in range(8))
            assert y == aes_sbox.sbox_reference(x) ^ aes_sbox.NOT_MASK


@pytest.mark.parametrize("kb,sl", [(128, "ffs"), (256, "sfs")])
def test_encrypt2_with_me111_against_cryptography(kb, sl):
    rng = random.Random(kb + len(sl))
    words = lambda bs: [int.from_bytes(bs[i:i + 4], "little") for i in range(0, len(bs), 4)]
    ks, enc = keyschedule_ir(kb, sl), encrypt2_ir(kb, sl, "me111")
    for _ in range(5):
        key, data = rng.randbytes(kb // 8), rng.randbytes(32)
        out = run(enc, {"in": words(data), "rk": run(ks, {"key": words(key)})["rk"]})["out"]
        e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
        assert b"".join(w.to_bytes(4, "little") for w in out) == e.update(data) + e.finalize()


def test_the_transplanted_start_order_of_me111_is_topological_and_prices():
    """me111 shares no gate with bp115: the transplanted order must still put every gate after the
    AddRoundKey ops it reads (it did not, and the segment's allocator lost a value)."""
    from gen.kernels.aes import thumb2 as A
    from gen.sched import listsched
    kind = A.sbox_kind("me111")
    prog = A.segment_program(kind)
    order = A.transplant(A.ORDERS["ark+sbox"], "me111")
    where = {g: k for k, g in enumerate(order)}
    preds = listsched.dependences(prog)
    assert sorted(order) == list(range(len(prog.ops) - 16))
    assert all(where[p - 8] < where[g] for g in order for p in preds[8 + g] if 8 <= p < len(prog.ops) - 8)
    assert 150 < A.order_cycles(prog, list(order)) < 400


def test_the_orders_guard_prices_me111_on_rijndael256_before_it_has_a_stored_order(monkeypatch):
    """The guard of `--space orders --kind=ark+sbox@me111 --write-orders` prices Rijndael-256's
    kernel (its S-box segment is AES's, in the circuit being searched); with no stored me111 order
    it read the table directly and raised KeyError after the whole chain had run."""
    from gen import presets
    from gen.explore import orders as EO
    from gen.kernels.aes import thumb2 as A
    kind = "ark+sbox@me111"
    monkeypatch.delitem(A.ORDERS, kind, raising=False)             # as before its order was stored
    start = A.sbox_order(A.ORDERS, kind)
    rows = EO.effect(EO.AES, kind, start, [presets.preset("rijndael256ecb-m4")])
    assert rows and all(old == new > 0 for _, old, new in rows)     # the same order: the same cycles
