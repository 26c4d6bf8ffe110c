"""Build and load emu/ct/trace.c, the constant-time checker's recorder as C Unicorn hooks.

The library is compiled once per source text with the host C compiler (emu/platforms/host.py,
which `make` installs) into a cache folder, ``$SLICEGEN_CACHE`` or ``~/.cache/slicegen``, under
a name that carries the source's hash; it is written under a temporary name and renamed, so
parallel builds and test workers never load a half-written file.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import tempfile
from functools import lru_cache
from pathlib import Path

from emu import platforms
from emu.machines.toolchain import STRICT, run, tool

SOURCE = Path(__file__).resolve().parent / "trace.c"

FLUSH_FN = ctypes.CFUNCTYPE(None)
CLASSIFY_FN = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_uint64, ctypes.c_uint32)
TIMING_FN = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64)


class TracerStruct(ctypes.Structure):
    """emu/ct/trace.c's sg_tracer, field for field."""
    _fields_ = [("buf", ctypes.POINTER(ctypes.c_uint64)), ("n", ctypes.c_uint64), ("cap", ctypes.c_uint64),
                ("chunk", ctypes.c_uint64), ("n_insns", ctypes.c_uint64), ("last_pc", ctypes.c_uint64),
                ("active", ctypes.c_int32), ("write_type", ctypes.c_int32), ("failed", ctypes.c_int32),
                ("pad", ctypes.c_int32), ("cls", ctypes.c_void_p), ("cls_base", ctypes.c_uint64),
                ("cls_len", ctypes.c_uint64), ("flush", FLUSH_FN), ("classify", CLASSIFY_FN),
                ("timing", TIMING_FN)]


def cache_dir() -> Path:
    env = os.environ.get("SLICEGEN_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache")
    return Path(base) / "slicegen"


@lru_cache(maxsize=1)
def library() -> ctypes.CDLL:
    """The compiled recorder (built on first use)."""
    text = SOURCE.read_bytes()
    digest = hashlib.sha256(text).hexdigest()[:16]
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    lib = folder / f"ct_trace-{digest}.so"
    if not lib.exists():
        host = platforms.HOST
        with tempfile.TemporaryDirectory(prefix="ct_trace-", dir=folder) as tmp:
            part = Path(tmp) / lib.name
            run([tool(host.cc), *STRICT, *host.flags, str(SOURCE), "-o", str(part)], Path(tmp))
            os.replace(part, lib)
    so = ctypes.CDLL(str(lib))
    so.sg_tracer_new.restype = ctypes.POINTER(TracerStruct)
    so.sg_tracer_new.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int32]
    so.sg_tracer_free.argtypes = [ctypes.POINTER(TracerStruct)]
    so.sg_tracer_free.restype = None
    return so
