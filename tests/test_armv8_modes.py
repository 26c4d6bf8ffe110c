"""GMAC, ECB and counter mode of the ARMv8-A drops (issue 35), on the Cortex-A72 model (llvm-mca-19
over the executed stream).

GMAC: an AAD-only call hashes its AAD through the aggregated 8-block GHASH loop (one reduction
per 8 blocks), whose loop-carried chain is short enough for the model to run it at its two vector
pipes' bound; the whole call is <= 0.51 c/B over 4 KiB (the seed paper's authentication figure).
ECB and CTR: pipelined loops, 8 blocks in flight with the round keys in registers; right against
pyca for every leftover count and in place, and at the one-pipe bound."""
from __future__ import annotations

import os

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from emu.bench import mca as bench_mca
from emu.checks import scenarios
from gen import presets
from gen.drop import render as generate
from gen.kernels.armv8 import aes, choose, ghash


def _recorder(preset, work):
    config = presets.preset(preset)
    text, ks = generate.header(config, "test")
    h = work / f"{config.name}.h"
    h.write_text(text)
    d = scenarios.Drop(h, config.prefix, config.target, config.spec, config.mode, config.sha256(),
                       ks.ct_extra_lengths, ks.rk_words + ks.ghash.words, ks.core)
    return bench_mca.Recorder(scenarios.Gcm.firmware(d, work), d.prefix, work), config.spec.key_bytes


def _ecb(key: bytes, data: bytes) -> bytes:
    e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return e.update(data) + e.finalize()


@pytest.mark.parametrize("preset", ["aes128gcm-armv8a", "aes256gcm-armv8a"])
def test_ecb_is_aes_for_every_count_and_in_place(tmp_path, preset):
    r, keylen = _recorder(preset, tmp_path)
    m = r.machine
    key = os.urandom(keylen)
    ctx = m.alloc(4096)
    r.stream("init", ctx, m.alloc(keylen, key, readonly=True), keylen)
    for n in (1, 2, 3, 6, 7, 8, 9, 10, 15, 16, 17, 24, 31, 64, 71):
        data = os.urandom(16 * n)
        src, dst = m.alloc(16 * n, data, readonly=True), m.alloc(16 * n + 16, bytes(16 * n + 16))
        r.stream("ecb_encrypt", ctx, dst, src, n, expect=None)
        assert m.read(dst, 16 * n + 16) == _ecb(key, data) + bytes(16), n        # nothing written past the end
        buf = m.alloc(16 * n, data)
        r.stream("ecb_encrypt", ctx, buf, buf, n, expect=None)
        assert m.read(buf, 16 * n) == _ecb(key, data), n


def test_ecb_meets_the_one_pipe_bound_on_the_a72_model(tmp_path):
    """19 AES instructions a block on the A72's one AES pipe: the loop step of 8 blocks costs
    8 x 19 cycles (within 1 %), the whole call over 64 blocks <= 1.22 c/B (seed paper: 1.21)."""
    step = aes.ecb_step(8, 10)
    assert 8 * 19 <= choose.loop_cycles(step[0] + step[1], "cortex-a72") <= 1.01 * 8 * 19
    r, _ = _recorder("aes128gcm-armv8a", tmp_path)
    m = r.machine
    ctx = m.alloc(4096)
    r.stream("init", ctx, m.alloc(16, bytes(16), readonly=True), 16)
    s = r.stream("ecb_encrypt", ctx, m.alloc(1024), m.alloc(1024, bytes(1024), readonly=True), 64, expect=None)
    assert sum(x.startswith(("aese", "aesmc")) for x in s) == 64 * 19
    assert bench_mca.mca_cycles(s, "cortex-a72", tmp_path) <= 1.22 * 1024


def test_gmac_takes_the_aggregated_ghash_and_meets_the_seed_figure(tmp_path):
    r, _ = _recorder("aes128gcm-armv8a", tmp_path)
    m = r.machine
    key, iv, aad = bytes(range(16)), bytes(range(12)), bytes((7 * i + 1) & 0xFF for i in range(4096))
    ctx = m.alloc(4096)
    r.stream("init", ctx, m.alloc(16, key, readonly=True), 16)
    tag = m.alloc(16)
    s = r.stream("encrypt", ctx, m.alloc(12, iv, readonly=True), 12, m.alloc(4096, aad, readonly=True), 4096,
                 0, 0, 0, tag, 16)
    assert m.read(tag, 16) == AESGCM(key).encrypt(iv, b"", aad)
    # 32 groups of 8 (3 PMULLs a block, 2 a reduction), then the length block alone
    assert sum(x.startswith("pmull") for x in s) == 32 * (8 * 3 + 2) + (3 + 2)
    assert bench_mca.mca_cycles(s, "cortex-a72", tmp_path) <= 0.51 * 4096


def test_the_ghash_loop_runs_at_the_a72_vector_pipes_bound():
    """Cortex-A72 model: two vector pipes; a step of 8 blocks issues its vector instructions in
    at least half their count of cycles, and Y entering last keeps the chain from one step's Y
    to the next under that."""
    body = ghash.group(8, "karatsuba")
    vector = sum(1 for x in body if not x.startswith(("ld1", "ldr", "ldp")))
    bound = vector / 2
    assert bound <= choose.loop_cycles(body, "cortex-a72") < 1.1 * bound


def _ctr_call(r, ctx, start: int, iv: bytes, msg: bytes, table: int):
    m = r.machine
    cb = m.alloc(32, iv + start.to_bytes(4, "big") + iv + ((start + 1) & 0xFFFFFFFF).to_bytes(4, "big"))
    src, dst = m.alloc(len(msg), msg, readonly=True), m.alloc(len(msg) + 16)
    s = r.stream("ctr_pairs", ctx, dst, cb, src, len(msg) // 32, table, expect=None)
    return s, m.read(dst, len(msg) + 16)


@pytest.mark.parametrize("preset", ["aes128gcm-armv8a", "aes192gcm-armv8a", "aes256gcm-armv8a"])
def test_ctr_pairs_is_counter_mode_for_every_count_with_and_without_the_table(tmp_path, preset):
    """Message blocks premixed with the last round key (all 8 for AES-128 and -192, 7 and one the
    usual way for AES-256): pyca's counter mode for 1..9 and 16 pairs, groups inside one low-byte
    run and across one, with the round-1 table and without."""
    r, keylen = _recorder(preset, tmp_path)
    m = r.machine
    key, iv = os.urandom(keylen), os.urandom(12)
    ctx = m.alloc(4096)
    r.stream("init", ctx, m.alloc(keylen, key, readonly=True), keylen)
    tab = ctx + r.fw.symbols["sg_ctx"][1] - bench_mca.CTR_TABLE_BYTES
    for npairs in (*range(1, 10), 16):
        for start in (2, 0x1F9, 0xFFFFFFF0):
            msg = os.urandom(32 * npairs)
            blocks = b"".join(iv + ((start + i) & 0xFFFFFFFF).to_bytes(4, "big") for i in range(2 * npairs))
            expect = bytes(a ^ b for a, b in zip(msg, _ecb(key, blocks))) + bytes(16)
            for table in (tab, 0):
                assert _ctr_call(r, ctx, start, iv, msg, table)[1] == expect, (npairs, hex(start), table)


def test_ctr_meets_the_one_pipe_bound_with_the_table_on_the_a72_model(tmp_path):
    """17 AES instructions a block with the round-1 table: the loop step of 8 blocks within 0.5 %
    of 8 x 17 cycles, one call over 64 blocks <= 1.12 c/B."""
    from gen.kernels.armv8 import ctr
    assert 8 * 17 <= choose.loop_cycles(ctr.loop_body(8, 10, False), "cortex-a72") <= 1.005 * 8 * 17
    r, _ = _recorder("aes128gcm-armv8a", tmp_path)
    m = r.machine
    ctx = m.alloc(4096)
    r.stream("init", ctx, m.alloc(16, bytes(16), readonly=True), 16)
    tab = ctx + r.fw.symbols["sg_ctx"][1] - bench_mca.CTR_TABLE_BYTES
    s, _ = _ctr_call(r, ctx, 2, bytes(12), bytes(1024), tab)
    assert sum(x.startswith(("aese", "aesmc")) for x in s) == 64 * 17 + 2          # + the run's base
    assert bench_mca.mca_cycles(s, "cortex-a72", tmp_path) <= 1.12 * 1024
