"""The multi-key ARMv8-A drops (docs/multikey.md) run the single-key drops' whole-call kernels:
each key size's gcm96_seal (and, with `[armv8] decrypt = "single-pass"`, gcm96_open) generated
for the multi-key ctx's layout and reached through a dispatch on the ctx's key-length word
(gen/targets/multikey.py). Checked in Unicorn against pyca/cryptography per key size on one
ctx re-keyed from size to size (a wrong tag returns -1 with the output zeroed), the executed
stream (the right size's kernel, reached by branches only), and the layout the kernels assume."""
from __future__ import annotations

import dataclasses
import os

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from emu.bench import mca as bench_mca
from emu.machines.machine import Machine
from emu.machines.toolchain import BuildError
from gen import presets
from gen.config import from_dict
from gen.drop import render
from gen.kernels.armv8 import ghash
from gen.modes import gcm
from tests.test_armv8a import _drop
from tests.test_armv8_open import _decrypt
from tests.test_armv8_seal import _encrypt

PRESET = "aesgcm-armv8a"
ONE_PASS = "aesgcm-armv8a-1pass-test"      #: no preset: AES-128 and AES-256, single-pass decrypt


def _config(name):
    if name in presets.PRESETS:
        return presets.preset(name)
    return from_dict({"name": name, "cipher": "aes", "keybits": [128, 256], "mode": "gcm", "target": "armv8a",
                      "ghash": {"impl": "pmull"}, "armv8": {"decrypt": "single-pass"}})


@pytest.mark.parametrize("name", [PRESET, ONE_PASS])
def test_every_key_size_matches_pyca_and_a_bad_tag_zeroes_the_output(tmp_path, name):
    """One ctx, re-keyed to each size in turn: lengths 0..40, around the 8-block groups and 1000,
    AAD none/partial/whole, tag lengths 4..16, in place and misaligned. encrypt() gives pyca's
    ciphertext and tag; decrypt() of it gives the message and 0; the tag wrong in its first or
    last byte gives -1, every output byte zero and nothing past the output written."""
    config = _config(name)
    d, _, fw = _drop(config, tmp_path)
    m, p = Machine(fw.core, fw.image), d.prefix
    ctx = m.alloc(4096)
    lengths = list(range(0, 41)) + [63, 64, 65, 127, 128, 129, 255, 256, 257, 287, 1000]
    for bits in config.keybits:
        key = os.urandom(bits // 8)
        assert m.call(fw.addr(f"{p}_init"), ctx, m.alloc(len(key), key, readonly=True), len(key)) == 0
        for i, n in enumerate(lengths):
            iv, msg = os.urandom(12), os.urandom(n)
            aad = os.urandom((0, 0, 1, 13, 16, 17, 40)[i % 7])
            taglen = (16, 16, 4, 8, 12, 13, 14, 15)[i % 8]
            in_place, offset = i % 3 == 1, i % 5
            ct, tag = _encrypt(m, fw, p, ctx, key, iv, aad, msg, taglen, in_place=in_place, offset=offset)
            ref = AESGCM(key).encrypt(iv, msg, aad or None)
            assert ct == ref[:n] and tag == ref[n:n + taglen], (bits, n, len(aad), taglen)
            assert _decrypt(m, fw, p, ctx, iv, aad, ct, tag, in_place, offset) == (0, msg, b"\xa5" * 8)
            bad = (0, taglen - 1)[i % 2]
            wrong = bytes(b ^ (0x80 if j == bad else 0) for j, b in enumerate(tag))
            rc, got, past = _decrypt(m, fw, p, ctx, iv, aad, ct, wrong, in_place, offset)
            assert (rc, got, past) == (-1, bytes(n), b"\xa5" * 8), (bits, n, len(aad), taglen, bad)


def _stream(r, bits, call, n):
    """encrypt() or decrypt() of n zero bytes (no AAD) under a key of `bits`, recorded by r."""
    m = r.machine
    key = bytes(range(bits // 8))
    ctx = m.alloc(4096)
    r.stream("init", ctx, m.alloc(len(key), key, readonly=True), len(key))
    iv = m.alloc(12, bytes(12), readonly=True)
    sealed = AESGCM(key).encrypt(bytes(12), bytes(n), None)
    src, out, a = m.alloc(n, sealed[:n], readonly=True), m.alloc(n), m.alloc(1)
    if call == "encrypt":
        lines = r.stream("encrypt", ctx, iv, 12, a, 0, src, n, out, m.alloc(16), 16)
    else:
        lines = r.stream("decrypt", ctx, iv, 12, a, 0, src, n, m.alloc(16, sealed[n:], readonly=True), 16, out)
    return lines


@pytest.mark.parametrize("name", [PRESET, ONE_PASS])
def test_a_whole_call_runs_its_key_sizes_kernel_reached_by_branches(tmp_path, name):
    """encrypt() (and, single-pass, decrypt()) of 1 KiB with a 96-bit IV and no AAD: the executed
    stream holds no call instruction (encrypt's checks, the dispatch, then the kernel by tail
    branches; one RET), and runs the key size's own gcm96_seal / gcm96_open once and no other
    size's, nor the stitched loop's C path (ctr_ghash_pairs is not entered from C)."""
    config = _config(name)
    d, _, fw = _drop(config, tmp_path)
    r = bench_mca.Recorder(fw, d.prefix, tmp_path)
    calls = [("encrypt", "gcm96_seal")] + ([("decrypt", "gcm96_open")] if config.decrypt == "single-pass" else [])
    for call, kernel in calls:
        for bits in config.keybits:
            lines = _stream(r, bits, call, 1024)
            assert not [x for x in lines if x.startswith(("bl ", "blr "))], (call, bits)
            assert sum(x == "ret" for x in lines) == 1, (call, bits)
            for other in config.keybits:
                inner = fw.addr(f"{d.prefix}_k{other}_{kernel}")
                assert r.trace.count(inner) == (other == bits), (call, bits, other)
            assert fw.addr(f"{d.prefix}_k{bits}_ctr_ghash_pairs") not in set(r.trace)


def test_the_kernels_find_hk_and_ctr_tab_in_the_multikey_ctx(tmp_path):
    """Every size's kernel takes hk and ctr_tab after the largest key's round keys and the
    key-length word (the AES-128 kernel too, whose single-key twin has them at 176); the glue's
    compile-time check holds those offsets and stops the build if the ctx differs."""
    config = _config(PRESET)
    ks = render.kernel_set(config)
    hk = 4 * ks.rk_words
    assert ks.rk_words == 61 and ks.seal96 == (hk, hk + 4 * ghash.HK_WORDS) == (244, 564)
    for bits in config.keybits:
        seal = next(s for s in ks.sections if f"aesgcm_armv8a_k{bits}_gcm96_seal:" in s)
        assert f"add x5, x0, #{hk}" in seal and f"add x7, x0, #{hk + 4 * ghash.HK_WORDS}" in seal

    def patch(text):
        assert text.count("offsetof(aesgcm_armv8a_ctx, hk) == 244u") == 1
        return text.replace("offsetof(aesgcm_armv8a_ctx, hk) == 244u", "offsetof(aesgcm_armv8a_ctx, hk) == 176u")
    with pytest.raises(BuildError, match="seal_layout"):
        _drop(config, tmp_path, patch)


def test_the_stitched_loop_without_the_whole_call_kernel_is_refused():
    """The glue's one-shot 96-bit encrypt over the stitched loop is gcm96_seal (the C path that
    stood in for it, crypt96, is gone): a kernel set with the loop and without the kernel is a
    generator error, not a header that does not compile."""
    ks = dataclasses.replace(render.kernel_set(presets.preset("aes128gcm-armv8a")), seal96=())
    with pytest.raises(ValueError, match="gcm96_seal"):
        gcm.glue(presets.preset("aes128gcm-armv8a"), ks)
