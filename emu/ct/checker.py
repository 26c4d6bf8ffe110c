"""Constant-time check by trace equivalence in emulation.

Each checked call runs several times with the same public inputs and different secrets; a run's
trace is every executed instruction address, the address and size of every data access, and the
operand timing class of every data-dependent instruction (SDIV/UDIV; M3 long multiplies).  Equal
traces give ``verified``, else the first divergence is reported.  It samples secrets and trusts
Unicorn's semantics and hooks (added before translation, flushed anyway); traces are hashed with
blake2b in chunks.  What is proved and what is not: docs/internals/ct-checker.md.
"""
from __future__ import annotations

import bisect
import ctypes
import hashlib
import random
import subprocess
import time
import weakref
from array import array
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from unicorn import UC_ERR_OK, UC_HOOK_CODE, UC_HOOK_MEM_READ, UC_HOOK_MEM_WRITE, UC_MEM_WRITE, UcError
from unicorn.unicorn_py3.unicorn import uc_hook_h, uclib
from unicorn import arm_const as A

from emu.ct import native as ct_native

from emu.machines import layout
from emu.machines.machine import Machine
from emu.machines.toolchain import Firmware, assemble, build_firmware, tool
from gen.cores import cortex_m3, timing as T
from emu.platforms import aarch64_classify as A64
from emu.platforms import thumb2_classify as C
from emu.platforms.aarch64 import SCRATCH_REGS as A64_SCRATCH_REGS
from emu.platforms import rv32_classify as RV32

__all__ = ["Tracer", "Trace", "Divergence", "CtResult", "CtReport", "check_function",
           "check_runs", "check_drop", "snippet_firmware", "Session"]

CHUNK = 8192                      # events per hashed chunk (at least)

# event encoding: (value << 8) | (size << 3) | kind
K_INSN, K_READ, K_WRITE, K_TIMING = 0, 1, 2, 3
_KIND_NAMES = {K_INSN: "instruction", K_READ: "read", K_WRITE: "write", K_TIMING: "timing class"}

REG_IDS = {f"r{i}": getattr(A, f"UC_ARM_REG_R{i}") for i in range(13)}
REG_IDS.update({"sp": A.UC_ARM_REG_SP, "lr": A.UC_ARM_REG_LR, "pc": A.UC_ARM_REG_PC})
_SCRATCH_REGS = [REG_IDS[f"r{i}"] for i in range(4, 13)]
_UNKNOWN = object()


# ------------------------------------------------------------------------------------------------
# symbols and disassembly
# ------------------------------------------------------------------------------------------------
class SymbolTable:
    """Address -> the (smallest) sized symbol that contains it."""

    def __init__(self, symbols: dict[str, tuple[int, int]] | None):
        items = sorted((a, s, n) for n, (a, s) in (symbols or {}).items() if s > 0)
        self._items = items
        self._starts = [a for a, _, _ in items]

    def lookup(self, addr: int) -> str | None:
        best = None
        i = bisect.bisect_right(self._starts, addr)
        # symbols may nest or overlap; look back a little
        for a, s, n in reversed(self._items[max(0, i - 16):i]):
            if a <= addr < a + s and (best is None or s < best[1]):
                best = (n, s)
        return best[0] if best else None


def describe_symbol(symbol: str | None, prefix: str | None = None) -> str:
    """Which part of the generator a function symbol comes from."""
    if symbol is None:
        return "unknown code"
    if symbol.startswith("sg_"):
        return f"{symbol} (emu/machines/driver.c)"
    if prefix and symbol.startswith(prefix + "_"):
        rest = symbol[len(prefix) + 1:]
        if rest.startswith("aes_"):
            return f"{symbol} (kernel: AES, gen/kernels/aes/)"
        if rest.startswith("ghash_"):
            return f"{symbol} (kernel: GHASH, gen/kernels/ghash/)"
        if rest.startswith("face") or rest.startswith("ctr_"):
            return f"{symbol} (kernel: CTR/FACE)"
        return f"{symbol} (template: templates/gcm_glue.c.j2)"
    if symbol.startswith("__aeabi") or symbol.startswith("__"):
        return f"{symbol} (libgcc)"
    return symbol


#: platforms whose classifier module reads their code (``disassembler()``, ``classify()``), and
#: the registers zeroed before each call; the Cortex-M cores use thumb2_classify's, inline below
_CLASSIFIERS = {"aarch64": A64, "rv32imac": RV32}
_SCRATCH = {"aarch64": A64_SCRATCH_REGS, "rv32imac": RV32.SCRATCH_REGS}


def _classifier(machine: Machine):
    return _CLASSIFIERS.get(machine.platform.name)


class Disassembler:
    def __init__(self, uc, classifier=None):
        self.uc = uc
        self.md = classifier.disassembler() if classifier is not None else C.thumb_disassembler()

    def text(self, addr: int) -> str:
        try:
            code = bytes(self.uc.mem_read(addr, 4))
        except Exception:  # noqa: BLE001
            return "??"
        for i in self.md.disasm(code, addr, 1):
            return f"{i.mnemonic} {i.op_str}".strip()
        return "??"


# ------------------------------------------------------------------------------------------------
# the recorder
# ------------------------------------------------------------------------------------------------
@dataclass
class Trace:
    chunks: list[bytes]             # digest per chunk
    chunk_starts: list[int]         # global event index at which each chunk starts
    n_events: int
    n_insns: int
    calls: list[tuple[int, str]]    # (event index, traced call name)
    captured: list[int] | None = None          # events of the captured chunk
    captured_prev_pc: int | None = None        # last instruction before the captured chunk

    def call_at(self, index: int) -> str | None:
        name = None
        for start, n in self.calls:
            if start <= index:
                name = n
        return name


class Tracer:
    """Records the trace of everything a Machine executes while a recording is active.

    The hooks are emu/ct/trace.c's, in C (emu/ct/native.py builds it): they append the events
    to a buffer and call back here once per chunk (hashed by ``_flush``), once per new
    instruction address (``_classify``) and for each data-dependent instruction (``_timing``).
    They are installed once per machine (``Tracer.of(machine)``), at construction, followed by
    ``ctl_flush_tb()`` so that blocks translated before are translated again with the hooks.
    """

    def __init__(self, machine: Machine):
        self.machine = machine
        self.uc = machine.uc
        self.core = machine.core
        self._a64 = _classifier(machine)
        self._md = self._a64.disassembler() if self._a64 is not None else C.thumb_disassembler()
        self._dyn: dict[int, tuple | None] = {}
        self._error: BaseException | None = None
        self._lib = ct_native.library()
        self._t = self._lib.sg_tracer_new(CHUNK, layout.FLASH_BASE, layout.FLASH_SIZE, UC_MEM_WRITE)
        if not self._t:
            raise MemoryError("cannot allocate the trace recorder")
        # the recorder lives as long as the engine whose hooks point at it
        self.uc._sg_ct_tracer = self
        weakref.finalize(self.uc, self._lib.sg_tracer_free, self._t)
        s = self._t.contents
        # the callbacks are kept referenced here for as long as the hooks may call them
        self._cbs = (ct_native.FLUSH_FN(self._guard(self._flush, None)),
                     ct_native.CLASSIFY_FN(self._guard(self._classify_cb, 0)),
                     ct_native.TIMING_FN(self._guard(self._timing, 0)))
        s.flush, s.classify, s.timing = self._cbs
        self._reset_state(None)
        self._hooks = [self._hook(UC_HOOK_CODE, self._lib.sg_on_code),
                       self._hook(UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, self._lib.sg_on_mem)]
        self.uc.ctl_flush_tb()

    def _hook(self, htype: int, fn) -> int:
        handle = uc_hook_h()
        status = uclib.uc_hook_add(self.uc._uch, ctypes.byref(handle), htype, ctypes.cast(fn, ctypes.c_void_p),
                                   ctypes.cast(self._t, ctypes.c_void_p), ctypes.c_uint64(1), ctypes.c_uint64(0))
        if status != UC_ERR_OK:
            raise UcError(status)
        return handle.value

    def _guard(self, fn, fallback):
        """A callback that never lets an exception vanish inside ctypes: the first one stops
        the emulation and is raised when the recording ends."""
        def cb(*args):
            try:
                return fn(*args)
            except BaseException as exc:       # noqa: BLE001 - re-raised by _check
                if self._error is None:
                    self._error = exc
                self.uc.emu_stop()
                return fallback
        return cb

    def _check(self) -> None:
        if self._error is not None:
            exc, self._error = self._error, None
            s = self._t.contents          # what was classified during the failure is not trusted
            ctypes.memset(s.cls, 0, s.cls_len)
            self._dyn.clear()
            raise RuntimeError("the trace recorder failed") from exc
        if self._t.contents.failed:
            raise MemoryError("the trace recorder ran out of memory: the trace is incomplete")

    @classmethod
    def of(cls, machine: Machine) -> "Tracer":
        t = getattr(machine, "_ct_tracer", None)
        if t is None:
            t = cls(machine)
            machine._ct_tracer = t
        return t

    def detach(self) -> None:
        for h in self._hooks:
            status = uclib.uc_hook_del(self.uc._uch, uc_hook_h(h))
            if status != UC_ERR_OK:
                raise UcError(status)
        self._hooks = []
        self.uc.ctl_flush_tb()
        if getattr(self.machine, "_ct_tracer", None) is self:
            self.machine._ct_tracer = None
        if getattr(self.uc, "_sg_ct_tracer", None) is self:
            self.uc._sg_ct_tracer = None

    @property
    def active(self) -> bool:
        return bool(self._t.contents.active)

    @active.setter
    def active(self, value: bool) -> None:
        self._t.contents.active = 1 if value else 0

    # -- recording -------------------------------------------------------------------------------
    def _reset_state(self, capture: int | None) -> None:
        s = self._t.contents
        s.n = 0
        s.n_insns = 0
        s.failed = 0
        self._error = None
        self._chunks: list[bytes] = []
        self._chunk_starts: list[int] = [0]
        self._base = 0
        self._capture = capture
        self._captured = None
        self._captured_prev_pc = None
        self._calls: list[tuple[int, str]] = []
        self._entry_pc = None
        self._last_pc = None

    def begin(self, capture: int | None = None) -> None:
        self._reset_state(capture)

    def mark_call(self, name: str) -> None:
        self._calls.append((self._base + self._t.contents.n, name))

    def end(self) -> Trace:
        self._check()
        self._flush(final=True)
        return Trace(chunks=self._chunks, chunk_starts=self._chunk_starts[:len(self._chunks)],
                     n_events=self._base, n_insns=self._t.contents.n_insns, calls=self._calls,
                     captured=self._captured, captured_prev_pc=self._captured_prev_pc)

    @contextmanager
    def recording(self):
        """Record events while the block runs (nested use is not supported)."""
        self.active = True
        try:
            yield
        except Exception:
            if self._error is not None:   # the recorder stopped the run: its failure is the cause
                self._check()
            raise
        finally:
            self.active = False
        self._check()

    def _flush(self, final: bool = False) -> None:
        s = self._t.contents
        n = s.n
        if s.n_insns:
            self._last_pc = s.last_pc
        if not n:
            if final and not self._chunks:
                self._chunks.append(hashlib.blake2b(b"", digest_size=16).digest())
            return
        raw = ctypes.string_at(s.buf, 8 * n)
        k = len(self._chunks)
        if k == self._capture:
            self._captured = list(array("Q", raw))
            self._captured_prev_pc = self._entry_pc
        self._chunks.append(hashlib.blake2b(raw, digest_size=16).digest())
        self._base += n
        self._chunk_starts.append(self._base)
        self._entry_pc = self._last_pc          # last instruction before the next chunk
        s.n = 0

    def _classify_cb(self, address: int, size: int) -> int:
        d = self._dyn.get(address, _UNKNOWN)
        if d is _UNKNOWN:
            d = self._classify(address, size)
        return 0 if d is None else 1

    def _timing(self, address: int) -> int:
        fn, mnem, rn, rm = self._dyn[address]
        return fn(mnem, self.uc.reg_read(rn), self.uc.reg_read(rm)) << 8 | K_TIMING

    def _classify(self, address: int, size: int):
        """None, or (timing function, mnemonic, Rn id, Rm id) for a data-dependent instruction."""
        d = None
        code = bytes(self.uc.mem_read(address, size))
        if self._a64 is not None:
            d = self._dyn[address] = self._a64.classify(self._md, code, address)
            return d
        if size != 4 or code[1] != 0xFB:     # multiplies and divides are 32-bit 0xFBxx encodings
            self._dyn[address] = None
            return None
        for i in self._md.disasm(code, address, 1):
            ins = C.classify_capstone(i)
            if ins.cls in T.DATA_DEPENDENT[self.core]:
                ops = ins.operands
                if ins.cls == "div":
                    rn, rm = (ops[1], ops[2]) if len(ops) >= 3 else (ops[0], ops[1])
                    d = (T.divide_cycles, ins.mnemonic, REG_IDS[rn], REG_IDS[rm])
                else:   # UMULL/SMULL/UMLAL/SMLAL RdLo, RdHi, Rn, Rm
                    d = (cortex_m3.long_multiply_cycles, ins.mnemonic, REG_IDS[ops[2]], REG_IDS[ops[3]])
        self._dyn[address] = d
        return d


# ------------------------------------------------------------------------------------------------
# runs, comparison, reports
# ------------------------------------------------------------------------------------------------
@dataclass
class Divergence:
    check: str                   # which check (scenario) found it
    call: str | None             # the traced API call during which it happened
    address: int | None          # instruction address
    disassembly: str
    symbol: str | None           # function symbol containing the address
    origin: str                  # symbol with the generator part it comes from
    what: str                    # 'control flow' | 'data address' | 'timing class' | 'trace length'
    detail: str
    runs: tuple[int, int]        # (reference run, diverging run)
    secrets: str = ""            # what differed between the runs
    event_index: int = 0

    def __str__(self) -> str:
        where = f"{self.address:#010x}" if self.address is not None else "?"
        s = (f"{self.what} depends on secrets in check {self.check!r}"
             f"{' (call ' + self.call + ')' if self.call else ''}: "
             f"instruction {where} `{self.disassembly}` in {self.origin}: {self.detail} "
             f"(runs {self.runs[0]} and {self.runs[1]}, event {self.event_index}")
        if self.secrets:
            s += f"; secrets varied: {self.secrets}"
        return s + ")"


@dataclass
class CtResult:
    status: str                          # 'verified' | 'not-constant-time'
    divergence: Divergence | None = None
    runs: int = 0
    instructions: int = 0                # instructions of the reference run

    @property
    def verified(self) -> bool:
        return self.status == "verified"

    def __str__(self) -> str:
        if self.divergence is None:
            return f"verified ({self.runs} runs, {self.instructions} instructions each)"
        return f"not-constant-time: {self.divergence}"


@dataclass
class CtReport:
    status: str                          # 'verified' | 'not-constant-time'
    checked: list[str] = field(default_factory=list)      # API functions covered
    divergence: Divergence | None = None
    checks: list[tuple[str, str, int]] = field(default_factory=list)   # (check, status, instructions)
    runs: int = 0
    seconds: float = 0.0
    core: str = ""

    @property
    def verified(self) -> bool:
        return self.status == "verified"

    def __str__(self) -> str:
        head = (f"constant-time check on {self.core}: {self.status} "
                f"({len(self.checks)} checks x {self.runs} runs, {self.seconds:.1f} s; "
                f"functions: {', '.join(self.checked)})")
        if self.divergence is not None:
            head += f"\n  first divergence: {self.divergence}"
        return head


class Session:
    """Calls into a firmware on a machine, traced or not, with a deterministic starting state."""

    def __init__(self, machine: Machine, firmware: Firmware, prefix: str | None = None):
        self.machine = machine
        self.firmware = firmware
        self.prefix = prefix
        self.tracer = Tracer.of(machine)
        self.called: list[str] = []

    def addr(self, name: str) -> int:
        full = name if name in self.firmware.symbols or not self.prefix else f"{self.prefix}_{name}"
        return self.firmware.addr(full)

    def _call(self, name: str, args) -> int:
        uc = self.machine.uc
        for r in _SCRATCH.get(self.machine.platform.name, _SCRATCH_REGS):   # same state every run
            uc.reg_write(r, 0)
        rc = self.machine.call(self.addr(name), *args, timeout_s=600.0)
        return rc - (1 << 32) if rc & 0x80000000 else rc

    def call(self, name: str, *args) -> int:
        """Untraced call (set-up)."""
        return self._call(name, args)

    def tcall(self, name: str, *args) -> int:
        """Traced call."""
        if name not in self.called:
            self.called.append(name)
        self.tracer.mark_call(name)
        with self.tracer.recording():
            return self._call(name, args)


RunFn = Callable[[Session, int], None]


def _trace_of(session: Session, run: RunFn, i: int, capture: int | None = None) -> Trace:
    session.machine.reset_buffers()
    session.tracer.begin(capture)
    run(session, i)
    return session.tracer.end()


def _first_chunk_diff(a: Trace, b: Trace) -> int | None:
    for k, (x, y) in enumerate(zip(a.chunks, b.chunks)):
        if x != y:
            return k
    if len(a.chunks) != len(b.chunks):
        return min(len(a.chunks), len(b.chunks))
    return None


def _locate(session: Session, check: str, a: Trace, b: Trace, k: int, runs: tuple[int, int],
            secrets: str) -> Divergence:
    ea, eb = a.captured or [], b.captured or []
    # (when one trace ended exactly where chunk k would start, only the other one captured it)
    full = a if a.captured is not None else b
    prev_pc = full.captured_prev_pc
    j = 0
    n = min(len(ea), len(eb))
    while j < n and ea[j] == eb[j]:
        j += 1
    # last instruction up to (and not including) j: the instruction the divergence belongs to
    last_pc = prev_pc
    for e in ea[:j]:
        if e & 7 == K_INSN:
            last_pc = e >> 8
    start = full.chunk_starts[k] if k < len(full.chunk_starts) else full.n_events
    index = start + j

    def show(e):
        if e is None:
            return "the end of the call"
        kind, val, size = e & 7, e >> 8, (e >> 3) & 31
        if kind == K_INSN:
            return f"instruction {val:#010x}"
        if kind == K_TIMING:
            return f"{val} cycles"
        return f"{_KIND_NAMES[kind]} of {size} bytes at {val:#010x}"

    x = ea[j] if j < len(ea) else None
    y = eb[j] if j < len(eb) else None
    kx = None if x is None else x & 7
    ky = None if y is None else y & 7
    if x is None or y is None:
        what = "trace length"
        if x is not None and kx == K_INSN or y is not None and ky == K_INSN:
            what = "control flow"
    elif kx == K_INSN and ky == K_INSN:
        what = "control flow"
    elif kx == K_TIMING and ky == K_TIMING:
        what = "timing class"
    elif kx in (K_READ, K_WRITE) and ky in (K_READ, K_WRITE):
        what = "data address"
    else:
        what = "control flow" if K_INSN in (kx, ky) else "trace shape"
    if what == "control flow":
        detail = f"next: {show(x)} in run {runs[0]}, {show(y)} in run {runs[1]}"
    else:
        detail = f"{show(x)} in run {runs[0]}, {show(y)} in run {runs[1]}"
    symtab = SymbolTable(session.firmware.symbols)
    sym = symtab.lookup(last_pc) if last_pc is not None else None
    dis = Disassembler(session.machine.uc, _classifier(session.machine)).text(last_pc) if last_pc is not None else "?"
    return Divergence(check=check, call=full.call_at(index), address=last_pc, disassembly=dis,
                      symbol=sym, origin=describe_symbol(sym, session.prefix), what=what,
                      detail=detail, runs=runs, secrets=secrets, event_index=index)


def check_runs(session: Session, check: str, run: RunFn, n: int, secrets: str = "") -> CtResult:
    """Run `run(session, i)` for i in range(n) (each traces its own calls with session.tcall)
    and compare every trace with run 0's."""
    ref = _trace_of(session, run, 0)
    for i in range(1, n):
        t = _trace_of(session, run, i)
        k = _first_chunk_diff(ref, t)
        if k is not None:
            a = _trace_of(session, run, 0, capture=k)
            b = _trace_of(session, run, i, capture=k)
            if a.chunks != ref.chunks or b.chunks != t.chunks:
                raise RuntimeError(f"check {check!r}: runs are not reproducible; cannot locate "
                                   "the divergence")
            return CtResult("not-constant-time", _locate(session, check, a, b, k, (0, i), secrets),
                            runs=i + 1, instructions=ref.n_insns)
    return CtResult("verified", None, runs=n, instructions=ref.n_insns)


def check_function(machine: Machine, firmware: Firmware, func_name: str,
                   make_args: Callable[[Machine, object], Sequence[int]],
                   secrets_list: Sequence[object], prefix: str | None = None) -> CtResult:
    """Call `func_name` once per secret with `make_args(machine, secret)` (buffers are reset
    before each run, so the same allocation order gives the same public addresses) and compare
    the traces: 'verified' or the first divergence."""
    session = Session(machine, firmware, prefix)

    def run(s: Session, i: int) -> None:
        args = make_args(s.machine, secrets_list[i])
        s.tcall(func_name, *args)

    return check_runs(session, func_name, run, len(secrets_list), secrets="arguments' contents")


# ------------------------------------------------------------------------------------------------
# snippets (tests, fixtures)
# ------------------------------------------------------------------------------------------------
def snippet_firmware(source: str, core: str, workdir: Path) -> Firmware:
    """Assemble a Thumb-2 snippet at FLASH_BASE; its labels become symbols (size: up to the
    next label, or the .size directive)."""
    workdir = Path(workdir)
    image = assemble(source, core, workdir)
    out = subprocess.run([tool("arm-none-eabi-nm"), "-S", "-n", str(workdir / "snippet.o")],
                         capture_output=True, text=True, check=True).stdout
    raw = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4:
            raw.append((parts[3], int(parts[0], 16) & ~1, int(parts[1], 16)))
        elif len(parts) == 3 and parts[1].lower() == "t":
            raw.append((parts[2], int(parts[0], 16) & ~1, 0))
    raw = [r for r in raw if not r[0].startswith("$")]
    starts = sorted({a for _, a, _ in raw} | {len(image)})
    symbols = {}
    for name, a, s in raw:
        if s == 0:
            s = next(x for x in starts if x > a) - a if a < len(image) else 0
        symbols[name] = (a, s)
    return Firmware(elf=workdir / "snippet.o", image=image, symbols=symbols, core=core)


# ------------------------------------------------------------------------------------------------
# whole drops
# ------------------------------------------------------------------------------------------------
def _wrong_tag(tag: bytes, i: int, r) -> bytes:
    """``tag`` with one byte changed: byte 0 in even runs, byte 15 in odd runs (the two must
    trace alike: a compare that stops at the first difference would not)."""
    t = bytearray(tag)
    t[0 if i % 2 == 0 else 15] ^= r.randrange(1, 256)
    return bytes(t)


def _secret(rng: random.Random, i: int, n: int) -> bytes:
    """Run 1 uses all-zero secrets, run 2 all-0xFF, the others random bytes."""
    if i == 1:
        return bytes(n)
    if i == 2:
        return b"\xff" * n
    return rng.randbytes(n)


class _Drop:
    def __init__(self, session: Session, keybytes: int, ctx_bytes: int, stream_bytes: int, seed: int):
        self.s = session
        self.kb = keybytes
        self.ctx_bytes = ctx_bytes
        self.stream_bytes = stream_bytes
        self.seed = seed
        self._ctx_cache: dict[bytes, bytes] = {}

    def rng(self, check: str, i: int) -> random.Random:
        return random.Random(f"{self.seed}/{check}/{i}")

    def ro(self, data: bytes) -> int:
        return self.s.machine.alloc(max(len(data), 1), data or b"\0", readonly=True)

    def rw(self, n: int) -> int:
        return self.s.machine.alloc(max(n, 1))

    def key(self, i: int) -> bytes:
        """The key of run i (the same in every check, so that contexts can be cached)."""
        return _secret(random.Random(f"{self.seed}/key/{i}"), i, self.kb)

    def ctx(self, key: bytes) -> int:
        """A context set up (untraced) with `key`: init runs once per key, then its bytes are
        copied (init writes nothing but the context)."""
        c = self.rw(self.ctx_bytes)
        kp = self.ro(key)            # allocated either way: later buffers keep their addresses
        cached = self._ctx_cache.get(key)
        if cached is not None:
            self.s.machine.write(c, cached)
            return c
        rc = self.s.call("init", c, kp, len(key))
        if rc != 0:
            raise RuntimeError(f"init failed ({rc}) while preparing a constant-time check")
        self._ctx_cache[key] = self.s.machine.read(c, self.ctx_bytes)
        return c

    def encrypt_untraced(self, key, iv, aad, pt, taglen) -> tuple[bytes, bytes]:
        m = self.s.machine
        c = self.ctx(key)
        ivp, aadp, inp = self.ro(iv), self.ro(aad), self.ro(pt)
        out, tag = self.rw(len(pt)), self.rw(16)
        rc = self.s.call("encrypt", c, ivp, len(iv), aadp, len(aad), inp, len(pt), out, tag, taglen)
        if rc != 0:
            raise RuntimeError(f"encrypt failed ({rc}) while preparing a constant-time check")
        return m.read(out, len(pt)), m.read(tag, taglen)


def _drop_checks(d: _Drop, keybytes: int, extra_lengths: Sequence[int] = ()):
    """(check name, secrets description, run function) for every check of a GCM drop."""
    checks = []
    s_key = "key"

    def init_run(s: Session, i: int):
        r = d.rng("init", i)
        key = d.key(i)
        c, kp = d.rw(d.ctx_bytes), d.ro(key)
        s.tcall("init", c, kp, keybytes)
        s.tcall("wipe", c)
    checks.append(("init+wipe", s_key, init_run))

    iv96 = bytes(range(1, 13))
    iv_long = bytes((7 * j + 3) & 0xFF for j in range(60))      # non-96-bit IV (public)
    combos = [(iv, n, a) for iv in (iv96, iv_long) for n in (0, 1, 16, 33, 64) for a in (0, 20)]
    combos += [(iv96, n, 20) for n in extra_lengths]

    for iv, n, alen in combos:
        name = f"encrypt iv{len(iv)} len{n} aad{alen}"

        def enc_run(s: Session, i: int, iv=iv, n=n, alen=alen, name=name):
            r = d.rng(name, i)
            key, pt, aad = d.key(i), _secret(r, i, n), _secret(r, i, alen)
            c = d.ctx(key)
            ivp, aadp, inp, out, tag = d.ro(iv), d.ro(aad), d.ro(pt), d.rw(n), d.rw(16)
            s.tcall("encrypt", c, ivp, len(iv), aadp, alen, inp, n, out, tag, 16)
        checks.append((name, "key, plaintext, AAD", enc_run))

    dec_combos = [(iv96, 0, 20), (iv96, 33, 20), (iv96, 64, 0), (iv_long, 16, 20),
                  (iv96, 161, 20), (iv_long, 161, 0)]    # 161: a loop step of 8 blocks, a pair, a byte
    for iv, n, alen in dec_combos:
        for verdict in ("right tag", "wrong tag"):
            name = f"decrypt {verdict} iv{len(iv)} len{n} aad{alen}"

            def dec_run(s: Session, i: int, iv=iv, n=n, alen=alen, name=name, verdict=verdict):
                r = d.rng(name, i)
                key, pt, aad = d.key(i), _secret(r, i, n), _secret(r, i, alen)
                ct, tag = d.encrypt_untraced(key, iv, aad, pt, 16)
                if verdict == "wrong tag":
                    tag = _wrong_tag(tag, i, r)
                s.machine.reset_buffers()
                c = d.ctx(key)
                ivp, aadp, inp, tagp, out = d.ro(iv), d.ro(aad), d.ro(ct), d.ro(tag), d.rw(n)
                rc = s.tcall("decrypt", c, ivp, len(iv), aadp, alen, inp, n, tagp, 16, out)
                if (rc == 0) != (verdict == "right tag"):
                    raise RuntimeError(f"{name}: decrypt returned {rc} (run {i})")
            secrets = "key, plaintext, AAD, tag" + (" (wrong byte 0 / 15)" if verdict == "wrong tag" else "")
            checks.append((name, secrets, dec_run))

    for iv, n, alen in ((iv96, 33, 20), (iv_long, 64, 20)):
        for mode in ("encrypt", "decrypt right tag", "decrypt wrong tag"):
            name = f"stream {mode} iv{len(iv)} len{n} aad{alen}"

            def st_run(s: Session, i: int, iv=iv, n=n, alen=alen, name=name, mode=mode):
                r = d.rng(name, i)
                key, pt, aad = d.key(i), _secret(r, i, n), _secret(r, i, alen)
                dec = mode != "encrypt"
                data, tag = pt, b""
                if dec:
                    data, tag = d.encrypt_untraced(key, iv, aad, pt, 16)
                    if mode == "decrypt wrong tag":
                        tag = _wrong_tag(tag, i, r)
                    s.machine.reset_buffers()
                c = d.ctx(key)
                st = d.rw(d.stream_bytes)
                ivp, aadp, inp, out = d.ro(iv), d.ro(aad), d.ro(data), d.rw(n)
                tagp = d.ro(tag) if dec else d.rw(16)
                s.tcall("start", st, c, ivp, len(iv), 1 if dec else 0)
                split = alen // 3
                s.tcall("aad", st, aadp, split)
                s.tcall("aad", st, aadp + split, alen - split)
                done = 0
                for chunk in (7, 16, 1, 64):
                    k = min(chunk, n - done)
                    s.tcall("update", st, inp + done, k, out + done)
                    done += k
                if dec:
                    rc = s.tcall("finish_verify", st, tagp, 16)
                    if (rc == 0) != (mode == "decrypt right tag"):
                        raise RuntimeError(f"{name}: finish_verify returned {rc} (run {i})")
                else:
                    s.tcall("finish", st, tagp, 16)
            checks.append((name, "key, plaintext, AAD" + (", tag" if mode != "encrypt" else ""), st_run))

    for nb in (1, 2, 5):          # 5: two pairs in the looped kernel's loop, then the odd block
        name = f"ecb_encrypt {nb} blocks"

        def ecb_run(s: Session, i: int, nb=nb, name=name):
            r = d.rng(name, i)
            key, blocks = d.key(i), _secret(r, i, 16 * nb)
            c = d.ctx(key)
            inp, out = d.ro(blocks), d.rw(16 * nb)
            s.tcall("ecb_encrypt", c, out, inp, nb)
        checks.append((name, "key, input blocks", ecb_run))

    for nb in (1, 3):
        name = f"ghash {nb} blocks"

        def gh_run(s: Session, i: int, nb=nb, name=name):
            r = d.rng(name, i)
            key, y0, blocks = d.key(i), _secret(r, i, 16), _secret(r, i, 16 * nb)
            c = d.ctx(key)
            y = s.machine.alloc(16, y0)
            inp = d.ro(blocks)
            s.tcall("ghash", c, y, inp, nb)
        checks.append((name, "key (H), y, input blocks", gh_run))
    return checks


def check_drop(header_path, prefix: str, target: str, keybits: int, rk_words: int, hk_words: int,
               workdir, runs: int = 8, seed: int = 0, firmware: Firmware | None = None,
               only: Callable[[str], bool] | None = None,
               extra_lengths: Sequence[int] = ()) -> CtReport:
    """Trace-equivalence check of every API function of a GCM drop (see the module comment).

    Builds the drop with the emulator driver (in `workdir`/ct, unless `firmware` is given),
    then runs each check `runs` times with the same public inputs and different secrets.
    Stops at the first divergence.  `only` filters checks by name (tests); `extra_lengths`
    adds one-shot encrypt checks of those message lengths (e.g. 4128 for FACE drops, whose
    cache is refreshed every 256 counter blocks)."""
    if firmware is None:
        wd = Path(workdir) / "ct"
        wd.mkdir(parents=True, exist_ok=True)
        firmware = build_firmware(Path(header_path), prefix, target, wd)

    def checks(session: Session):
        ctx_bytes = max(4 * (rk_words + hk_words), firmware.symbols.get("sg_ctx", (0, 0))[1])
        stream_bytes = max(256, firmware.symbols.get("sg_stream", (0, 0))[1])
        d = _Drop(session, keybits // 8, ctx_bytes, stream_bytes, seed)
        return _drop_checks(d, keybits // 8, extra_lengths)
    return run_checks(firmware, prefix, checks, runs, only)


def run_checks(firmware: Firmware, prefix: str, make_checks, runs: int = 8,
               only: Callable[[str], bool] | None = None) -> CtReport:
    """Run every check that ``make_checks(session)`` lists ((name, secrets, run) triples, as
    ``_drop_checks``) `runs` times on a fresh machine; stop at the first divergence."""
    t0 = time.time()
    if runs < 2:
        raise ValueError("a constant-time check needs at least 2 runs")
    machine = Machine(firmware.core, firmware.image)
    session = Session(machine, firmware, prefix)
    report = CtReport(status="verified", runs=runs, core=firmware.core)
    for name, secrets, run in make_checks(session):
        if only is not None and not only(name):
            continue
        res = check_runs(session, name, run, runs, secrets)
        report.checks.append((name, res.status, res.instructions))
        if not res.verified:
            report.status = "not-constant-time"
            report.divergence = res.divergence
            break
    report.checked = list(session.called)
    report.seconds = time.time() - t0
    return report
