"""Constant-time check of the cached FACE calls (``PREFIX_face_cache``, ``*_cached``), by trace
equivalence (emu/ct/checker.py): one sequence of messages with consecutive IVs through one cache, run
with different keys, plaintexts, AAD contents and tag values (for the wrong tag: the position
of the wrong byte); the IVs, the lengths and the verdicts are the same in every run. The
sequence starts on an empty cache (a build), reuses it, crosses a change of IV byte 10 (a
rebuild) and goes on with the rebuilt table, in one-shot encrypt and decrypt (right and wrong
tag) and in a stream started with start_cached and fed in odd pieces; two messages reach run 1
(the lean path's carry pair).
"""
from __future__ import annotations

import random
from pathlib import Path

from emu.bench import face_cache
from emu.ct.checker import CtResult, Session, check_runs
from emu.machines.machine import Machine
from emu.machines.toolchain import build_firmware

#: (IV counter, message length): counters 0x..fe, 0x..ff keep IV byte 10, 0x..100 changes it; the
#: one-shot calls with a 96-bit IV take the lean path (no stream), and 4100 bytes reach the pair
#: (255, 256) that carries into counter byte 14, and run 1 (its C2 difference d1 made, then kept)
SEQUENCE = ((0x10FE, 64), (0x10FF, 16), (0x1100, 300), (0x1101, 64), (0x1102, 4100), (0x1103, 4100))
FIXED = b"\x5a\x17\x00\x42"
FUNCTIONS = ("face_cache_init", "encrypt_cached", "decrypt_cached", "start_cached", "face_cache_wipe")
AAD_LEN = 20


def _secret(rng: random.Random, i: int, n: int) -> bytes:
    if i == 1:
        return bytes(n)
    if i == 2:
        return b"\xff" * n
    return bytes(rng.randrange(256) for _ in range(n))


def check(header: Path, prefix: str, target: str, keybits: int, workdir: Path, runs: int = 6) -> CtResult:
    Path(workdir).mkdir(parents=True, exist_ok=True)
    fw = build_firmware(Path(header).resolve(), prefix, target, Path(workdir))
    machine = Machine(fw.core, fw.image)
    session = Session(machine, fw, prefix)
    ctx_bytes = fw.symbols["sg_ctx"][1]
    kb = keybits // 8
    ivs = [FIXED + c.to_bytes(8, "big") for c, _ in SEQUENCE]

    def run(s: Session, i: int) -> None:
        m = s.machine
        rng = random.Random(f"face-cache/{i}")
        ro = lambda data: m.alloc(max(len(data), 1), data or b"\0", readonly=True)   # noqa: E731
        key = _secret(rng, i, kb)
        ctx, kp = m.alloc(ctx_bytes), ro(key)
        if s.call("init", ctx, kp, kb) != 0:
            raise RuntimeError("init failed")
        cache, stream = m.alloc(face_cache.CACHE_SYMBOL_BYTES), m.alloc(face_cache.STREAM_BYTES)
        s.tcall("face_cache_init", cache)
        for j, (iv, (_, n)) in enumerate(zip(ivs, SEQUENCE)):
            pt, aad = _secret(rng, i, n), _secret(rng, i, AAD_LEN)
            ivp, inp, aadp = ro(iv), ro(pt), ro(aad)
            out, tag, back = m.alloc(n), m.alloc(16), m.alloc(n)
            rc = s.tcall("encrypt_cached", ctx, cache, ivp, 12, aadp, AAD_LEN, inp, n, out, tag, 16)
            ct, tg = m.read(out, n), m.read(tag, 16)
            ctp = ro(ct)
            rc |= s.tcall("decrypt_cached", ctx, cache, ivp, 12, aadp, AAD_LEN, ctp, n, ro(tg), 16, back)
            if rc != 0 or m.read(back, n) != pt:
                raise RuntimeError(f"cached round trip {j} failed (rc {rc})")
            bad = bytearray(tg)
            bad[rng.randrange(16)] ^= 1 << rng.randrange(8)
            if s.tcall("decrypt_cached", ctx, cache, ivp, 12, aadp, AAD_LEN, ctp, n, ro(bytes(bad)), 16, back) != -1:
                raise RuntimeError("a wrong tag was accepted")
            # the same message as a stream, in pieces of 7 and 40 bytes
            rc = s.tcall("start_cached", stream, ctx, cache, ivp, 12, 0)
            rc |= s.tcall("aad", stream, aadp, AAD_LEN)
            done = 0
            for k in range(n):
                piece = 7 if k % 2 else 40
                if done >= n:
                    break
                piece = min(piece, n - done)
                rc |= s.tcall("update", stream, inp + done, piece, out + done)
                done += piece
            rc |= s.tcall("finish", stream, tag, 16)
            if rc != 0 or m.read(out, n) != ct or m.read(tag, 16) != tg:
                raise RuntimeError(f"cached stream {j} differs from the one-shot call (rc {rc})")
        s.tcall("face_cache_wipe", cache)

    return check_runs(session, "face cache: one IV sequence, keys/messages/tags vary", run, runs,
                      "key, plaintext, AAD, tag values, wrong-tag position")
