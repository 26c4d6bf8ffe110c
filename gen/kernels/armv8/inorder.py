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
cycle simulation of the A55's issue (``issue_class``: the Optimization Guide's slot-0-only
instructions, one 128-bit NEON op a cycle, load and store pipes; results written back in order)
that issues, among the ready instructions within a window, those with the longest latency path
to the region's end first. An AESE and the AESMC of its result are one node: they stay adjacent
(the cores fuse them). Post-indexed Q loads first become offset loads (``offset_loads``); then
nothing is added or removed: a region comes out as a permutation of itself that keeps every
dependence (``check``), and the drop's checks (NIST, differential in Unicorn and qemu, constant
time) run on the scheduled code as on any other. The model and its figures: docs/armv8-fusion.md.
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


#: an operand that makes an Advanced SIMD instruction Q-form (128 bits): an arrangement of 16 bytes, or a
#: q register; ``.1q`` (PMULL's 128-bit product) is the crypto unit's, classed by opcode below
_QFORM = re.compile(r"\.(16b|8h|4s|2d)\b|(?<![\w.])q\d{1,2}\b")


def _writes_base(line: str) -> bool:
    return bool(re.search(r"\]!|\]\s*,\s*#", line))


def issue_class(node: list[str]) -> tuple[bool, str | None]:
    """How a node issues on the Cortex-A55 (Arm Cortex-A55 Software Optimization Guide, EPM128372,
    v4.0): (slot0_only, unit). A Q-form Advanced SIMD instruction "can only be dual issued as
    instruction 0 and execution throughput is 1" (sections 4.15-4.17, note 1): it must be the
    older of the two instructions issued in a cycle and it takes the whole NEON datapath, so it
    shares its cycle with a younger integer, scalar or D-form instruction only. AESE/AESD and
    PMULL(2) are dual-issuable from slot 0 only, throughput 1 (section 4.20); an adjacent
    AESE/AESMC pair dual-issues as one (sections 3.5.2, 4.20 note 1: it fills the cycle). Q-form
    loads, every vector LDP, LD1/ST1 of several registers and STP of Q registers issue from slot 0
    only (sections 4.13, 4.14, 4.18, 4.19); the load and store pipelines are separate (5.8).
    unit: "neon" (the whole NEON datapath for one cycle), "load", "store" or None."""
    op, _, rest = node[0].strip().partition(" ")
    if op.startswith(("ld", "st")) and "[" in rest:
        data = rest.split("[")[0]
        vec = re.search(r"(?<![\w.])[vqds]\d", data) is not None
        if op.startswith("ld"):       # LDR/LDUR/LD1 of one Q register, any vector LDP, LD1 of several
            return bool(_QFORM.search(data)) or vec and (op.startswith("ldp") or data.count(",") > 1), "load"
        return vec and (op.startswith("stp") and bool(_QFORM.search(data)) or op.startswith("st1")
                        and data.count(",") > 1), "store"          # STP of Q registers, ST1 of several
    if op.startswith(("aes", "pmull")) or (re.match(r"v\d", rest.strip()) and _QFORM.search(rest)):
        return True, "neon"
    return False, None


def schedule_region(lines: list[str], core: str, width: int = 2, window: int = 0) -> list[str]:
    """`lines` (straight-line code) list-scheduled for a dual-issue in-order core: cycle by cycle,
    the ready node (within `window` nodes of the oldest one not issued, 0: any) with the longest
    latency path to the region's end first, within the issue rules of ``issue_class`` (at most
    one slot-0-only node a cycle, and it first; one node a cycle on the NEON datapath, the load
    and the store pipeline each, for as many cycles as llvm-mca's reciprocal throughput says)
    and in-order write-back (llvm-mca's in-order model: no result is written before an older
    one's). An AESE/AESMC pair counts as the AESE (the core fuses it)."""
    if len(lines) < 3:
        return list(lines)
    nodes = _nodes(lines)
    lat1 = _latencies("\n".join(lines) + "\n", core)
    lat, thr, k = [], [], 0
    for n in nodes:
        lat.append(lat1[k][0])                    # a fused pair: its AESE's latency (the AESMC's is hidden)
        thr.append(lat1[k][1])
        k += len(n)
    cls = [issue_class(n) for n in nodes]
    preds, eff = dependences(nodes)
    # the cycle after issue before which a node may not write back (in-order completion): its
    # latency; a load that updates its base writes the base at once (0); a store writes nothing
    wb = [None if cls[j][1] == "store" else 0 if cls[j][1] == "load" and _writes_base(nodes[j][0]) else lat[j]
          for j in range(len(nodes))]
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
    busy = {"neon": 0, "load": 0, "store": 0}
    t = done = 0
    while len(order) < len(nodes):
        first = next(j for j in range(len(nodes)) if j not in issued_at)
        ready = sorted((j for j in range(first, first + window if window else len(nodes))
                        if j < len(nodes) and j not in issued_at
                        and all(p in issued_at and issued_at[p] + d <= t for p, d in delay[j])),
                       key=lambda j: (-height[j], j))
        slots = width
        for j in ready:
            slot0_only, unit = cls[j]
            if slots <= 0 or (slot0_only or len(nodes[j]) > 1) and slots < width or (unit and busy[unit] > t) \
                    or wb[j] is not None and t + wb[j] < done:   # written back in order: not before an older one
                continue
            issued_at[j] = t
            done = max(done, t + lat[j]) if wb[j] is not None else done
            order.append(j)
            slots -= width if len(nodes[j]) > 1 else 1
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


_POST_LOAD = re.compile(r"^(ldr|ldp)\s+(q\d+)(?:,\s*(q\d+))?,\s*\[(x\d+)\],\s*#(\d+)$"
                        r"|^ld1\s+\{\s*(v\d+\.16b(?:,\s*v\d+\.16b)*)\s*\},\s*\[(x\d+)\],\s*#(\d+)$")


def _post_load(line: str) -> tuple[list[str], str, int] | None:
    """(Q registers loaded, base, advance) of a post-indexed Q-form load (LDR, LDP, LD1 of .16b
    registers: on a little-endian core LD1 {vA.16b} loads what LDR qA does), else None."""
    m = _POST_LOAD.match(line.strip())
    if not m:
        return None
    if m.group(4):
        return [r for r in (m.group(2), m.group(3)) if r], m.group(4), int(m.group(5))
    regs = ["q" + r.strip()[1:].split(".")[0] for r in m.group(6).split(",")]
    return (regs, m.group(7), int(m.group(8))) if 16 * len(regs) == int(m.group(8)) else None
_LDP_Q = re.compile(r"^ldp\s+(q\d+),\s*(q\d+),\s*\[(x\d+)(?:,\s*#(\d+))?\]$")
_OFFSET_ACCESS = re.compile(r"^(ld|st)\w*\s+[^\[]*\[(x\d+)(?:,\s*#(\d+))?\]$")


def offset_loads(region: list[str]) -> list[str]:
    """`region` with its post-indexed Q-form loads (``ldr qA, [xB], #n``, ``ldp qA, qC, [xB], #n``,
    ``ld1 {vA.16b, ...}, [xB], #n``) turned into loads at an offset from the base (an LDP or LD1
    into one LDR a register; an LDP of Q registers at an offset too) and one ``add xB, xB,
    #total`` at the end, for each base that nothing else in the region writes, and that is read
    otherwise only as the plain base of other loads and stores (their offsets are moved by what
    the base has advanced so far). The same addresses are read, the same registers written. Why:
    on the in-order Cortex-A55 model a load that updates its base waits for every older result to
    be written back (the base is written at once, and write-back is in order), and an LDP of Q
    registers holds the load pipeline 6 cycles where two LDRs hold it 2 (llvm-mca-19; the
    Optimization Guide, sections 4.13 and 4.18, has 4 cycles for either)."""
    bases = {p[1] for p in map(_post_load, region) if p}
    for b in sorted(bases):
        users = [line for line in region if b in _regs(line)]
        if not all((_post_load(x) or (0, ""))[1] == b
                   or (_OFFSET_ACCESS.match(x) and _OFFSET_ACCESS.match(x).group(2) == b
                       and b not in _regs(x.split("[")[0])) for x in users):
            continue
        out, off = [], 0
        for line in region:
            post, plain = _post_load(line), _OFFSET_ACCESS.match(line)
            if post and post[1] == b:
                for k, r in enumerate(post[0]):
                    out.append(f"ldr {r}, [{b}, #{off + 16 * k}]")
                off += post[2]
            elif plain and plain.group(2) == b and off:
                head = line[:line.index("[")]
                out.append(f"{head}[{b}, #{int(plain.group(3) or 0) + off}]")
            else:
                out.append(line)
        if off >= 4096:
            continue
        region = out + [f"add {b}, {b}, #{off}"]
    out = []
    for line in region:                          # an LDP of Q registers at an offset: two LDRs
        m = _LDP_Q.match(line.strip())
        out += ([f"ldr {m.group(1)}, [{m.group(3)}, #{int(m.group(4) or 0)}]",
                 f"ldr {m.group(2)}, [{m.group(3)}, #{int(m.group(4) or 0) + 16}]"] if m else [line])
    return out


#: the windows the generator tries (gen/kernels/armv8/choose.py): a node may be issued only while
#: fewer than `window` nodes before it in program order are still waiting (0: unbounded). A
#: small window keeps the generated order in the large, which the out-of-order cores' windows
#: want, and still fills the in-order core's stalls
WINDOWS = (8, 16, 32, 64, 0)


def schedule(body: list[str], core: str, window: int = 0) -> list[str]:
    """`body` (a function's instructions and labels) with each straight-line region given offset
    loads (``offset_loads``) and scheduled (``window``: see WINDOWS); every scheduled region is
    checked against the region it was made from (``check``)."""
    out, region = [], []
    for line in body + [None]:
        if line is None or line.endswith(":") or _BOUNDARY.match(line.strip()):
            region = offset_loads(region)
            done = schedule_region(region, core, window=window)
            check(region, done)
            out += done + ([line] if line is not None else [])
            region = []
        else:
            region.append(line)
    return out
