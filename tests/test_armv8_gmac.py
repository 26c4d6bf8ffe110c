"""GMAC on the ARMv8-A drops (issue 35): an AAD-only call hashes its AAD through the aggregated
8-block GHASH loop (one reduction per 8 blocks), whose loop-carried chain is short enough for
the Cortex-A72 model to run it at its two vector pipes' bound; the whole call is <= 0.51 c/B
there over 4 KiB (the seed paper's GCM-authentication figure)."""
from __future__ import annotations

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from emu.bench import mca as bench_mca
from emu.checks import scenarios
from gen import presets
from gen.drop import render as generate
from gen.kernels.armv8 import choose, ghash


def _recorder(preset, work):
    config = presets.preset(preset)
    text, ks = generate.header(config, "test")
    h = work / f"{config.name}.h"
    h.write_text(text)
    d = scenarios.Drop(h, config.prefix, config.target, config.spec, config.mode, config.sha256(),
                       ks.ct_extra_lengths, ks.rk_words + ks.ghash.words, ks.core)
    return bench_mca.Recorder(scenarios.Gcm.firmware(d, work), d.prefix, work)


def test_gmac_takes_the_aggregated_ghash_and_meets_the_seed_figure(tmp_path):
    r = _recorder("aes128gcm-armv8a", tmp_path)
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
