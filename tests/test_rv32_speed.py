"""RV32 speed work of issue 36: rotations folded into the representation.

* the split lowers a rotation of a value whose set bits cannot wrap to ONE shift, and keeps the
  three-instruction rotation where they can (and the function either way);
* SPEEDY's RV32 representation (gen/kernels/speedy/rv32.py): its key schedule and encrypt IR
  compute SPEEDY (the cipher model and the known answers), no S-box gate reads a rotated or
  negated operand, and the rotations left are the ones the representation needs;
* the published drops hold their ratios (read from out/: the generator wrote them).
"""
import json
import random
from pathlib import Path

import pytest

from gen import ciphers, ir
from gen.ciphers import speedy as model
from gen.kernels import rv32_split
from gen.kernels.speedy import layout
from gen.kernels.speedy import rv32 as S

OUT = Path(__file__).resolve().parent.parent / "out"


def _split_kinds(prog):
    return [op.kind for op in rv32_split.split(prog).ops]


@pytest.mark.parametrize("mask, rot, shifts", [
    (0x0F0F0F00, 4, 1),      # no set bit below 4: x >> 4
    (0x000000F0, 28, 1),     # every set bit below 28: x << 4
    (0x0F0F0F0F, 4, 2),      # bits 0-3 wrap: a real rotation (lsr, lsl, orr)
])
def test_a_masked_rotation_is_one_shift_when_nothing_wraps(mask, rot, shifts):
    b = ir.Builder("t")
    b.declare("in", 2, "r")
    b.declare("out", 1, "w")
    x, y = b.ld("in", 0), b.ld("in", 1)
    m = b.and_(x, b.movc(mask))
    b.st("out", 0, b.eor(y, m, shift=("ror", rot)))
    prog = b.finish()
    kinds = _split_kinds(prog)
    assert kinds.count("lsl") + kinds.count("lsr") == shifts
    assert kinds.count("orr") == (1 if shifts == 2 else 0)
    rng = random.Random(rot)
    for _ in range(50):
        words = [rng.getrandbits(32), rng.getrandbits(32)]
        assert ir.run(rv32_split.split(prog), {"in": words})["out"] == ir.run(prog, {"in": words})["out"]


@pytest.mark.parametrize("name", ["speedy5", "speedy6", "speedy7"])
def test_speedy_rv32_programs_compute_speedy(name):
    spec = ciphers.get(name)
    kp, ep = S.programs(spec)
    cases = [(k, p, c) for k, p, c in model.known_answers(spec.rounds)]
    rng = random.Random(spec.rounds)
    for _ in range(4):
        key, blk = rng.randbytes(24), rng.randbytes(24)
        cases.append((key, blk, model.encrypt(key, blk, spec.rounds)))
    for key, blk, want in cases:
        rk = ir.run(kp, {"key": layout.le_words(key)})["rk"]
        got = ir.run(ep, {"in": layout.le_words(blk), "rk": rk})["out"]
        assert layout.le_bytes(got) == want


def test_speedy_sbox_gates_read_no_rotated_or_negated_operand():
    spec = ciphers.get("speedy5")
    _, ep = S.programs(spec)
    assert not any(op.kind in ("bic", "orn") for op in ep.ops)
    # register-register AND/ORR are the S-box's (the packing ANDs with constants)
    gates = [op for op in ep.ops if op.kind in ("and", "orr") and op.b is not None]
    assert len(gates) == 2 * spec.rounds * len(spec.sbox_circuit)
    assert all(op.shift is None for op in gates)


def test_speedy_rotations_left_are_alignment_and_mixcolumns():
    """Per block: MixColumns 5 per column per middle round (mix_plan's x ^ rotl(x, d) and four
    terms), plus the S-box alignments the target program minimises; the Cortex-M IR had 428."""
    spec = ciphers.get("speedy5")
    _, ep = S.programs(spec)
    rots = sum(1 for op in ep.ops if op.kind == "ror" or (op.shift and op.shift[0] == "ror"))
    mixcolumns = 5 * layout.COLS * (spec.rounds - 1)
    sc_aligned = 5 * spec.rounds                    # after each ShiftColumns: 5 of 6 columns
    mc_aligned = 4 * (spec.rounds - 1)              # after MixColumns: at most 4 of 6 (the DP's choice)
    packing = 44                                    # the transposes' gathers (masked: one shift each)
    assert rots <= mixcolumns + sc_aligned + mc_aligned + packing


def _manifest(name):
    path = OUT / name / "manifest.json"
    return json.loads(path.read_text())


@pytest.mark.parametrize("rv32, arm, ratio", [("rijndael256ecb-rv32", "rijndael256ecb-m4", 1.2)])
def test_published_ratio_holds(rv32, arm, ratio):
    a, b = _manifest(rv32), _manifest(arm)
    per = lambda m: m["metrics"]["ecb_cycles_per_block"]["64"]
    assert per(a) <= ratio * per(b), (per(a), per(b))


def test_rv32_drops_use_their_assembly_block_function():
    for name in ("rijndael256ecb-rv32", "speedy5ecb-rv32", "speedy7ctr-rv32"):
        m = _manifest(name)
        facts = m["metrics"]["kernel_facts"]["encrypt_blocks"]
        assert facts["rv32_ops"] > 0 and m["metrics"]["kernel_cycles"]["encrypt_blocks"] > 0
