"""The whole-call encrypt kernel of the ARMv8-A drops (gen/kernels/armv8/seal.py, issue 35):
right against pyca/cryptography for every tail, AAD and tag length, one call with nothing else
around it, the length block folded into the last group, its stack wiped, the ctx layout guarded,
and the issue's whole-call figures on llvm-mca-19's models."""
from __future__ import annotations

import os
import random

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from emu.bench import mca as bench_mca
from emu.machines import layout
from emu.machines.machine import Machine
from emu.machines.toolchain import BuildError
from gen import presets
from gen.cores import aarch64
from tests.test_armv8a import _drop


def _encrypt(m, fw, p, ctx, key, iv, aad, msg, taglen, in_place=False, offset=0):
    """encrypt() in Unicorn; (ciphertext, tag) as the drop wrote them."""
    n = len(msg)
    src = m.alloc(max(n, 1), msg or b"\0", offset=offset)
    out = src if in_place else m.alloc(max(n, 1), offset=(offset + 3) % 8)
    tag = m.alloc(16, offset=offset)
    a = m.alloc(max(len(aad), 1), aad or b"\0", readonly=True, offset=offset)
    ivp = m.alloc(12, iv, readonly=True, offset=offset)
    assert m.call(fw.addr(f"{p}_encrypt"), ctx, ivp, 12, a, len(aad), src, n, out, tag, taglen) == 0
    return m.read(out, n), m.read(tag, taglen)


@pytest.mark.parametrize("preset", ["aes128gcm-armv8a", "aes256gcm-armv8a"])
def test_seal_matches_pyca_for_every_tail_aad_and_tag_length(tmp_path, preset):
    """Message lengths 0..100 and around the 8-block groups (every tail 1..31 and every leftover
    pair count), AAD none/partial/whole blocks, tag lengths 4..16, in place and misaligned."""
    d, _, fw = _drop(presets.preset(preset), tmp_path)
    m, p, rnd = Machine(fw.core, fw.image), d.prefix, random.Random(35)
    key = os.urandom(d.spec.key_bytes)
    ctx = m.alloc(4096)
    assert m.call(fw.addr(f"{p}_init"), ctx, m.alloc(len(key), key, readonly=True), len(key)) == 0
    lengths = list(range(0, 101)) + [127, 128, 129, 160, 255, 256, 257, 287, 288, 1000, 4096]
    for i, n in enumerate(lengths):
        iv, msg = os.urandom(12), os.urandom(n)
        aad = os.urandom((0, 0, 1, 13, 16, 17, 40)[i % 7])
        taglen = (16, 16, 4, 8, 12, 13, 14, 15)[i % 8]
        ct, tag = _encrypt(m, fw, p, ctx, key, iv, aad, msg, taglen, in_place=i % 3 == 1, offset=i % 5)
        ref = AESGCM(key).encrypt(iv, msg, aad or None)
        assert ct == ref[:n] and tag == ref[n:n + taglen], (n, len(aad), taglen)


def _stream(preset, tmp_path, n, aad=0):
    d, _, fw = _drop(presets.preset(preset), tmp_path)
    r = bench_mca.Recorder(fw, d.prefix, tmp_path)
    m = r.machine
    key = bytes(range(d.spec.key_bytes))
    ctx = m.alloc(4096)
    r.stream("init", ctx, m.alloc(len(key), key, readonly=True), len(key))
    iv, msg = m.alloc(12, bytes(12), readonly=True), m.alloc(n, bytes(n), readonly=True)
    out, tag = m.alloc(n), m.alloc(16)
    a = m.alloc(max(aad, 1), bytes(max(aad, 1)), readonly=True)
    lines = r.stream("encrypt", ctx, iv, 12, a, aad, msg, n, out, tag, 16)
    return d, fw, r, lines


def test_a_whole_call_without_aad_is_one_kernel_reached_by_a_branch_and_the_length_block_is_folded(tmp_path):
    """encrypt() of 4 KiB, no AAD: the executed stream holds no call instruction (encrypt's
    checks, then a tail branch into gcm96_seal, whose RET returns to the caller), and its PMULLs
    are 32 groups of 8 (3 each and 2 for the reduction) plus H^9 and L.H (5 each): no product
    of the length block after the last group. With AAD, the AAD's GHASH is one call before."""
    d, fw, r, lines = _stream("aes128gcm-armv8a", tmp_path, 4096)
    assert not [x for x in lines if x.startswith(("bl ", "blr "))]
    assert sum(x.startswith("pmull") for x in lines) == 32 * 26 + 2 * 5
    seal = fw.addr(f"{d.prefix}_gcm96_seal")
    assert r.trace.count(seal) == 1 and sum(x == "ret" for x in lines) == 1
    # every AESMC executed fuses with the AESE before it (E(J0)'s pairs are dealt into a group)
    assert all(aarch64.fused_pair(lines[i - 1], x) for i, x in enumerate(lines) if x.startswith("aesmc"))
    _, fw, r, _ = _stream("aes128gcm-armv8a", tmp_path, 4096, aad=13)
    assert r.trace.count(fw.addr(f"{d.prefix}_ghash_blocks")) == 1
    assert r.trace.count(fw.addr(f"{d.prefix}_gcm96_seal")) == 1


def test_a_kernel_body_that_moves_sp_is_refused():
    """The in-order scheduler does not track sp, so a body asks for its stack with frame=."""
    from gen.kernels.armv8.asm import function
    for line in ("sub sp, sp, #64", "stp x0, x1, [sp, #-16]!", "ldp x0, x1, [sp], #16"):
        with pytest.raises(ValueError, match="moves sp"):
            function("void f(void)", "f", ["nop", line], framed=True)
    with pytest.raises(ValueError, match="multiple of 16"):
        function("void f(void)", "f", ["nop"], framed=True, frame=24)
    assert "sub sp, sp, #32" in function("void f(void)", "f", ["str q0, [sp]"], framed=True, frame=32)


def test_the_kernel_leaves_no_secret_on_the_stack(tmp_path):
    """After encrypt() with a tail and AAD (every part of the frame used), the stack below the
    caller holds neither E(J0) nor the tail's keystream, in either lane order."""
    d, _, fw = _drop(presets.preset("aes128gcm-armv8a"), tmp_path)
    m, p = Machine(fw.core, fw.image), d.prefix
    key, iv, msg = os.urandom(16), os.urandom(12), os.urandom(300)
    ctx = m.alloc(4096)
    assert m.call(fw.addr(f"{p}_init"), ctx, m.alloc(16, key, readonly=True), 16) == 0
    _encrypt(m, fw, p, ctx, key, iv, b"x" * 13, msg, 16)
    aes = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    ej0 = aes.update(iv + (1).to_bytes(4, "big"))
    ks = aes.update(iv + (2 + 300 // 16).to_bytes(4, "big"))       # the tail's first keystream block
    stack = m.read(layout.STACK_BASE, layout.STACK_SIZE)
    for secret in (ej0, ks):
        for form in (secret, secret[7::-1] + secret[:7:-1]):
            assert form not in stack


def test_the_ctx_layout_the_kernel_assumes_is_checked_at_compile_time(tmp_path):
    """gcm96_seal finds hk and ctr_tab at fixed offsets; the glue's typedef stops the build if
    the ctx ever differs (here: the offset the check expects moved by 16)."""
    def patch(text):
        assert text.count("offsetof(aes128gcm_armv8a_ctx, hk) == 176u") == 1
        return text.replace("offsetof(aes128gcm_armv8a_ctx, hk) == 176u", "offsetof(aes128gcm_armv8a_ctx, hk) == 192u")
    with pytest.raises(BuildError, match="seal_layout"):
        _drop(presets.preset("aes128gcm-armv8a"), tmp_path, patch)


#: issue 35's whole-call targets (c/B, AES-128-GCM 4 KiB, no AAD): (preset, core, fused) -> bound
TARGETS = {("aes128gcm-armv8a", "cortex-a72", True): 0.88, ("aes128gcm-armv8a", "neoverse-n1", True): 0.89,
           ("aes128gcm-armv8a", "neoverse-v1", True): 0.41, ("aes128gcm-armv8a-eor3", "neoverse-v1", True): 0.35,
           ("aes128gcm-armv8a-eor3", "neoverse-v1", False): 0.48,
           ("aes128gcm-armv8a", "neoverse-v1", False): 0.48,
           ("aes128gcm-armv8a", "cortex-a72", False): 1.435, ("aes128gcm-armv8a", "neoverse-n1", False): 1.453}


@pytest.mark.parametrize("preset", ["aes128gcm-armv8a", "aes128gcm-armv8a-eor3"])
def test_whole_call_figures_meet_the_issue_targets(tmp_path, preset):
    _, fw, _, lines = _stream(preset, tmp_path, 4096)
    for (name, core, fused), bound in TARGETS.items():
        if name != preset:
            continue
        s = aarch64.fuse_aes(lines) if fused else lines
        cpb = bench_mca.mca_cycles(s, core, tmp_path, sha3=fw.core == "armv8a-max") / 4096
        assert cpb <= bound, (preset, core, fused, cpb)
