"""The armv8a target (issue 17): AES-GCM for AArch64 with AESE/AESMC and PMULL, checked in
Unicorn's ARM64 (Cortex-A72 model; the EOR3 variant on the MAX model), by trace equivalence, and
costed with llvm-mca-19."""
from __future__ import annotations

import os
import random
import subprocess
import tomllib
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from emu.bench import mca as bench_mca

from emu.checks import differential

from emu.checks import qemu

from emu.checks import scenarios

from emu.checks import vectors
from emu import platforms as _platforms
from emu.machines.toolchain import BuildError
from emu.machines.machine import EmulationError, Machine
from emu.checks.runner import EmuRunner
from emu.checks.validate import alignment_flags
from gen import presets
from gen.drop import render as generate
from gen.config import from_dict
from gen.errors import ConfigError
from gen.kernels.armv8 import choose, ghash, stitched
from gen.kernels.ghash.model import gf128_mul_ref, clmul

M64 = (1 << 64) - 1


def _config(bits=128, **armv8):
    return from_dict({"name": "t", "cipher": f"aes{bits}", "mode": "gcm", "target": "armv8a", "armv8": armv8})


def _drop(config, work: Path, header_text: str | None = None):
    text, ks = generate.header(config, "test")
    h = work / f"{config.name}.h"
    h.write_text(header_text(text) if header_text else text)
    d = scenarios.Drop(h, config.prefix, config.target, config.spec, config.mode, config.sha256(),
                       ks.ct_extra_lengths, ks.rk_words + ks.ghash.words, ks.core)
    return d, ks, scenarios.Gcm.firmware(d, work)


# -- the arithmetic the kernels implement --------------------------------------------------------
def _twist(h: int) -> int:
    """r(H x^-1): what ghash_init stores (shift left, conditional XOR of 0xC2..01)."""
    carry = h >> 127
    h = (h << 1) & ((1 << 128) - 1)
    return h ^ ((0xC2 << 120) | 1) if carry else h


def _reduce_like_the_kernel(lo: int, hi: int, mid: int) -> int:
    """ghash.reduce step by step on integers (lanes: low 64 bits first; mid is the middle term,
    Karatsuba's correction already applied)."""
    def lanes(x):
        return x & M64, x >> 64

    def join(d0, d1):
        return d0 | (d1 << 64)
    t = join(lanes(lo)[1], lanes(hi)[0])                        # ext t, lo, hi, #8
    mid ^= t                                                    # (L1, L2)
    C = 0xC2 << 56
    t = clmul(lanes(lo)[0], C)                                  # fold L0
    hi = join(lanes(mid)[1], lanes(hi)[1])                      # trn2: (L2, L3)
    mid = join(lanes(mid)[0], lanes(lo)[0])                     # trn1: (L1, L0)
    lo = mid ^ t
    t = join(lanes(lo)[1], lanes(lo)[0])                        # ext t, lo, lo, #8
    lo = clmul(lanes(lo)[0], C)
    return hi ^ t ^ lo


def test_twisted_karatsuba_product_and_two_fold_reduction_are_gcm_multiplication():
    rng = random.Random(17)
    for _ in range(300):
        a, h = rng.getrandbits(128), rng.getrandbits(128)
        b = _twist(h)
        a1, a0, b1, b0 = a >> 64, a & M64, b >> 64, b & M64
        hi, lo = clmul(a1, b1), clmul(a0, b0)
        mid = clmul(a1 ^ a0, b1 ^ b0) ^ hi ^ lo
        assert mid == clmul(a1, b0) ^ clmul(a0, b1)                  # schoolbook's middle term
        assert _reduce_like_the_kernel(lo, hi, mid) == gf128_mul_ref(a, h)


# -- configuration ----------------------------------------------------------------------------------
def test_config_armv8a_options_and_refusals():
    c = _config()
    assert c.ghash == "pmull" and c.options() == {"ghash": "pmull", "unroll": "auto", "mul": "karatsuba",
                                                  "eor3": "off", "seed": 0}
    assert from_dict({**{"name": "t", "cipher": "aes128", "mode": "gcm", "target": "armv8a"}}) == c
    for bad in (6, "8", True):
        with pytest.raises(ConfigError, match="armv8.unroll must be one of: auto, 4, 8"):
            _config(unroll=bad)
    assert from_dict(tomllib.loads(c.toml())) == c
    with pytest.raises(ConfigError, match="unroll is not an option"):
        from_dict({"name": "t", "cipher": "aes128", "mode": "gcm", "target": "cortex-m4", "armv8": {"unroll": 4}})
    with pytest.raises(ConfigError, match="pmull"):
        from_dict({"name": "t", "cipher": "aes128", "mode": "gcm", "target": "armv8a", "ghash": {"impl": "ctmul"}})
    assert from_dict(tomllib.loads(_config(256, unroll=4, mul="schoolbook").toml())) == _config(256, unroll=4,
                                                                                              mul="schoolbook")


def test_the_armv8_keys_leave_other_targets_config_hashes_alone():
    import json
    from tests.conftest import ROOT
    for name in ("aes128gcm-m4-ffs", "aes128gcm-portable"):
        shipped = json.loads((ROOT / "out" / name / "manifest.json").read_text())
        assert presets.preset(name).sha256() == shipped["config_sha256"]


def test_generation_is_deterministic_and_plain_drops_have_no_eor3():
    c = presets.preset("aes256gcm-armv8a")
    a, b = generate.header(c, "x")[0], generate.header(c, "x")[0]
    assert a == b
    assert '"eor3 ' not in a and '"aese ' in a and '"pmull2 ' in a
    assert '"eor3 ' in generate.header(presets.preset("aes128gcm-armv8a-eor3"), "x")[0]


def test_the_target_guard_stops_a_build_without_the_crypto_extension(tmp_path):
    text = generate.header(presets.preset("aes128gcm-armv8a"), "x")[0]
    (tmp_path / "d.h").write_text(text)
    (tmp_path / "d.c").write_text('#define AES128GCM_ARMV8A_IMPLEMENTATION\n#include "d.h"\n')
    bad = subprocess.run(["aarch64-linux-gnu-gcc", "-march=armv8-a", "-c", "d.c"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "-march=armv8-a+crypto" in bad.stderr
    good = subprocess.run(["aarch64-linux-gnu-gcc", "-march=armv8-a+crypto", "-std=c99", "-Wall", "-Wextra",
                           "-Werror", "-O2", "-c", "d.c"], cwd=tmp_path, capture_output=True, text=True)
    assert good.returncode == 0, good.stderr


# -- validation of the variants ---------------------------------------------------------------------
@pytest.mark.parametrize("bits,unroll,mul", [(128, 4, "schoolbook"), (192, 8, "karatsuba"), (256, 4, "karatsuba"),
                                             (256, 8, "schoolbook")])
def test_variants_pass_nist_mcgrew_viega_and_differential(tmp_path, bits, unroll, mul):
    d, _, fw = _drop(_config(bits, unroll=unroll, mul=mul), tmp_path)
    assert fw.core == "cortex-a72"                       # AES + PMULL, no SHA-3: the A72 model
    r = scenarios.Gcm.validate(d, tmp_path, fw)
    assert r.places == ["emulated cortex-a72", "qemu-aarch64 -cpu cortex-a72"]
    assert r.nist_failed == 0 and r.nist_passed == 2 * 15750 and r.differential_cases == 2 * 1000


def test_long_messages_streamed_in_pieces_through_the_stitched_loop(tmp_path):
    """Up to 8 KiB (many 8-block loop steps, every leftover count), one-shot and streamed."""
    d, _, fw = _drop(presets.preset("aes128gcm-armv8a"), tmp_path)
    cases = differential.random_cases(128, 60, seed=1717, max_len=8192)
    for case, (rc, out, tag) in zip(cases, EmuRunner(fw).run(cases)):
        assert vectors.check(case, rc, out, tag) is None, case.label


def _ecb(key: bytes, blocks: bytes) -> bytes:
    e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return e.update(blocks) + e.finalize()


def test_counters_wrap_modulo_2_32_in_both_counter_kernels(tmp_path):
    """inc32 of SP 800-38D: counters wrap modulo 2^32 (bytes 0..11 untouched), the stitched
    kernel's GHASH of its ciphertext matches the plain multiply-and-add, and its round-1 table
    (96-bit IVs) gives the same blocks as full rounds, also for groups that cross a low-byte run."""
    d, ks, fw = _drop(presets.preset("aes128gcm-armv8a"), tmp_path)
    m = Machine(fw.core, fw.image)
    key, iv = os.urandom(16), os.urandom(12)
    ctx = m.alloc(4096)
    assert m.call(fw.addr("aes128gcm_armv8a_init"), ctx, m.alloc(16, key, readonly=True), 16) == 0
    hk, tab = ctx + 4 * ks.rk_words, ctx + 4 * (ks.rk_words + ks.ghash.words)
    h = int.from_bytes(_ecb(key, bytes(16)), "big")
    for start, npairs in ((0xFFFFFFFA, 5), (0x000001F3, 23), (0x00000002, 4)):
        msg = os.urandom(32 * npairs)
        blocks = b"".join(iv + ((start + i) & 0xFFFFFFFF).to_bytes(4, "big") for i in range(2 * npairs))
        expect = bytes(a ^ b for a, b in zip(msg, _ecb(key, blocks)))
        y0 = os.urandom(16)
        y = int.from_bytes(y0, "big")
        for i in range(0, len(expect), 16):
            y = gf128_mul_ref(y ^ int.from_bytes(expect[i:i + 16], "big"), h)
        end = (start + 2 * npairs) & 0xFFFFFFFF
        for kernel, table in (("ctr_pairs", 0), ("ctr_pairs", tab), ("ctr_ghash_pairs", 0), ("ctr_ghash_pairs", tab)):
            cb = m.alloc(32, blocks[:32])
            src, dst, ybuf = m.alloc(len(msg), msg, readonly=True), m.alloc(len(msg)), m.alloc(16, y0)
            extra = (table,) if kernel == "ctr_pairs" else (hk, ybuf, table)
            m.call(fw.addr(f"aes128gcm_armv8a_{kernel}"), ctx, dst, cb, src, npairs, *extra)
            assert m.read(dst, len(msg)) == expect, (kernel, hex(start), table)
            assert m.read(cb, 32) == iv + end.to_bytes(4, "big") + iv + ((end + 1) & 0xFFFFFFFF).to_bytes(4, "big")
            if kernel == "ctr_ghash_pairs":
                assert int.from_bytes(m.read(ybuf, 16), "big") == y


def test_the_eor3_variant_runs_on_max_and_faults_on_the_a72_model(tmp_path):
    d, ks, fw = _drop(presets.preset("aes128gcm-armv8a-eor3"), tmp_path)
    assert fw.core == "armv8a-max"
    r = scenarios.Gcm.validate(d, tmp_path, fw)
    assert r.nist_failed == 0 and r.differential_cases == 2000 and r.places[1] == "qemu-aarch64 -cpu max"
    case = vectors.spec_cases(128)[:1]
    program = qemu.build_program(_platforms.PLATFORMS['aarch64'], d.header, d.prefix, "armv8a-max", tmp_path)
    assert qemu.QemuRunner(program, "armv8a-max").run(case)[0][0] == 0
    with pytest.raises(BuildError, match="cortex-a72"):                # qemu's A72 has no SHA-3 either
        qemu.QemuRunner(program, "cortex-a72").run(case)
    def encrypt(core):
        m = Machine(core, fw.image)
        ctx = m.alloc(4096)
        m.call(fw.addr("aes128gcm_armv8a_eor3_init"), ctx, m.alloc(16, bytes(16), readonly=True), 16)
        iv, msg = m.alloc(12, bytes(12), readonly=True), m.alloc(256, bytes(256), readonly=True)
        return m.call(fw.addr("aes128gcm_armv8a_eor3_encrypt"), ctx, iv, 12, 0, 0, msg, 256, m.alloc(256),
                      m.alloc(16), 16)
    assert encrypt("armv8a-max") == 0
    with pytest.raises(EmulationError, match="EXCEPTION"):      # EOR3 is undefined without SHA-3
        encrypt("cortex-a72")


# -- constant time ---------------------------------------------------------------------------------
def test_drop_is_constant_time_on_the_a72_model(tmp_path):
    d, _, fw = _drop(presets.preset("aes256gcm-armv8a"), tmp_path)
    rep = scenarios.Gcm.constant_time(d, tmp_path, fw)
    assert rep.verified and "encrypt" in rep.checked and "ghash" in rep.checked, str(rep)


LEAKS = {
    # a load whose address depends on the GHASH input (a secret): "table lookup"
    "address": "ldrb w9, [x2]\\n\"\n    \"ldrb w9, [x0, x9]\\n",
    # a branch on it
    "branch": "ldrb w9, [x2]\\n\"\n    \"cbz w9, 9f\\n\"\n    \"nop\\n\"\n    \"9:\\n",
}


@pytest.mark.parametrize("leak", sorted(LEAKS))
def test_the_checker_catches_a_secret_dependent_address_or_branch_in_a64_code(tmp_path, leak):
    marker = "aes128gcm_armv8a_ghash_blocks:\\n\"\n"

    def patch(text):
        assert marker in text
        return text.replace(marker, marker + f'    "{LEAKS[leak]}"\n', 1)
    d, _, fw = _drop(presets.preset("aes128gcm-armv8a"), tmp_path, patch)
    rep = scenarios.Gcm.constant_time(d, tmp_path, fw)
    assert not rep.verified
    assert rep.divergence.symbol == "aes128gcm_armv8a_ghash_blocks", str(rep)
    assert rep.divergence.what == ("data address" if leak == "address" else "control flow"), str(rep)


# -- the llvm-mca cost model -----------------------------------------------------------------------
def test_llvm_mca_costs_the_aes_and_pmull_pipe_as_one_on_a72(tmp_path):
    """The bound docs/armv8.md states: AESE, AESMC and PMULL share one pipe in the A72 model, so 8 blocks
    x (19 AES + 3 PMULL) + 2 cost at least 178 cycles (162 with the round-1 table: 17 AES); the
    stitched loop is close to it."""
    aes = [x for i in range(100) for x in (f"aese v{i % 8}.16b, v16.16b", f"aesmc v{i % 8}.16b, v{i % 8}.16b")]
    both = aes + [f"pmull v{8 + i % 8}.1q, v20.1d, v21.1d" for i in range(100)]
    a = bench_mca.mca_cycles(aes, "cortex-a72", tmp_path)
    b = bench_mca.mca_cycles(both, "cortex-a72", tmp_path)
    assert a >= 200 and b - a >= 95                      # PMULL does not issue beside AESE/AESMC
    for cached, aes_insns in ((False, 8 * 19), (True, 8 * 17)):     # the round-1 table saves 2 a block
        body = choose.stitched_body(128, 8, "karatsuba", "early", cached=cached)
        assert sum(x.startswith(("aese", "aesmc")) for x in body) == aes_insns
        assert sum(x.startswith("pmull") for x in body) == 8 * 3 + 2
        bound = aes_insns + 8 * 3 + 2
        assert bound <= choose.loop_cycles(body, "cortex-a72") < 1.1 * bound


def test_the_spread_is_llvm_mca_s_cheapest():
    """Scored with fused AESE/AESMC pairs (choose.CHOICE_FUSED: every modelled core fuses them)."""
    spread = choose.choose_spread(128, 8, "karatsuba")
    costs = {s: sum(choose.loop_cycles(choose.stitched_body(128, 8, "karatsuba", s), c, fused=True)
                    for c in choose.CHOICE_CORES) for s in stitched.SPREADS}
    assert costs[spread] == min(costs.values())


def test_the_ghash_form_saves_vector_instructions_where_the_choice_cores_lose_nothing():
    """choose.choose_ghash_form (issue 35, the Neoverse V1): the chosen form's loop costs no
    more than PLAIN on the A72 and N1 models, as modelled and fused, and has fewer vector
    instructions (AES-128: pairs and the hoisted constant); pairing every block would cost a
    cycle a step on the N1 model (where the other vector instructions land on the AES/PMULL pipe
    is its greedy choice), which is why the choice is a search; the EOR3 drop, scored on the
    V1, pairs every block; the kernel has the chosen form (TRN1 pairs, no per-group constant)."""
    spread = choose.choose_spread(128, 8, "karatsuba")
    form = choose.choose_ghash_form(128, 8, "karatsuba", spread)
    plain = choose.stitched_body(128, 8, "karatsuba", spread)
    body = choose.stitched_body(128, 8, "karatsuba", spread, form=form)
    assert form[0] and form[1] and choose.vector_ops(body) <= choose.vector_ops(plain) - 2 - len(form[0])
    for core in choose.CHOICE_CORES:
        for fused in (False, True):
            assert choose.loop_cycles(body, core, fused) <= choose.loop_cycles(plain, core, fused)
    every = choose.stitched_body(128, 8, "karatsuba", spread, form=(frozenset({0, 2, 4, 6}), True))
    assert choose.loop_cycles(every, "neoverse-n1") > choose.loop_cycles(plain, "neoverse-n1")
    assert choose.loop_cycles(body, "neoverse-v1") < choose.loop_cycles(plain, "neoverse-v1")
    assert choose.choose_ghash_form(128, 8, "karatsuba", choose.choose_spread(128, 8, "karatsuba", True),
                                    True) == (frozenset({0, 2, 4, 6}), True)
    _, ks = generate.header(_config(), "x")
    assert ks.kernel_cycles["ghash_form"] == {"pairs": sorted(form[0]), "hoisted_constant": True}
    seal = next(x for x in ks.sections if "_gcm96_seal:" in x)
    end = seal.index('"2:')
    loop = seal[seal.rindex('"1:', 0, end):end]              # the loop: a table group and a plain one
    # a TRN1 per pair and one in the reduction, in each of the two groups; the constant is hoisted
    assert loop.count('"trn1 ') == 2 * (len(form[0]) + 1) and '"shl ' not in loop and '"movi ' not in loop


@pytest.mark.parametrize("bits,eor3", [(128, False), (256, False), (128, True)])
def test_auto_unroll_is_llvm_mca_s_cheapest_and_the_kernel_has_it(bits, eor3):
    unroll, costs = choose.choose_unroll(bits, "karatsuba", eor3)
    cores = ("neoverse-v1",) if eor3 else choose.CHOICE_CORES
    for u in (4, 8):
        body = choose.stitched_body(bits, u, "karatsuba", choose.choose_spread(bits, u, "karatsuba", eor3), eor3)
        assert costs[u] == round(sum(choose.loop_cycles(body, c, fused=True) for c in cores) / (16 * u), 4)
    assert set(costs) == {4, 8} and costs[unroll] == min(costs.values())
    c = _config(bits, eor3="on" if eor3 else "off")
    _, ks = generate.header(c, "x")
    fixed = generate.header(_config(bits, unroll=unroll, eor3="on" if eor3 else "off"), "x")[1]
    assert ks.kernel_cycles["unroll_chosen"] == {"unroll": unroll, "loop_cycles_per_byte_summed": costs}
    assert ks.sections == fixed.sections          # auto builds the same kernels as the unroll it chose


def test_bench_records_the_executed_stream(tmp_path):
    d, _, fw = _drop(presets.preset("aes128gcm-armv8a"), tmp_path)
    r = bench_mca.Recorder(fw, "aes128gcm_armv8a", tmp_path)
    m = r.machine
    ctx = m.alloc(4096)
    r.stream("init", ctx, m.alloc(16, bytes(16), readonly=True), 16)
    y, data = m.alloc(16), m.alloc(256, os.urandom(256), readonly=True)
    s = r.stream("ghash", ctx, y, data, 16, expect=None)
    assert sum(x.startswith("pmull") for x in s) == 2 * (8 * 3 + 2)      # two groups of 8, Karatsuba
    assert bench_mca.mca_cycles(s, "cortex-a72", tmp_path) > 2 * 26


# -- no key or message material left in vector registers ------------------------------------------
def _vectors(m: Machine) -> dict[int, int]:
    from unicorn import arm64_const as A
    return {i: m.uc.reg_read(getattr(A, f"UC_ARM64_REG_Q{i}")) for i in range(32)}


def _vector_residue(tmp_path, preset, header_text=None) -> dict:
    """Every API function called with v0-v31 zero beforehand, on messages that take the stitched
    loop, its leftovers, the tail and the streaming paths: {call: nonzero registers after it}."""
    from unicorn import arm64_const as A
    d, _, fw = _drop(presets.preset(preset), tmp_path, header_text)
    m, p, left = Machine(fw.core, fw.image), d.prefix, {}
    keylen = d.spec.key_bytes
    ctx, st = m.alloc(4096), m.alloc(512)
    key, iv = m.alloc(keylen, os.urandom(keylen), readonly=True), m.alloc(60, os.urandom(60), readonly=True)
    msg, out, tag = m.alloc(1000, os.urandom(1000), readonly=True), m.alloc(1000), m.alloc(16)
    back, y = m.alloc(1000), m.alloc(16)

    def call(fn, *args):
        for i in range(32):
            m.uc.reg_write(getattr(A, f"UC_ARM64_REG_Q{i}"), 0)
        rc = m.call(fw.addr(f"{p}_{fn}"), *args)
        regs = {f"v{i}": hex(v) for i, v in _vectors(m).items() if v}
        if regs:
            left[f"{fn}{args[1:3]}"] = regs
        return rc

    assert call("init", ctx, key, keylen) == 0
    for n, ivlen in ((1000, 12), (19, 12), (300, 60)):
        assert call("encrypt", ctx, iv, ivlen, msg, 13, msg, n, out, tag, 16) == 0
        assert call("decrypt", ctx, iv, ivlen, msg, 13, out, n, tag, 16, back) == 0
        assert m.read(back, n) == m.read(msg, n)
    call("ecb_encrypt", ctx, out, msg, 3)
    call("ghash", ctx, y, msg, 20)
    for decrypt, src, dst in ((0, msg, out), (1, out, back)):
        assert call("start", st, ctx, iv, 12, decrypt) == 0
        assert call("aad", st, msg, 7) == 0
        assert call("update", st, src, 333, dst) == 0
        assert call("finish_verify" if decrypt else "finish", st, tag, 16) == 0
    call("wipe", ctx)
    return left


@pytest.mark.parametrize("preset", ["aes128gcm-armv8a", "aes256gcm-armv8a"])
def test_every_api_call_returns_with_all_vector_registers_zero(tmp_path, preset):
    """Round keys (v16..), H powers, counter blocks and keystream are wiped on return."""
    assert _vector_residue(tmp_path, preset) == {}


def test_the_register_check_sees_round_keys_left_behind(tmp_path):
    """The check can fail: without aes_encrypt2's wipe, ecb_encrypt leaves its round keys in v16-v26."""
    def patch(text):
        start = text.index("aes128gcm_armv8a_aes_encrypt2:")
        end = text.index(".size aes128gcm_armv8a_aes_encrypt2")
        body = text[start:end]
        assert body.count("movi v16.16b, #0") == 1
        return text[:start] + body.replace('"movi v16.16b, #0\\n"', '""') + text[end:]
    left = _vector_residue(tmp_path, "aes128gcm-armv8a", patch)
    assert "ecb_encrypt" in " ".join(left) and all(set(regs) == {"v16"} for regs in left.values()), left


def test_whole_pairs_take_one_stitched_call_one_shot_and_streamed(tmp_path):
    """encrypt() with a 96-bit IV and no AAD is one call of gcm96_seal, whatever the length (E(J0),
    the pairs, the tail, the length block and the tag are in it: tests/test_armv8_seal.py); a
    stream (start() leaves E(J0 + 1) unused; update() gives it back) hands all 4,096 bytes to one
    ctr_ghash_pairs call, besides it one AES pair (E(J0)) and one one-block GHASH (the length
    block); the tag is right either way."""
    from unicorn import UC_HOOK_CODE
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    d, _, fw = _drop(presets.preset("aes128gcm-armv8a"), tmp_path)
    m, p = Machine(fw.core, fw.image), d.prefix
    entries = {fw.addr(f"{p}_{k}"): k for k in ("aes_encrypt2", "ghash_blocks", "ctr_ghash_pairs", "ctr_pairs",
                                                 "gcm96_seal")}
    calls = []
    m.uc.hook_add(UC_HOOK_CODE, lambda uc, a, size, _: calls.append(entries[a]) if a in entries else None)
    m.uc.ctl_flush_tb()
    key, ivb, msg = os.urandom(16), os.urandom(12), os.urandom(4096)
    ctx = m.alloc(4096)
    m.call(fw.addr(f"{p}_init"), ctx, m.alloc(16, key, readonly=True), 16)
    for n, expect in ((4096, ["gcm96_seal"]), (48, ["gcm96_seal"]), (13, ["gcm96_seal"]), (17, ["gcm96_seal"])):
        calls.clear()
        out, tag = m.alloc(n), m.alloc(16)
        assert m.call(fw.addr(f"{p}_encrypt"), ctx, m.alloc(12, ivb, readonly=True), 12, 0, 0,
                      m.alloc(n, msg[:n], readonly=True), n, out, tag, 16) == 0
        assert calls == expect
        assert m.read(out, n) + m.read(tag, 16) == AESGCM(key).encrypt(ivb, msg[:n], None)
    st, out, tag = m.alloc(512), m.alloc(4096), m.alloc(16)
    calls.clear()
    assert m.call(fw.addr(f"{p}_start"), st, ctx, m.alloc(12, ivb, readonly=True), 12, 0) == 0
    assert m.call(fw.addr(f"{p}_update"), st, m.alloc(4096, msg, readonly=True), 4096, out) == 0
    assert m.call(fw.addr(f"{p}_finish"), st, tag, 16) == 0
    assert calls == ["aes_encrypt2", "ctr_ghash_pairs", "ghash_blocks"]
    assert m.read(out, 4096) + m.read(tag, 16) == AESGCM(key).encrypt(ivb, msg, None)


def test_a_second_cached_round_in_a_class_form_costs_more_than_it_saves():
    """docs/armv8.md's claim: FACE r2 with batched S-boxes cuts the AES-pipe instructions from 136 to 124
    per 8 blocks but llvm-mca costs that loop above today's on A72 and N1."""
    from gen.kernels.armv8 import face_r2_study
    now = choose.stitched_body(128, 8, "karatsuba", "early")
    r2 = face_r2_study.r2_loop_body()
    aes_insns = [sum(x.split()[0] in ("aese", "aesmc") for x in b) for b in (now, r2)]
    assert aes_insns == [136, 124]
    for core in ("cortex-a72", "neoverse-n1"):
        assert choose.loop_cycles(r2, core) > choose.loop_cycles(now, core)
