"""The FACE fuzz corpus (tests/fuzz/corpus/face_portable/) on a Cortex-M FACE r2 drop in Unicorn:
each input is read as tests/fuzz/face_portable.c reads it (this is a port of its steps and of its
model of the cache: the same choices from the same bytes) and its calls go to the emulated drop
(emu/bench/face_cache.CachedDrop: two ctx, one cache, one stream in emulated RAM, kept across the
steps as firmware would). The expected ciphertexts and tags come from the host's portable drop
(any IV length), the expected return codes from the model."""
from __future__ import annotations

from emu.checks import vectors
from tests.fuzz.emu_replay import _Input, fill

ECACHE = -3
TAGLENS = (16, 4, 8, 12, 13, 14, 15)
MAXBUF = 8448


class FaceReplay:
    def __init__(self, drop, oracle):
        self.d, self.oracle, m = drop, oracle, drop.m
        self.iv_buf, self.aad_buf, self.tag_buf = m.alloc(128), m.alloc(640), m.alloc(16)
        self.in_buf, self.out_buf = m.alloc(MAXBUF), m.alloc(MAXBUF)
        self.spare = (m.alloc(MAXBUF), m.alloc(MAXBUF))   # a cached call's buffers inside a stream
        self.errors: list[str] = []

    # -- the model of the cache (face_portable.c: model_enter) ------------------------------------
    def enter(self) -> int:
        if len(self.iv) != 12:
            return 0
        ivb = (self.iv[0], self.iv[5], self.iv[10])
        if self.built and self.mctx == self.ci and self.mkey != self.keys[self.ci]:
            return ECACHE
        if not (self.built and self.mctx == self.ci and self.ivb == ivb):
            self.built, self.mctx, self.mkey, self.ivb = True, self.ci, self.keys[self.ci], ivb
            self.gen += 1
        return 0

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.errors.append(f"step {self.step} ctx {self.ci} ivlen {len(self.iv)} len {len(self.msg)}: {what}")

    # -- the input's choices (face_portable.c: next_iv, pick_len, make_message) ------------------
    def next_iv(self, i: _Input) -> None:
        kind = i.take(1) % 8
        if kind == 6:
            self.iv = i.take_bytes(1 + i.take(1) % 128)
            return
        base = bytearray(self.base)
        if kind == 7:
            base = bytearray(i.take_bytes(12))
        elif kind == 4:
            k = i.take(1) % 12
            base[k] ^= 1 + i.take(1) % 255
        elif kind != 5:
            step = 1 + i.take(2) if kind == 3 else 1
            n = (int.from_bytes(base[4:], "big") + step) % (1 << 64)
            base[4:] = n.to_bytes(8, "big")
        self.base = bytes(base)
        self.iv = self.base

    def message(self, i: _Input) -> None:
        seed = i.take(4)
        self.next_iv(i)
        aadlen = i.take(1) % 48 if i.take(1) < 200 else i.take(2) % 600
        kind, v = i.take(1) % 6, i.take(2)
        length = (v % 65, v % 65, 4008 + v % 81, 8104 + v % 81, v % 8400, v % 300)[kind]
        self.taglen = TAGLENS[i.take(1) % 7]
        i.take(1)                                    # the message's misalignment (host only)
        self.aad, self.msg = fill(seed, aadlen), fill(seed ^ 0x9E3779B97F4A7C15, length)
        case = vectors.Case(vectors.OP_ENCRYPT, self.keys[self.ci], self.iv, self.aad, self.msg, 16)
        _, self.ct, self.tag = self.oracle.run([case])[0]

    # -- calls into the emulated drop --------------------------------------------------------------
    def ctx(self) -> int:
        return self.d.ctx2 if self.ci else self.d.ctx

    def load(self, data: bytes) -> None:
        m = self.d.m
        m.write(self.iv_buf, self.iv)
        m.write(self.aad_buf, self.aad)
        m.write(self.in_buf, data)

    def oneshot_cached(self, i: _Input, decrypt: bool) -> None:
        self.message(i)
        tamper = decrypt and (i.take(1) & 3) == 0
        want = self.enter()
        d, n, t = self.d, len(self.msg), self.taglen
        head = (self.ctx(), d.cache, self.iv_buf, len(self.iv), self.aad_buf, len(self.aad), self.in_buf, n)
        if not decrypt:
            self.load(self.msg)
            rc = d.call("encrypt_cached", *head, self.out_buf, self.tag_buf, t)
            self.check(rc == want, f"encrypt_cached returned {rc}, model {want}")
            if rc == 0:
                self.check(d.m.read(self.out_buf, n) == self.ct and d.m.read(self.tag_buf, t) == self.tag[:t],
                           "encrypt_cached's ciphertext or tag")
            return
        tag = bytearray(self.tag[:t])
        if tamper:
            tag[t - 1] ^= 0x80
        self.load(self.ct)
        d.m.write(self.tag_buf, bytes(tag))
        rc = d.call("decrypt_cached", *head, self.tag_buf, t, self.out_buf)
        expect = want or (-1 if tamper else 0)
        self.check(rc == expect, f"decrypt_cached returned {rc}, expected {expect}")
        if rc == 0:
            self.check(d.m.read(self.out_buf, n) == self.msg, "decrypt_cached's plaintext")

    def stream(self, i: _Input, cached: bool) -> None:
        b = i.take(1) % 6
        between, dec = b % 3, b >= 3
        self.message(i)
        d, n = self.d, len(self.msg)
        split = i.take(2) % (n + 1) if n else 0
        want = self.enter() if cached else 0
        src = self.ct if dec else self.msg
        self.load(src)
        rc = (d.call("start_cached", d.stream, self.ctx(), d.cache, self.iv_buf, len(self.iv), int(dec)) if cached
              else d.call("start", d.stream, self.ctx(), self.iv_buf, len(self.iv), int(dec)))
        self.check(rc == want, f"start returned {rc}, model {want}")
        if rc:
            return
        gen0, iv, aad, msg, ct, tag, taglen = self.gen, self.iv, self.aad, self.msg, self.ct, self.tag, self.taglen
        self.check(d.call("aad", d.stream, self.aad_buf, len(aad)) == 0, "aad")
        self.check(d.call("update", d.stream, self.in_buf, split, self.out_buf) == 0, "update (first piece)")
        if between == 1:                             # on buffers of its own, as in C
            mine, (self.in_buf, self.out_buf) = (self.in_buf, self.out_buf), self.spare
            self.oneshot_cached(i, False)
            self.in_buf, self.out_buf = mine
            self.iv, self.aad, self.msg, self.ct, self.tag, self.taglen = iv, aad, msg, ct, tag, taglen
        elif between == 2:
            d.cache_wipe()
            self.built = False
            self.gen += 1
        stops = cached and len(iv) == 12 and self.gen != gen0
        rc = d.call("update", d.stream, self.in_buf + split, n - split, self.out_buf + split)
        self.check(rc == (ECACHE if stops else 0), f"update (second piece) returned {rc}")
        if stops or dec:
            d.m.write(self.tag_buf, tag[:taglen])   # what finish_verify checks (finish writes it)
        if stops:
            self.check(d.call("finish", d.stream, self.tag_buf, taglen) == -2
                       and d.call("finish_verify", d.stream, self.tag_buf, taglen) == -2,
                       "a stopped stream refuses finish")
            return
        if dec:
            self.check(d.call("finish_verify", d.stream, self.tag_buf, taglen) == 0, "finish_verify")
            self.check(d.m.read(self.out_buf, n) == msg, "the stream's plaintext")
            return
        self.check(d.call("finish", d.stream, self.tag_buf, taglen) == 0, "finish")
        self.check(d.m.read(self.out_buf, n) == ct and d.m.read(self.tag_buf, taglen) == tag[:taglen],
                   "the stream's ciphertext or tag")

    def uncached(self, i: _Input) -> None:
        self.message(i)
        d, n, t = self.d, len(self.msg), self.taglen
        self.load(self.msg)
        rc = d.call("encrypt", self.ctx(), self.iv_buf, len(self.iv), self.aad_buf, len(self.aad), self.in_buf, n,
                    self.out_buf, self.tag_buf, t)
        self.check(rc == 0 and d.m.read(self.out_buf, n) == self.ct and d.m.read(self.tag_buf, t) == self.tag[:t],
                   "encrypt")

    def run(self, data: bytes) -> list[str]:
        """One corpus input (face_portable.c: LLVMFuzzerTestOneInput); what differed."""
        i, d = _Input(data), self.d
        self.errors, self.ci, self.step = [], 0, 0
        self.built, self.mctx, self.mkey, self.ivb, self.gen = False, 0, b"", (), 0
        self.keys = [i.take_bytes(16), i.take_bytes(16)]
        self.base = i.take_bytes(12)
        self.iv, self.msg = self.base, b""
        self.check(d.init(self.keys[0]) == 0 and d.init(self.keys[1], second=True) == 0, "init")
        d.cache_init()
        while self.step < 16 and i.left:
            op = i.take(1) % 9
            if op in (0, 1, 2):
                self.oneshot_cached(i, op == 2)
            elif op in (3, 4):
                self.stream(i, op == 3)
            elif op == 5:
                self.uncached(i)
            elif op == 6:
                d.cache_wipe()
                self.built = False
                self.gen += 1
            elif op == 7:
                self.keys[self.ci] = i.take_bytes(16)
                self.check(d.init(self.keys[self.ci], second=bool(self.ci)) == 0, "init (another key)")
            else:
                self.ci ^= 1
            self.step += 1
        d.cache_wipe()
        return self.errors
