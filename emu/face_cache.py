"""The cached FACE API of a GCM drop (``PREFIX_face_cache``, ``*_cached``) driven in the emulator.

`CachedDrop` links a FACE drop with the batch driver (every API function is then in the image)
and calls the API functions directly (AAPCS, buffers from ``Machine.alloc``), keeping one ctx
and one cache in emulated RAM across calls, as firmware would: a sequence of messages reuses
the cache. Used by the tests (correctness, constant time) and by the benchmark of the cached
calls (``bench_cached``, cycle model). Streaming runs start_cached, aad, update in pieces, finish.
"""
from __future__ import annotations

from pathlib import Path

from emu import bench, toolchain
from emu.cycles import CycleCounter
from emu import layout
from emu.machine import Machine

CACHE_SYMBOL_BYTES = 8192      # room for any PREFIX_face_cache (r2: 4,308 bytes)
STREAM_BYTES = 8192            # room for any PREFIX_stream (r2: about 4.5 KiB)
MAXMSG = 8192 + 64


class CachedDrop:
    """One drop, one ctx, one cache (and a second ctx for the second-key tests)."""

    def __init__(self, header: Path, prefix: str, target: str, workdir: Path, trace=None):
        self.prefix = prefix
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
                taglen: int = 16) -> tuple[int, bytes, bytes]:
        """(rc, ciphertext, tag) of PREFIX_encrypt_cached (or PREFIX_encrypt when not `cached`)."""
        self._load(iv, aad, msg)
        ctx = self.ctx2 if second else self.ctx
        args = (self.iv, len(iv), self.aad, len(aad), self.inp, len(msg), self.out, self.tag, taglen)
        rc = self.call("encrypt_cached", ctx, self.cache, *args) if cached else self.call("encrypt", ctx, *args)
        return rc, self.m.read(self.out, len(msg)), self.m.read(self.tag, taglen)

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

    Method: a fresh cache, then message 0 (the rebuild: run set-up, the check, and the fills of
    the groups this size reaches) and messages 1 and 2 (cache hits) are each measured in the
    emulator. Hits differ only in the public IV byte 11, and a constant-time call's cycles do not
    depend on it (asserted: messages 1 and 2 cost the same), so the mean over MESSAGES messages
    is (rebuild + (MESSAGES - 1) x hit) / MESSAGES, the rebuild amortised. GCTR is counted as in
    emu/bench.py (the call minus its GHASH functions), per message the same way."""
    say = progress or (lambda _msg: None)
    counter = drop.counter or drop.count_cycles()
    drop.init(bench._pattern(keybits // 8, 1))
    ivs = consecutive_ivs(b"\x5a\x17\x00\x42", 0x1000, 3)
    out = {"messages": MESSAGES, "cycles": {}, "cycles_per_byte": {}, "gctr_cycles": {},
           "gctr_cycles_per_byte": {}, "rebuild_cycles": {}, "hit_cycles": {}}
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
            total.append(c)
            gctr.append(c - bench.ghash_part(drop.prefix, counter.by_function()))
        if total[1] != total[2]:
            raise bench.BenchError(f"cache hits of {n} bytes cost {total[1]} and {total[2]} cycles: "
                                   f"the cached path is not constant-time")
        mean = (total[0] + (MESSAGES - 1) * total[1]) / MESSAGES
        gmean = (gctr[0] + (MESSAGES - 1) * gctr[1]) / MESSAGES
        k = str(n)
        out["rebuild_cycles"][k], out["hit_cycles"][k] = total[0], total[1]
        out["cycles"][k] = round(mean, 1)
        out["cycles_per_byte"][k] = bench._r2(mean / n)
        out["gctr_cycles"][k] = round(gmean, 1)
        out["gctr_cycles_per_byte"][k] = bench._r2(gmean / n)
    return out
