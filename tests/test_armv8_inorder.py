"""Scheduling for the in-order Cortex-A55 (issue 35, ``[armv8] core = "cortex-a55"``,
gen/kernels/armv8/inorder.py): what an instruction reads and writes, that a schedule is a
permutation keeping every dependence (and that the check catches one that is not), that the
kernels are scheduled only where llvm-mca costs their loop cheaper on the A55, and that such a
drop passes NIST and the differential runs in Unicorn and qemu."""
from __future__ import annotations

import pytest

from emu.checks import scenarios
from gen.config import from_dict
from gen.drop import render as generate
from gen.errors import ConfigError
from gen.kernels.armv8 import aes, choose, ctr, ghash, inorder


def test_effects_of_the_forms_the_kernels_use():
    e = inorder.effects
    assert e("ldr q8, [x8], #16") == ({"x8"}, {"x8", "v8"}, "load")           # post-index writes the base
    assert e("ldr s3, [x13, #12]") == ({"x13"}, {"v3"}, "load")
    assert e("stp q0, q1, [x1], #32") == ({"x1", "v0", "v1"}, {"x1"}, "store")
    assert e("ld1 {v16.16b, v17.16b}, [x15], #32") == ({"x15"}, {"x15", "v16", "v17"}, "load")
    assert e("mov v31.s[3], w12") == ({"x12", "v31"}, {"v31"}, None)         # a lane: reads the rest
    assert e("aese v0.16b, v16.16b") == ({"v0", "v16"}, {"v0"}, None)
    assert e("eor3 v1.16b, v1.16b, v8.16b, v26.16b") == ({"v1", "v8", "v26"}, {"v1"}, None)
    assert e("add x13, x7, w13, uxtw #2") == ({"x7", "x13"}, {"x13"}, None)
    assert e("and w13, w12, #0xff") == ({"x12"}, {"x13"}, None)
    assert e("cmp x4, #4") == ({"x4"}, {"flags"}, None)
    assert e("subs x3, x3, #1") == ({"x3"}, {"x3", "flags"}, None)
    assert e("pmull2 v11.1q, v8.2d, v9.2d") == ({"v8", "v9"}, {"v11"}, None)


BODIES = {"stitched": choose.stitched_body(128, 8, "karatsuba", "early"),
          "stitched-256-eor3": choose.stitched_body(256, 4, "schoolbook", "late", eor3=True),
          "ghash": ghash.group(8, "karatsuba"), "ctr": ctr.loop_body(8, 14, False),
          "ecb": sum(aes.ecb_step(8, 12), [])}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_a_schedule_is_a_permutation_that_keeps_every_dependence(name):
    body = BODIES[name]
    done = inorder.schedule_region(body, "cortex-a55")
    assert done != body                                   # it does move things
    inorder.check(body, done)
    for i, line in enumerate(done):                       # AESE/AESMC pairs stay adjacent
        if line.startswith("aesmc"):
            assert done[i - 1].startswith("aese") and done[i - 1].split()[1] == line.split()[1]


def test_the_check_catches_a_broken_dependence():
    body = ["ldr q8, [x8], #16", "rev64 v8.16b, v8.16b", "eor v9.16b, v9.16b, v8.16b", "str q9, [x1]",
            "ldr q10, [x1]"]
    for bad in (["rev64 v8.16b, v8.16b", "ldr q8, [x8], #16", *body[2:]],          # read before written
                [*body[:3], "ldr q10, [x1]", "str q9, [x1]"],                     # a load passes a store
                body[:-1]):                                                        # an instruction lost
        with pytest.raises(ValueError):
            inorder.check(body, bad)
    inorder.check(body, body)


def test_kernels_are_scheduled_only_where_llvm_mca_costs_them_cheaper_on_the_a55():
    chosen = choose.choose_schedules(128, 8, "karatsuba", "early", False, "cortex-a55")
    for name, (body, kernel, _) in choose._loops(128, 8, "karatsuba", "early", False).items():
        if name.endswith("_no_table"):
            continue
        a = choose.loop_cycles(body, "cortex-a55", fused=True)
        b = choose.loop_cycles(inorder.schedule(body, "cortex-a55"), "cortex-a55", fused=True)
        assert chosen[kernel] == (b < a)
    assert chosen["ctr_ghash_pairs"] and chosen["ghash_blocks"]       # the GCM loops gain on the A55
    c = from_dict({"name": "t", "cipher": "aes128", "mode": "gcm", "target": "armv8a", "armv8": {"core": "cortex-a55"}})
    text, ks = generate.header(c, "x")
    assert ks.kernel_cycles["scheduled_for"] == {"core": "cortex-a55", "kernels": chosen}
    assert "scheduled for cortex-a55" in text
    plain = from_dict({"name": "t", "cipher": "aes128", "mode": "gcm", "target": "armv8a"})
    assert "core" not in plain.options() and "scheduled for" not in generate.header(plain, "x")[0]


def test_the_a55_has_no_eor3():
    with pytest.raises(ConfigError, match="SHA-3"):
        from_dict({"name": "t", "cipher": "aes128", "mode": "gcm", "target": "armv8a",
                   "armv8": {"core": "cortex-a55", "eor3": "on"}})


@pytest.mark.parametrize("bits", [128, 256])
def test_a55_scheduled_drops_pass_nist_and_differential(tmp_path, bits):
    c = from_dict({"name": "t", "cipher": f"aes{bits}", "mode": "gcm", "target": "armv8a",
                   "armv8": {"core": "cortex-a55"}})
    text, ks = generate.header(c, "test")
    h = tmp_path / "t.h"
    h.write_text(text)
    d = scenarios.Drop(h, c.prefix, c.target, c.spec, c.mode, c.sha256(), ks.ct_extra_lengths,
                       ks.rk_words + ks.ghash.words, ks.core)
    fw = scenarios.Gcm.firmware(d, tmp_path)
    r = scenarios.Gcm.validate(d, tmp_path, fw)
    assert r.places == ["emulated cortex-a72", "qemu-aarch64 -cpu cortex-a72"]
    assert r.nist_failed == 0 and r.nist_passed == 2 * 15750 and r.differential_cases == 2 * 1000
