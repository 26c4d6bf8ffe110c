"""The whole-call single-pass decrypt kernel of the ARMv8-A drops (gen/kernels/armv8/open96.py,
issue 35; `[armv8] decrypt = "single-pass"`): right against pyca/cryptography for every tail,
leftover pair count, AAD and tag length, in place and misaligned, for AES-128 and AES-256; a
wrong tag of any length returns -1 with the whole output zeroed; one call with nothing else
around it; no secret (E(J0), the computed tag, keystream) left on the stack."""
from __future__ import annotations

import os
import random

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from emu.bench import mca as bench_mca
from emu.machines import layout
from emu.machines.machine import Machine
from gen import presets
from gen.config import from_dict
from gen.cores import aarch64
from gen.kernels.armv8 import open96
from tests.test_armv8a import _drop

PRESET = "aes128gcm-armv8a-1pass"


def _config(name):
    """The preset, or (no preset) AES-256 single-pass, or AES-128 single-pass scheduled for the A55."""
    if name in presets.PRESETS:
        return presets.preset(name)
    cipher, core = ("aes128", {"core": "cortex-a55"}) if "a55" in name else ("aes256", {})
    return from_dict({"name": name, "cipher": cipher, "mode": "gcm", "target": "armv8a",
                      "ghash": {"impl": "pmull"}, "armv8": {"decrypt": "single-pass", **core}})


def _decrypt(m, fw, p, ctx, iv, aad, ct, tag, in_place=False, offset=0):
    """decrypt() in Unicorn: (return value, the output as the drop left it, 8 bytes past it)."""
    n = len(ct)
    src = m.alloc(n + 8, ct + b"\xa5" * 8, offset=offset)
    out = src if in_place else m.alloc(n + 8, b"\xa5" * (n + 8), offset=(offset + 3) % 8)
    t = m.alloc(len(tag), tag, readonly=True, offset=offset)
    a = m.alloc(max(len(aad), 1), aad or b"\0", readonly=True, offset=offset)
    ivp = m.alloc(12, iv, readonly=True, offset=offset)
    rc = m.call(fw.addr(f"{p}_decrypt"), ctx, ivp, 12, a, len(aad), src, n, t, len(tag), out)
    got = m.read(out, n + 8)
    return rc - (1 << 32) if rc >= 1 << 31 else rc, got[:n], got[n:]


@pytest.mark.parametrize("name", [PRESET, "aes256gcm-armv8a-1pass-test", "aes128gcm-armv8a-a55-1pass-test"])
def test_open_matches_pyca_and_zeroes_out_on_every_bad_tag(tmp_path, name):
    """Lengths 0..100 and 1-9, 16, 17 whole pairs with tails 0, 1, 16 and 31 (the loop, every
    leftover group, the tail of one and two blocks), AAD none/partial/whole blocks, tag lengths
    4..16, in place and misaligned: the right tag gives pyca's plaintext and returns 0; the tag
    wrong in its first or last byte returns -1 with every byte of the output zero and nothing
    past it written."""
    d, ks, fw = _drop(_config(name), tmp_path)
    if "a55" in name:                                 # the kernel is list-scheduled like gcm96_seal
        assert f"{d.prefix}_gcm96_open: " in ks.sections[-1] and "scheduled for cortex-a55" in ks.sections[-1]
    m, p, rnd = Machine(fw.core, fw.image), d.prefix, random.Random(35)
    key = os.urandom(d.spec.key_bytes)
    ctx = m.alloc(4096)
    assert m.call(fw.addr(f"{p}_init"), ctx, m.alloc(len(key), key, readonly=True), len(key)) == 0
    lengths = list(range(0, 101)) + [32 * k + t for k in (*range(1, 10), 16, 17) for t in (0, 1, 16, 31)]
    for i, n in enumerate(lengths):
        iv, msg = os.urandom(12), os.urandom(n)
        aad = os.urandom((0, 0, 1, 13, 16, 17, 40)[i % 7])
        taglen = (16, 16, 4, 8, 12, 13, 14, 15)[i % 8]
        sealed = AESGCM(key).encrypt(iv, msg, aad or None)
        ct, tag = sealed[:n], sealed[n:n + taglen]
        in_place, offset = i % 3 == 1, i % 5
        rc, got, past = _decrypt(m, fw, p, ctx, iv, aad, ct, tag, in_place, offset)
        assert (rc, got, past) == (0, msg, b"\xa5" * 8), (n, len(aad), taglen)
        bad = rnd.choice((0, taglen - 1))
        wrong = bytes(b ^ (0x80 if j == bad else 0) for j, b in enumerate(tag))
        rc, got, past = _decrypt(m, fw, p, ctx, iv, aad, ct, wrong, in_place, offset)
        assert (rc, got, past) == (-1, bytes(n), b"\xa5" * 8), (n, len(aad), taglen, bad)


def _stream(tmp_path, n, aad=0, good=True):
    d, _, fw = _drop(presets.preset(PRESET), tmp_path)
    r = bench_mca.Recorder(fw, d.prefix, tmp_path)
    m = r.machine
    key, iv, a = bytes(range(16)), bytes(12), bytes(aad)
    ctx = m.alloc(4096)
    r.stream("init", ctx, m.alloc(16, key, readonly=True), 16)
    sealed = AESGCM(key).encrypt(iv, bytes(n), a or None)
    tag = sealed[n:] if good else bytes(16)
    src, out = m.alloc(n, sealed[:n], readonly=True), m.alloc(n)
    lines = r.stream("decrypt", ctx, m.alloc(12, iv, readonly=True), 12, m.alloc(max(aad, 1), bytes(max(aad, 1))),
                     aad, src, n, m.alloc(16, tag, readonly=True), 16, out, expect=0 if good else -1)
    return d, fw, r, lines


def test_a_whole_decrypt_without_aad_is_one_kernel_reached_by_a_branch(tmp_path):
    """decrypt() of 4 KiB, no AAD: the executed stream holds no call instruction (the inline
    checks, then a tail branch into gcm96_open, whose RET returns to the caller), the stitched
    loop hashes every block once (32 groups of 8: 26 PMULLs each) and the length block once (5),
    every AESMC fuses with its AESE. With AAD, the AAD's GHASH is one call before the kernel."""
    d, fw, r, lines = _stream(tmp_path, 4096)
    assert not [x for x in lines if x.startswith(("bl ", "blr "))]
    assert sum(x.startswith("pmull") for x in lines) == 32 * 26 + 5
    assert r.trace.count(fw.addr(f"{d.prefix}_gcm96_open")) == 1 and sum(x == "ret" for x in lines) == 1
    assert fw.addr(f"{d.prefix}_ctr_ghash_dec_pairs") not in set(r.trace)
    assert all(aarch64.fused_pair(lines[i - 1], x) for i, x in enumerate(lines) if x.startswith("aesmc"))
    d, fw, r, _ = _stream(tmp_path, 4096, aad=13, good=False)
    assert r.trace.count(fw.addr(f"{d.prefix}_ghash_blocks")) == 1
    assert r.trace.count(fw.addr(f"{d.prefix}_gcm96_open")) == 1


def test_the_kernel_leaves_no_secret_on_the_stack(tmp_path):
    """After a decrypt() with a tail, AAD and a wrong tag (every part of the frame used, the byte
    compare too: taglen 12), the stack holds neither E(J0), the right tag nor the tail's
    keystream, in either lane order."""
    d, _, fw = _drop(presets.preset(PRESET), tmp_path)
    m, p = Machine(fw.core, fw.image), d.prefix
    key, iv, msg, aad = os.urandom(16), os.urandom(12), os.urandom(300), b"x" * 13
    ctx = m.alloc(4096)
    assert m.call(fw.addr(f"{p}_init"), ctx, m.alloc(16, key, readonly=True), 16) == 0
    sealed = AESGCM(key).encrypt(iv, msg, aad)
    rc, got, _ = _decrypt(m, fw, p, ctx, iv, aad, sealed[:300], bytes(12))
    assert rc == -1 and got == bytes(300)
    aes = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    ej0 = aes.update(iv + (1).to_bytes(4, "big"))
    ks = aes.update(iv + (2 + 300 // 16).to_bytes(4, "big"))       # the tail's first keystream block
    stack = m.read(layout.STACK_BASE, layout.STACK_SIZE)
    for secret in (ej0, ks, sealed[300:]):
        for form in (secret, secret[7::-1] + secret[:7:-1]):
            assert form not in stack


def test_the_compare_has_no_branch_on_a_tag_byte():
    """The kernel's tag comparison branches only on the tag length and its byte index; the one
    branch on the verdict (x13) follows the whole comparison."""
    body = open96.compare_tag()
    assert [x for x in body if x.split()[0].startswith(("b", "cb", "tb"))] == [
        "b.ne 56f", "b 57f", "b.lo 55b"]
    text = open96.gcm96_open("p", 128)
    assert text.count("cbz x13, 58f") == 1 and "csetm w0, ne" in text
