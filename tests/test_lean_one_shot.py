"""The lean one-shot encrypt of the Cortex-M speed drops without FACE (issue 34): with a 96-bit
IV, ``PREFIX_encrypt`` skips the stream (templates/gcm_glue.c.j2 ``encrypt96``: E(J0) and the
first block from one aes_encrypt2 pair, the whole pairs in one ctr_pairs call, one GHASH call
over their ciphertext, the tail from one more pair).

In the emulator on the drop's own core: every length class (first block only, whole pairs, a
partial last pair, AAD whole and partial, short tags, in place) against pyca/cryptography; the
call runs no stream function and costs less than the stream path (start, aad, update, finish)
on the same message, by the cycle model."""
from __future__ import annotations

import random
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from emu.bench.face_cache import CachedDrop
from gen.config import from_dict
from gen.drop import render
from gen.modes import gcm
from gen.targets import cortex_m

LENGTHS = (0, 1, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 100, 255, 1000)
CASES = [("aes128", "cortex-m4", "ffs"), ("aes256", "cortex-m3", "sfs")]


@lru_cache(maxsize=None)
def _drop(cipher: str, target: str, slicing: str) -> CachedDrop:
    cfg = from_dict({"name": f"lean{cipher[3:]}{target[-2:]}", "cipher": cipher, "mode": "gcm", "target": target,
                     "aes": {"slicing": slicing}})
    work = Path(tempfile.mkdtemp(prefix="lean-"))
    hp = work / f"{cfg.name}.h"
    hp.write_text(render.header(cfg, "tests/test_lean_one_shot.py")[0])
    return CachedDrop(hp, cfg.prefix, target, work / "fw")


def test_only_the_cortex_m_speed_drops_without_face_take_it():
    def lean(**kw):
        cfg = from_dict({"name": "x", "cipher": "aes128", "mode": "gcm", "target": "cortex-m4", **kw})
        return gcm.lean_one_shot(cfg, cortex_m.kernels(cfg))
    assert lean() and lean(schedule={"spill": "fpu"})
    assert not lean(ctr={"face": "r2"}) and not lean(schedule={"objective": "balanced"})


@pytest.mark.parametrize("cipher,target,slicing", CASES)
def test_every_length_class_against_pyca(cipher, target, slicing):
    d = _drop(cipher, target, slicing)
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
