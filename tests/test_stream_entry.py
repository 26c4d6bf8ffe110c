"""The stream entry points integration layers need (SPEC §5): finish_tag() releases a decrypting
stream's computed tag, attach() re-points a byte-copied stream at a byte copy of its ctx. Run on
the Cortex-M4 drop's machine code in the emulator and on the portable drop on the host (ctypes),
against pyca/cryptography's AES-GCM."""
from __future__ import annotations

import ctypes
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gen.config import from_dict                      # noqa: E402
from gen.drop import render                           # noqa: E402
from emu.machines import toolchain                    # noqa: E402
from emu.machines.machine import Machine              # noqa: E402

EARG = -2
ROOM = 32768            # bytes for a ctx or a stream (the FACE r2 stream is about 4.5 KiB)


class Emulated:
    """The drop's functions on its emulated core; buffers in emulated RAM."""

    def __init__(self, header: Path, prefix: str, target: str):
        self.prefix = prefix
        self.fw = toolchain.build_firmware(header, prefix, target, header.parent)
        self.m = Machine(self.fw.core, self.fw.image)

    def alloc(self, n: int) -> int:
        return self.m.alloc(n)

    def write(self, addr: int, data: bytes) -> None:
        self.m.write(addr, data)

    def read(self, addr: int, n: int) -> bytes:
        return self.m.read(addr, n)

    def call(self, fn: str, *args: int) -> int:
        rc = self.m.call(self.fw.addr(f"{self.prefix}_{fn}"), *args)
        return rc - (1 << 32) if rc >> 31 else rc


class Host:
    """The portable drop compiled for the host; buffers are ctypes arrays kept alive here."""

    def __init__(self, header: Path, prefix: str):
        self.prefix = prefix
        self.lib = ctypes.CDLL(str(toolchain.build_host_library(header, prefix, header.parent)))
        self.bufs = []

    def alloc(self, n: int) -> int:
        self.bufs.append(ctypes.create_string_buffer(n))
        return ctypes.addressof(self.bufs[-1])

    def write(self, addr: int, data: bytes) -> None:
        ctypes.memmove(addr, data, len(data))

    def read(self, addr: int, n: int) -> bytes:
        return ctypes.string_at(addr, n)

    def call(self, fn: str, *args: int) -> int:
        f = getattr(self.lib, f"{self.prefix}_{fn}")
        f.restype = ctypes.c_int
        return f(*(ctypes.c_size_t(a) for a in args))


@lru_cache(maxsize=None)
def _runner(target: str, face: str, keybits: int):
    cfg = from_dict({"name": f"se{keybits}{face}{target[-2:]}", "cipher": f"aes{keybits}", "mode": "gcm",
                     "target": target, "ctr": {"face": face}})
    work = Path(tempfile.mkdtemp(prefix="stream-entry-"))
    header = work / f"{cfg.name}.h"
    header.write_text(render.header(cfg, "tests/test_stream_entry.py")[0])
    return Host(header, cfg.prefix) if target == "portable" else Emulated(header, cfg.prefix, target)


CASES = [("cortex-m4", "off", 128), ("cortex-m4", "r2", 256), ("portable", "off", 192), ("portable", "r2", 128)]


def _msg(n: int, salt: int) -> bytes:
    return bytes((i * 31 + salt) & 0xFF for i in range(n))


class Session:
    """One ctx, a second ctx area (the copy), two stream areas, message buffers."""

    def __init__(self, r, key: bytes):
        self.r = r
        self.ctx, self.ctx2, self.s, self.s2 = (r.alloc(ROOM) for _ in range(4))
        self.key, self.iv, self.aad, self.inp, self.out, self.tag = (r.alloc(n) for n in (32, 64, 256, 2048, 2048, 16))
        r.write(self.key, key)
        assert r.call("init", self.ctx, self.key, len(key)) == 0

    def load(self, iv: bytes, aad: bytes, data: bytes) -> None:
        self.r.write(self.iv, iv)
        self.r.write(self.aad, aad)
        self.r.write(self.inp, data)

    def start(self, s: int, iv: bytes, decrypt: int) -> None:
        assert self.r.call("start", s, self.ctx, self.iv, len(iv), decrypt) == 0

    def update(self, s: int, at: int, n: int) -> None:
        assert self.r.call("update", s, self.inp + at, n, self.out + at) == 0


@pytest.mark.parametrize("target,face,keybits", CASES)
@pytest.mark.parametrize("ivlen,length,taglen", [(12, 77, 16), (12, 600, 13), (60, 33, 4), (12, 0, 8)])
def test_finish_tag_gives_the_decrypt_streams_computed_tag(target, face, keybits, ivlen, length, taglen):
    r = _runner(target, face, keybits)
    key, iv, aad = _msg(keybits // 8, 1), _msg(ivlen, 2), _msg(20, 3)
    pt = _msg(length, 4)
    full = AESGCM(key).encrypt(iv, pt, aad)
    ct, want = full[:length], full[length:length + taglen]
    ses = Session(r, key)
    ses.load(iv, aad, ct)
    ses.start(ses.s, iv, 1)
    assert r.call("aad", ses.s, ses.aad, len(aad)) == 0
    ses.update(ses.s, 0, length // 3)
    ses.update(ses.s, length // 3, length - length // 3)
    assert r.call("finish_tag", ses.s, ses.tag, taglen) == 0
    assert r.read(ses.tag, taglen) == want
    assert r.read(ses.out, length) == pt
    # a wrong tag never enters: finish_tag compares nothing; the caller does
    assert r.call("finish_tag", ses.s, ses.tag, taglen) == EARG          # the stream is closed
    ses.start(ses.s, iv, 0)                                              # an encrypting stream has finish()
    assert r.call("finish_tag", ses.s, ses.tag, 16) == EARG
    ses.start(ses.s, iv, 1)
    assert r.call("finish_tag", ses.s, ses.tag, 11) == EARG              # taglen as finish()


@pytest.mark.parametrize("target,face,keybits", CASES)
@pytest.mark.parametrize("decrypt", [0, 1])
def test_a_byte_copied_stream_goes_on_under_attach(target, face, keybits, decrypt):
    """Start on ctx, copy ctx and stream byte by byte, wipe the originals, attach the copy to the
    copied ctx, finish there: the same output and tag as one call."""
    r = _runner(target, face, keybits)
    key, iv, aad = _msg(keybits // 8, 5), _msg(12, 6), _msg(33, 7)
    length, cut = 1000, 333
    pt = _msg(length, 8)
    full = AESGCM(key).encrypt(iv, pt, aad)
    ses = Session(r, key)
    ses.load(iv, aad, full[:length] if decrypt else pt)
    ses.start(ses.s, iv, decrypt)
    assert r.call("aad", ses.s, ses.aad, len(aad)) == 0
    ses.update(ses.s, 0, cut)
    r.write(ses.ctx2, r.read(ses.ctx, ROOM))
    r.write(ses.s2, r.read(ses.s, ROOM))
    r.call("wipe", ses.ctx)
    r.write(ses.s, bytes(ROOM))
    assert r.call("attach", ses.s2, ses.ctx2) == 0
    ses.update(ses.s2, cut, length - cut)
    assert r.call("finish_tag" if decrypt else "finish", ses.s2, ses.tag, 16) == 0
    assert r.read(ses.out, length) == (pt if decrypt else full[:length])
    assert r.read(ses.tag, 16) == full[length:]
    assert r.call("attach", ses.s2, 0) == EARG and r.call("attach", 0, ses.ctx2) == EARG
