"""The cached FACE API of a GCM drop (``PREFIX_face_cache``, ``*_cached``) driven in the emulator.

`CachedDrop` links a FACE drop with the batch driver (every API function is then in the image)
and calls the API functions directly (AAPCS, buffers from ``Machine.alloc``), keeping one ctx
and one cache in emulated RAM across calls, as firmware would: a sequence of messages reuses
the cache. Used by the tests (correctness, constant time) and by the benchmark of the cached
calls (``bench_cached``, cycle model). Streaming runs start_cached, aad, update in pieces, finish.
"""
from __future__ import annotations

from pathlib import Path

from emu.bench import drop as bench

from emu.machines import toolchain
from emu.bench.cycles import CycleCounter
from emu.machines import layout
from emu.machines.machine import Machine

CACHE_SYMBOL_BYTES = 16384     # room for any PREFIX_face_cache (r2: 8,676 bytes)
STREAM_BYTES = 8192            # room for any PREFIX_stream (r2: about 4.5 KiB)
MAXMSG = 8192 + 64


def declares_cached_api(header: Path, prefix: str) -> bool:
    """Whether a drop has the cached calls (FACE drops made since issue 20 do; an older FACE drop
    read from disk by `slicegen validate` / `bench` does not, and is checked without them)."""
    return f"{prefix}_face_cache_init(" in Path(header).read_text()


class CachedDrop:
    """One drop, one ctx, one cache (and a second ctx for the second-key tests)."""

    def __init__(self, header: Path, prefix: str, target: str, workdir: Path, trace=None):
        self.prefix = prefix
        Path(workdir).mkdir(parents=True, exist_ok=True)
        self.fw = toolchain.build_firmware(Path(header).resolve(), prefix, target, Path(workdir))
        self.m = Machine(self.fw.core, self.fw.image)
        self.counter = None
        if trace is not None:             # hooks before the first emu_start (DESIGN: Unicorn pitfalls)
            trace(self.m)
        m = self.m
        self.ctx = m.alloc(8192)
        self.ctx2 = m.alloc(8192)
        self.cache = m.alloc(CACHE_SYMBOL_BYTES)
        self.stream = m.alloc(STREAM_BYTES)
        self.key = m.alloc(32)
        self.iv = m.alloc(256)
        self.aad = m.alloc(MAXMSG)
        self.inp = m.alloc(MAXMSG)
        self.out = m.alloc(MAXMSG)
        self.tag = m.alloc(16)

    def count_cycles(self) -> CycleCounter:
        """A cycle counter over the drop's code (call before the first call that is measured)."""
        self.counter = CycleCounter(self.m.uc, self.fw.core, layout.FLASH_BASE,
                                    layout.FLASH_BASE + len(self.fw.image))
        self.counter.attribute(self.fw.symbols)
        return self.counter

    def call(self, fn: str, *args: int) -> int:
        rc = self.m.call(self.fw.addr(f"{self.prefix}_{fn}"), *args)
        return rc - (1 << 32) if rc >> 31 else rc

    # -- API ---------------------------------------------------------------------------------------
    def init(self, key: bytes, second: bool = False) -> int:
        self.m.write(self.key, key)
        return self.call("init", self.ctx2 if second else self.ctx, self.key, len(key))

    def cache_init(self) -> None:
        self.call("face_cache_init", self.cache)

    def cache_wipe(self) -> None:
        self.call("face_cache_wipe", self.cache)

    def cache_bytes(self, n: int) -> bytes:
        return self.m.read(self.cache, n)

    def _load(self, iv: bytes, aad: bytes, data: bytes) -> None:
        self.m.write(self.iv, iv)
        self.m.write(self.aad, aad)
        self.m.write(self.inp, data)

    def encrypt(self, iv: bytes, aad: bytes, msg: bytes, cached: bool = True, second: bool = False,
                taglen: int = 16, inplace: bool = False, skew: int = 0) -> tuple[int, bytes, bytes]:
        """(rc, ciphertext, tag) of PREFIX_encrypt_cached (or PREFIX_encrypt when not `cached`);
        `inplace`: out = in; `skew`: both buffers start that many bytes off their alignment."""
        inp, out = self.inp + skew, (self.inp if inplace else self.out) + skew
        self._load(iv, aad, b"")
        self.m.write(inp, msg)
        ctx = self.ctx2 if second else self.ctx
        args = (self.iv, len(iv), self.aad, len(aad), inp, len(msg), out, self.tag, taglen)
        rc = self.call("encrypt_cached", ctx, self.cache, *args) if cached else self.call("encrypt", ctx, *args)
        return rc, self.m.read(out, len(msg)), self.m.read(self.tag, taglen)

    def decrypt(self, iv: bytes, aad: bytes, ct: bytes, tag: bytes, cached: bool = True,
                second: bool = False) -> tuple[int, bytes]:
        self._load(iv, aad, ct)
        self.m.write(self.tag, tag)
        ctx = self.ctx2 if second else self.ctx
        args = (self.iv, len(iv), self.aad, len(aad), self.inp, len(ct), self.tag, len(tag), self.out)
        rc = self.call("decrypt_cached", ctx, self.cache, *args) if cached else self.call("decrypt", ctx, *args)
        return rc, self.m.read(self.out, len(ct))

    def stream_run(self, iv: bytes, aad: bytes, data: bytes, chunk: int, decrypt: bool = False,
                   tag: bytes = b"") -> tuple[int, bytes, bytes]:
        """start_cached, aad, update in pieces of `chunk` bytes, finish (or finish_verify):
        (rc, output, tag)."""
        self._load(iv, aad, data)
        rc = self.call("start_cached", self.stream, self.ctx, self.cache, self.iv, len(iv), int(decrypt))
        if rc:
            return rc, b"", b""
        rc = self.call("aad", self.stream, self.aad, len(aad))
        done = 0
        while rc == 0 and done < len(data):
            n = min(chunk, len(data) - done)
            rc = self.call("update", self.stream, self.inp + done, n, self.out + done)
            done += n
        if rc:
            return rc, b"", b""
        if decrypt:
            self.m.write(self.tag, tag)
            rc = self.call("finish_verify", self.stream, self.tag, len(tag))
            return rc, self.m.read(self.out, len(data)), b""
        rc = self.call("finish", self.stream, self.tag, 16)
        return rc, self.m.read(self.out, len(data)), self.m.read(self.tag, 16)


def consecutive_ivs(fixed: bytes, start: int, n: int) -> list[bytes]:
    """SP 800-38D 8.2.1 deterministic IVs: a 4-byte fixed field, then a 64-bit big-endian
    invocation counter from `start`."""
    assert len(fixed) == 4
    return [fixed + ((start + i) % (1 << 64)).to_bytes(8, "big") for i in range(n)]


def pattern(n: int, salt: int) -> bytes:
    return bench._pattern(n, salt)


#: messages in a row that one table serves with consecutive IVs (IV byte 11 steps; byte 10, which
#: the table depends on, changes every 256 messages)
MESSAGES = 256
SIZES = (16, 64, 256, 1024, 4096)


def bench_cached(drop: CachedDrop, keybits: int, sizes=SIZES, progress=None) -> dict:
    """Cycle-model figures of ``PREFIX_encrypt_cached`` over MESSAGES messages of each size with
    consecutive IVs (one table: the IVs agree in bytes 0, 5, 10), 96-bit IV, no AAD, 16-byte tag.

    Method: a fresh cache, then messages 0..4 are each measured in the emulator. Message 0 is the
    rebuild (the table's constants, the fills of the groups this size reaches, the table of C2 by
    IV byte 11 and kc, the rest of C2, from face_c2). The others are cache hits, odd and even IV
    byte 11 (block 0 or 1 of its pair in that table). Hits differ only in public IV bytes, and a
    constant-time call's cycles do not depend on them (asserted: messages 1 and 3 cost the same,
    and 2 and 4), so the mean over MESSAGES messages is (rebuild + 128 x odd + 127 x even) /
    MESSAGES, the rebuild amortised. GCTR is counted as in
    emu/bench/drop.py (the call minus its GHASH functions), per message, the same way."""
    say = progress or (lambda _msg: None)
    counter = drop.counter or drop.count_cycles()
    drop.init(bench._pattern(keybits // 8, 1))
    ivs = consecutive_ivs(b"\x5a\x17\x00\x42", 0x1000, 5)
    out = {"messages": MESSAGES, "cycles": {}, "cycles_per_byte": {}, "gctr_cycles": {},
           "gctr_cycles_per_byte": {}, "rebuild_cycles": {}, "hit_cycles": {}}
    odd, even = MESSAGES // 2, MESSAGES // 2 - 1
    stack = 0
    for n in sizes:
        say(f"{drop.prefix}: encrypt_cached, {n} bytes, {MESSAGES} messages")
        drop.cache_init()
        msg = bench._pattern(n, 6)
        total, gctr = [], []
        for iv in ivs:
            counter.reset()
            rc, _, _ = drop.encrypt(iv, b"", msg)
            if rc != 0:
                raise bench.BenchError(f"{drop.prefix}_encrypt_cached returned {rc}")
            c = counter.cycles
            stack = max(stack, drop.m.stack_used)
            total.append(c)
            gctr.append(c - bench.ghash_part(drop.prefix, counter.by_function()))
        if total[1] != total[3] or total[2] != total[4]:
            raise bench.BenchError(f"cache hits of {n} bytes cost {total[1:]} cycles: the cached path "
                                   f"is not constant-time")
        k = str(n)
        mean = (total[0] + odd * total[1] + even * total[2]) / MESSAGES
        gmean = (gctr[0] + odd * gctr[1] + even * gctr[2]) / MESSAGES
        out["rebuild_cycles"][k], out["hit_cycles"][k] = total[0], [total[1], total[2]]
        out["cycles"][k] = round(mean, 1)
        out["cycles_per_byte"][k] = bench._r2(mean / n)
        out["gctr_cycles"][k] = round(gmean, 1)
        out["gctr_cycles_per_byte"][k] = bench._r2(gmean / n)
    out["stack_bytes"] = stack
    return out


class CachedMismatch(Exception):
    """A cached call disagreed with pyca/cryptography (a drop bug)."""


def validate_cached(drop: CachedDrop, keybits: int, seed: int = 0) -> int:
    """Cases through the cached calls against pyca/cryptography, for the build's validation:
    messages with consecutive IVs from just before a change of IV byte 10 and, separately, of
    byte 5 (each a rebuild), one-shot encrypt and decrypt and streams in odd pieces, with a
    wrong tag now and then (-1, zeroed output). Returns the number of cases; raises on the
    first mismatch."""
    import random
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    rng = random.Random(f"face-cache/{seed}")
    key = rng.randbytes(keybits // 8)
    if drop.init(key) != 0:
        raise CachedMismatch("init failed")
    g = AESGCM(key)
    drop.cache_init()
    ivs = consecutive_ivs(b"\x00\xa1\xb2\xc3", 0x2FD, 8) + consecutive_ivs(b"\x0f\x0e\x0d\x0c", (1 << 48) - 4, 8)
    cases = 0
    for j, iv in enumerate(ivs):
        n = rng.choice((0, 1, 15, 16, 31, 64, 65, 200, 1000, 4096 + 33))
        msg, aad = rng.randbytes(n), rng.randbytes(rng.choice((0, 7, 16)))
        ref = g.encrypt(iv, msg, aad)
        if j % 2:
            rc, ct, tag = drop.stream_run(iv, aad, msg, chunk=rng.choice((1, 17, 48, 500)))
        else:
            rc, ct, tag = drop.encrypt(iv, aad, msg)
        if rc != 0 or ct + tag != ref:
            raise CachedMismatch(f"encrypt_cached, IV {iv.hex()}, {n} bytes: rc {rc}, output differs from pyca")
        rc, back = drop.decrypt(iv, aad, ct, tag)
        if rc != 0 or back != msg:
            raise CachedMismatch(f"decrypt_cached, IV {iv.hex()}, {n} bytes: rc {rc}")
        rc, back = drop.decrypt(iv, aad, ct, bytes(a ^ (i == 3) for i, a in enumerate(tag)))
        if rc != -1 or back != bytes(n):
            raise CachedMismatch(f"decrypt_cached accepted a wrong tag (IV {iv.hex()}, rc {rc})")
        cases += 3
    drop.cache_wipe()
    return cases
