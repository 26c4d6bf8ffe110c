"""The lean one-shot encrypt of the Cortex-M speed drops (issue 34): with a 96-bit IV,
``PREFIX_encrypt`` skips the stream (templates/gcm_lean_pairs.c.j2 ``encrypt96``: E(J0) and the
first block from one aes_encrypt2 pair, the whole pairs in one ctr_pairs call, one GHASH call
over all whole ciphertext blocks, the tail from one more pair). FACE drops take it for the
message lengths where it costs less than the stream's FACE run (FACE_SHORT_MASK, from
gen/kernels/face/thumb2.short_mask).

In the emulator on the drop's own core: every length class (first block only, whole pairs, a
partial last pair, AAD whole and partial, short tags, in place) against pyca/cryptography; the
call runs no stream function and costs less than the stream path (start, aad, update, finish)
on the same message, by the cycle model."""
from __future__ import annotations

import random
import re
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from emu.bench.face_cache import CachedDrop
from gen.config import from_dict
from gen.drop import render
from gen.modes import gcm
from gen.kernels.face import thumb2 as face_thumb2
from gen.targets import cortex_m

LENGTHS = (0, 1, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 100, 255, 1000)
CASES = [("aes128", "cortex-m4", "ffs"), ("aes256", "cortex-m3", "sfs")]
FACE_CASE = ("aes128", "cortex-m4", "ffs", "r2")


@lru_cache(maxsize=None)
def _drop(cipher: str, target: str, slicing: str, face: str = "off") -> CachedDrop:
    cfg = from_dict({"name": f"lean{cipher[3:]}{target[-2:]}{face}", "cipher": cipher, "mode": "gcm", "target": target,
                     "aes": {"slicing": slicing}, "ctr": {"face": face}})
    work = Path(tempfile.mkdtemp(prefix="lean-"))
    hp = work / f"{cfg.name}.h"
    hp.write_text(render.header(cfg, "tests/test_lean_one_shot.py")[0])
    d = CachedDrop(hp, cfg.prefix, target, work / "fw")
    d.header_text = hp.read_text()
    return d


def test_the_cortex_m_speed_drops_take_it_with_or_without_face():
    def lean(**kw):
        cfg = from_dict({"name": "x", "cipher": "aes128", "mode": "gcm", "target": "cortex-m4", **kw})
        return gcm.lean_one_shot(cfg, cortex_m.kernels(cfg))
    assert lean() and lean(schedule={"spill": "fpu"}) and lean(ctr={"face": "r2"}) and lean(ctr={"face": "r1"})
    assert not lean(schedule={"objective": "balanced"}) and not lean(schedule={"objective": "size"})


def test_short_mask_is_the_cheaper_path_by_the_kernel_figures():
    # AES-128 M4F r2's figures: plain pair 2427, FACE saves 565 a pair, a run costs the stream 5149,
    # runs from 6 pairs. n blocks: the stream runs n // 2 pairs after E(J0)'s (FACE from 6), the
    # lean path one plain pair more for an odd n >= 3 (more than the stream's bookkeeping: stream).
    # Lean: 0, 1 and the even n up to 18 (6, 7, 8, 9 pairs x 565 < 5149); not 20 (10 x 565).
    mask = face_thumb2.short_mask(2427, 565, 5149, 6)
    assert [n for n in range(32) if mask >> n & 1] == [0, 1, 2, 4, 6, 8, 10, 12, 14, 16, 18]
    with pytest.raises(ValueError):
        face_thumb2.short_mask(2427, 1, 10 ** 6, 6)            # would win 30 blocks: the mask is too narrow


@pytest.mark.parametrize("cipher,target,slicing,face", [c + ("off",) for c in CASES] + [FACE_CASE])
def test_every_length_class_against_pyca(cipher, target, slicing, face):
    d = _drop(cipher, target, slicing, face)
    rng = random.Random(f"{cipher}{target}")
    key = rng.randbytes(int(cipher[3:]) // 8)
    assert d.init(key) == 0
    g = AESGCM(key)
    for n in LENGTHS:
        for aadlen in (0, 5, 16, 21):
            iv, msg, aad = rng.randbytes(12), rng.randbytes(n), rng.randbytes(aadlen)
            taglen = rng.choice((16, 12, 8, 4))
            rc, ct, tag = d.encrypt(iv, aad, msg, cached=False, taglen=taglen, inplace=n % 2 == 1, skew=n % 4)
            want = g.encrypt(iv, msg, aad)
            assert (rc, ct, tag) == (0, want[:n], want[n:n + taglen]), (n, aadlen, taglen)


@pytest.mark.parametrize("cipher,target,slicing", CASES[:1])
def test_no_stream_function_runs_and_it_costs_less_than_the_stream(cipher, target, slicing):
    d = _drop(cipher, target, slicing)
    cc = d.count_cycles()
    assert d.init(bytes(16)) == 0
    for n in (16, 64, 1024):
        iv, msg = bytes(range(12)), bytes(n)
        cc.reset()
        rc, _, _ = d.encrypt(iv, b"", msg, cached=False)
        lean, fns = cc.cycles, cc.by_function()
        assert rc == 0
        ran = {name.split(f"{d.prefix}_", 1)[1] for name in fns if name and name.startswith(d.prefix)}
        assert not ran & {"start", "aad", "update", "finish", "ghash_feed", "final_tag"}, ran
        assert "ctr_pairs" in ran if n >= 32 else "ctr_pairs" not in ran
        d._load(iv, b"", msg)
        cc.reset()
        assert d.call("start", d.stream, d.ctx, d.iv, 12, 0) == 0
        assert d.call("aad", d.stream, d.aad, 0) == 0
        assert d.call("update", d.stream, d.inp, n, d.out) == 0
        assert d.call("finish", d.stream, d.tag, 16) == 0
        assert lean < cc.cycles - 600, (n, lean, cc.cycles)       # 64 B: about 1,000 cycles less


def _short_mask(d: CachedDrop) -> int:
    m = re.search(rf"#define {d.prefix.upper()}_FACE_SHORT_MASK (0x[0-9a-f]+)u", d.header_text)
    return int(m.group(1), 16)


def test_face_drop_takes_the_cheaper_path_by_length():
    """A FACE drop's encrypt runs the lean path exactly for the lengths FACE_SHORT_MASK names, and
    that choice is the cheaper one by the cycle model: the lean path (encrypt96, called on its own)
    against the stream (start, aad, update, finish), both measured, on either side of the mask's
    reach (AES-128 M4 r2: 64 and 256 bytes lean, 208 and 240 (odd block counts) and 1024 the stream)."""
    d = _drop(*FACE_CASE)
    mask = _short_mask(d)
    cc = d.count_cycles()
    assert d.init(bytes(16)) == 0
    for n in (0, 16, 64, 208, 240, 256, 1024):
        iv, msg = bytes(range(12)), bytes(i * 7 & 0xff for i in range(n))
        rc, ct, tag = d.encrypt(iv, b"", msg, cached=False)
        assert rc == 0 and ct + tag == AESGCM(bytes(16)).encrypt(iv, msg, b"")
        cc.reset()
        d.encrypt(iv, b"", msg, cached=False)
        ran = {name.split(f"{d.prefix}_", 1)[1] for name in cc.by_function() if name and name.startswith(d.prefix)}
        lean = bool(mask >> ((n + 15) // 16) & 1)
        assert ("encrypt96" in ran) == lean and ("start" in ran) == (not lean), (n, ran)
        d._load(iv, b"", msg)
        cc.reset()
        d.call("encrypt96", d.ctx, d.iv, d.aad, 0, d.inp, n, d.out, d.tag, 16)
        lean_cycles = cc.cycles
        assert d.m.read(d.out, n) + d.m.read(d.tag, 16) == ct + tag
        cc.reset()
        assert d.call("start", d.stream, d.ctx, d.iv, 12, 0) == 0
        assert d.call("aad", d.stream, d.aad, 0) == 0
        assert d.call("update", d.stream, d.inp, n, d.out) == 0
        assert d.call("finish", d.stream, d.tag, 16) == 0
        stream_cycles = cc.cycles
        assert (lean_cycles < stream_cycles) == lean, (n, lean_cycles, stream_cycles)
    assert [mask >> (n // 16) & 1 for n in (64, 208, 240, 256, 1024)] == [1, 0, 0, 1, 0]
