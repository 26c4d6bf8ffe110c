"""List scheduling of generated A64 for an in-order core (``[armv8] core = "cortex-a55"``).

The kernels are written for out-of-order cores: blocks interleaved round by round, GHASH dealt
among the rounds in program order. An out-of-order window finds the independent work itself; the
Cortex-A55 issues in order, two a cycle, and stalls at the first instruction whose operands are
not ready (a table word's load, a PMULL's result, a REV64 of a block just loaded). So a
function body is cut into straight-line regions (at labels, branches and ``ret``) and each region
is list-scheduled: a dependence graph from the registers each instruction reads and writes (v/q/d/s
are one register, w/x one, the flags one; partial writes such as ``mov v31.s[3], w12`` read their
destination) and memory order (stores stay in order with every load and store; loads may pass
loads), latencies from llvm-mca-19's model of the core (``-instruction-info``), then a cycle by
cycle simulation of a dual-issue in-order core that issues, among the instructions whose inputs are
ready, those with the longest latency path to the region's end first, at most one on the AES/PMULL
unit and one memory access a cycle. An AESE and the AESMC of its result are one node: they stay
adjacent (the cores fuse them). Nothing is added or removed: a region comes out as a permutation
of itself that keeps every dependence (``check``), and the drop's checks (NIST, differential in
Unicorn and qemu, constant time) run on the scheduled code as on any other.
"""
from __future__ import annotations

import functools
import re
import shutil
import subprocess

from gen.errors import ConfigError

MCA = "llvm-mca-19"
_REG = re.compile(r"(?<![\w.#])([vqdsbhxw])(\d{1,2})\b")
_BOUNDARY = re.compile(r"^(b|bl|br|blr|ret|cbz|cbnz|tbz|tbnz|b\.\w+)(\s|$)")
_FLAG_WRITERS = ("cmp", "cmn", "tst", "subs", "adds", "ands", "bics", "negs")


def _regs(text: str) -> list[str]:
    return ["v" + n if k in "vqdsbh" else ("sp" if n == "31" and k == "x" else "x" + n) for k, n in _REG.findall(text)]


def _operands(rest: str) -> list[str]:
    return [o.strip() for o in re.split(r",(?![^\[]*\])(?![^{]*\})", rest) if o.strip()]


def effects(line: str) -> tuple[set, set, str | None]:
    """(registers read, registers written, "load"/"store"/None) of one instruction."""
    op, _, rest = line.strip().partition(" ")
    ops = _operands(rest)
    if op.startswith(("ld", "st")) and any(o.startswith("[") for o in ops):
        addr = next(o for o in ops if o.startswith("["))
        base = _regs(addr)
        reads, writes = set(base), set()
        if rest.rstrip().endswith("]!") or re.search(r"\]\s*,\s*#", rest):
            writes.add(base[0])
        data = {r for o in ops if not o.startswith(("[", "#")) for r in _regs(o)}
        if op.startswith("ld"):
            return reads, writes | data, "load"
        return reads | data, writes, "store"
    regs = [_regs(o) for o in ops]
    if op in ("cmp", "cmn", "tst"):
        return {r for x in regs for r in x}, {"flags"}, None
    dest = regs[0][0] if regs and regs[0] else None
    reads = {r for x in regs[1:] for r in x}
    writes = {dest} if dest else set()
    if dest and (op in ("aese", "aesmc", "aesd", "aesimc") or re.search(r"\.[bhsd]\[", ops[0])
                 or op in ("movk", "bfi", "bfxil", "ins")):
        reads.add(dest)                          # reads its destination (or writes part of it)
    if op in _FLAG_WRITERS:
        writes.add("flags")
    if op.startswith("csel") or op.startswith("cset") or op in ("adc", "sbc"):
        reads.add("flags")
    return reads, writes, None


@functools.lru_cache(maxsize=None)
def _latencies(text: str, core: str) -> tuple[tuple[int, float], ...]:
    exe = shutil.which(MCA)
    if exe is None:
        raise ConfigError(f"{MCA} not found on PATH; run `make` (it installs llvm-19) or `apt-get install llvm-19`")
    out = subprocess.run([exe, "-mtriple=aarch64", f"-mcpu={core}", "-iterations=1", "-resource-pressure=false",
                          "-mattr=+aes,+sha3" if "eor3" in text else "-mattr=+aes"],
                         input=text, capture_output=True, text=True).stdout
    rows = out[out.index("[1]    [2]"):].splitlines()[1:]
    lat = []
    for row in rows:
        parts = row.split()
        if len(parts) < 4 or not parts[0].isdigit():
            break
        lat.append((int(parts[1]), float(parts[2])))
    if len(lat) != text.count("\n"):
        raise ValueError(f"llvm-mca gave {len(lat)} latencies for {text.count(chr(10))} instructions on {core}")
    return tuple(lat)


def _nodes(lines: list[str]) -> list[list[str]]:
    """Instructions, an AESE with the AESMC of its result after it as one node."""
    out, i = [], 0
    while i < len(lines):
        a = re.match(r"aese\s+(v\d+)\.", lines[i])
        if a and i + 1 < len(lines) and re.match(rf"aesmc\s+{a.group(1)}\.16b,\s*{a.group(1)}\.", lines[i + 1]):
            out.append(lines[i:i + 2])
            i += 2
        else:
            out.append([lines[i]])
            i += 1
    return out


def dependences(nodes: list[list[str]]) -> tuple[list[list[tuple[int, str]]], list[tuple[set, set, str | None]]]:
    """For each node, its predecessors (node, kind: "raw", "war", "waw", "mem") and its effects."""
    eff = []
    for n in nodes:
        reads, writes, mem = set(), set(), None
        for line in n:
            r, w, m = effects(line)
            reads |= r - writes
            writes |= w
            mem = mem or m
        eff.append((reads, writes, mem))
    preds: list[list[tuple[int, str]]] = [[] for _ in nodes]
    last_w: dict = {}
    readers: dict = {}
    last_store, loads, last_mem = None, [], None
    for j, (reads, writes, mem) in enumerate(eff):
        preds[j] += [(last_w[r], "raw") for r in reads if r in last_w]
        for w in writes:
            if w in last_w:
                preds[j].append((last_w[w], "waw"))
            preds[j] += [(q, "war") for q in readers.get(w, []) if q != j]
        if mem == "store":
            preds[j] += ([(last_mem, "mem")] if last_mem is not None else []) + [(q, "mem") for q in loads]
            last_store, loads, last_mem = j, [], j
        elif mem == "load":
            if last_store is not None:
                preds[j].append((last_store, "mem"))
            loads.append(j)
        for r in reads:
            readers.setdefault(r, []).append(j)
        for w in writes:
            last_w[w], readers[w] = j, []
    return preds, eff


def schedule_region(lines: list[str], core: str, width: int = 2) -> list[str]:
    if len(lines) < 3:
        return list(lines)
    nodes = _nodes(lines)
    lat1 = _latencies("\n".join(lines) + "\n", core)
    lat, thr, k = [], [], 0
    for n in nodes:
        lat.append(sum(lat1[k + j][0] for j in range(len(n))))
        thr.append(sum(lat1[k + j][1] for j in range(len(n))))
        k += len(n)
    preds, eff = dependences(nodes)
    delay = [[(p, lat[p] if kind == "raw" else (1 if kind in ("waw", "mem") else 0)) for p, kind in ps]
             for ps in preds]
    succ: list[list[tuple[int, int]]] = [[] for _ in nodes]
    for j, ps in enumerate(delay):
        for p, d in ps:
            succ[p].append((j, d))
    height = [0] * len(nodes)
    for j in range(len(nodes) - 1, -1, -1):
        height[j] = max([d + height[s] for s, d in succ[j]] + [lat[j]])
    issued_at: dict[int, int] = {}
    order: list[int] = []
    busy = {"aes": 0, "mem": 0}
    t = 0
    while len(order) < len(nodes):
        ready = sorted((j for j in range(len(nodes)) if j not in issued_at
                        and all(p in issued_at and issued_at[p] + d <= t for p, d in delay[j])),
                       key=lambda j: (-height[j], j))
        slots = width
        for j in ready:
            unit = "mem" if eff[j][2] else ("aes" if nodes[j][0].startswith(("aes", "pmull")) else None)
            if slots < len(nodes[j]) and slots < width or slots <= 0 or (unit and busy[unit] > t):
                continue
            issued_at[j] = t
            order.append(j)
            slots -= len(nodes[j])
            if unit:
                busy[unit] = t + max(1, round(thr[j]))
        t += 1
    return [line for j in order for line in nodes[j]]


def check(before: list[str], after: list[str]) -> None:
    """Raise unless `after` is a permutation of `before` that keeps every dependence."""
    if sorted(before) != sorted(after):
        raise ValueError("the schedule added or dropped instructions")
    nodes = _nodes(before)
    preds, _ = dependences(nodes)
    position: dict[int, int] = {}
    i = 0
    while i < len(after):                        # each node's place in `after` (equal texts: in order)
        j = next((j for j, n in enumerate(nodes) if j not in position and after[i:i + len(n)] == n), None)
        if j is None:
            raise ValueError(f"the schedule split a node at {after[i]!r}")
        position[j] = i
        i += len(nodes[j])
    for j, ps in enumerate(preds):
        for p, kind in ps:
            if position[p] >= position[j]:
                raise ValueError(f"{kind} dependence broken: {nodes[p]} must come before {nodes[j]}")


def schedule(body: list[str], core: str) -> list[str]:
    """`body` (a function's instructions and labels) with each straight-line region scheduled."""
    out, region = [], []
    for line in body:
        if line.endswith(":") or _BOUNDARY.match(line.strip()):
            done = schedule_region(region, core)
            check(region, done)
            out += done + [line]
            region = []
        else:
            region.append(line)
    done = schedule_region(region, core)
    check(region, done)
    return out + done
