"""SPEEDY on the Cortex-M (issue 16): the cycle-scored S-box choice, the lazy-rotation round
against the plain round, and the kernel figures that go into the manifest."""
import random
from collections import Counter

import pytest

from gen import presets
from gen.ciphers import get, speedy
from gen.ciphers.base import bits_of, bytes_of, circuit_table
from gen.circuits import rotxor_chain, speedy_sbox
from gen.config import Config
from gen.ir import Builder, run
from gen.kernels.block_portable import programs
from gen.kernels.speedy import layout, sbox_cycles, thumb2_figures
from gen.targets import cortex_m

SPEC = get("speedy5")


@pytest.fixture(scope="module")
def ranked():
    return sbox_cycles.scored_pool(SPEC)


def test_sbox_choice_reproduces_data_and_is_cheapest(ranked):
    best_score, best = ranked[0]
    assert best == speedy_sbox.GATES
    assert SPEC.sbox_circuit == speedy_sbox.GATES
    assert circuit_table(best, speedy_sbox.INPUTS, speedy_sbox.OUTPUTS, 6) == list(speedy.SBOX)
    assert all(best_score["cycles"] <= s["cycles"] for s, _ in ranked)
    # the score is cycles, not gates: among circuits of the fewest gates some cost more
    fewest = min(s["gates"] for s, _ in ranked)
    assert best_score["gates"] == fewest == 47
    assert len({s["cycles"] for s, _ in ranked if s["gates"] == fewest}) > 1


def test_sbox_pool_covers_xor_and_every_circuit_is_correct(ranked):
    assert len(ranked) > 100
    assert any(op == "xor" for _, g in ranked for _, op, _, _ in g)
    # only ops that are one Thumb-2 instruction each
    assert {op for _, g in ranked for _, op, _, _ in g} <= {"and", "or", "xor", "andn", "orn", "not"}
    for _, g in ranked[::17]:
        assert circuit_table(g, speedy_sbox.INPUTS, speedy_sbox.OUTPUTS, 6) == list(speedy.SBOX)


def _plain_round(cols, rk_cols):
    """Reference model's round (gen/ciphers/speedy), bit by bit, on column words."""
    x = bits_of(layout.block_of([c ^ k for c, k in zip(cols, rk_cols)]))
    x = speedy.mix_columns(speedy.shift_columns(speedy.sub_bytes(speedy.shift_columns(speedy.sub_bytes(x)))))
    return layout.columns_of(bytes_of(x))


def test_lazy_rotation_round_equals_plain_round():
    prog = sbox_cycles.round_program(SPEC, SPEC.sbox_circuit)
    rng = random.Random(16)
    for _ in range(200):
        cols = [rng.getrandbits(32) for _ in range(6)]
        rk = [rng.getrandbits(32) for _ in range(6)]
        assert run(prog, {"in": cols, "rk": rk})["out"] == _plain_round(cols, rk)


def test_rotations_cost_no_instruction():
    """Every rotation of ShiftColumns and MixColumns rides in an operand: the rounds of the
    encrypt program contain no rotate instruction (the packing's bit gathers have their own)."""
    _, enc = programs(SPEC)
    rors = Counter(op.kind for op in enc.ops)["ror"]
    packing = 0
    for emit in (layout.emit_pack, layout.emit_unpack):
        b = Builder("p")
        b.declare("in", 6, "r")
        b.declare("out", 6, "w")
        for i, x in enumerate(emit(b, [b.ld("in", i) for i in range(6)])):
            b.st("out", i, x)
        packing += Counter(op.kind for op in b.finish().ops)["ror"]
    assert rors == packing
    # a round: 6 round-key loads, 6 EORs, 2 x 47 gates, 6 x 5 EORs, nothing else
    _, facts = thumb2_figures.figures(SPEC, "cortex-m3")
    assert facts["round_ir_ops"]["round"] == 6 + 6 + 2 * 47 + 6 * 5
    assert facts["mixcolumns_eors_per_column"] == 5


def test_mixcolumns_five_eors_is_the_minimum():
    target = rotxor_chain.mask_of(speedy.MC_OFFSETS)
    assert rotxor_chain.chain_exists(target, 5)
    assert not rotxor_chain.chain_exists(target, 4)
    # the check itself: {0, 1, 2, 3} = (1 + t)(1 + t^2) takes 2 ops, {0, 1, 2, 4} more, {0, 3, 7} 2
    assert rotxor_chain.chain_exists(rotxor_chain.mask_of((0, 1, 2, 3)), 2)
    assert not rotxor_chain.chain_exists(rotxor_chain.mask_of((0, 1, 2, 4)), 2)
    assert not rotxor_chain.chain_exists(rotxor_chain.mask_of((0, 3, 7)), 1)
    assert rotxor_chain.chain_exists(rotxor_chain.mask_of((0, 3, 7)), 2)


@pytest.mark.parametrize("core", ["cortex-m3", "cortex-m4"])
def test_kernel_set_carries_figures_and_comment(core):
    cfg = Config(name="t-speedy", cipher="speedy6", mode="ecb", target=core)
    ks = cortex_m.kernels(cfg)
    kc, facts = ks.kernel_cycles, ks.kernel_facts
    assert 0 < kc["middle_round"] < kc["encrypt_blocks_call"] // 5
    assert kc["round_alone"] > kc["middle_round"]          # its own call frame and loads/stores
    assert facts["sbox_gates"] == len(speedy_sbox.GATES)
    assert "47-gate circuit" in ks.sections[1] and "ShiftColumns costs no instruction" in ks.sections[1]


def test_presets_cover_speedy_on_both_cores():
    names = {f"{c}{m}-{t}" for c in ("speedy5", "speedy6", "speedy7") for m in ("ecb", "ctr") for t in ("m3", "m4")}
    assert names <= set(presets.DEFAULTS)
    for name in names:
        cfg = presets.preset(name)
        assert cfg.target == "cortex-" + name[-2:] and cfg.cipher == name[:7] and cfg.mode == name[7:10]
