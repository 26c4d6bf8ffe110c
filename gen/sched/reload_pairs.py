"""Pipeline leftover 2-cycle loads and stores: move them next to other loads, then rename registers.

The trick: a single LDR/STR right behind an LDR costs 1 instead of 2 (gen/cores/timing.py), but
many reloads cannot move there because of false (WAR/WAW) register dependences.  Here the body is
seen as values instead of registers, loads and stores move greedily where the pair terms improve
(keeping the live values within the registers), and the values are recoloured.  ``improve``
returns the new body; ``check(old, new)`` proves it equivalent by symbolic execution.  Values,
moves, pricing and the proof: docs/internals/scheduler.md.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

from gen.cores import timing as T
from gen.isa.base import Isa
from gen.isa.thumb2 import THUMB2
from gen.sched import listsched


def _slot_keys(ins, isa: Isa) -> tuple:
    """Stack words an sp-based load/store/store pair touches (symbolic slot ids, else byte offsets)."""
    two = isa.access(ins) == "store_pair"
    if ins.slot is not None:
        return (ins.slot, ins.slot + 1) if two else (ins.slot,)
    return (("off", ins.offset), ("off", ins.offset + isa.word_bytes)) if two else (("off", ins.offset),)


def _memory_independent(a, b, isa: Isa) -> bool:
    """True when the single load/store ``a`` and the instruction ``b`` may swap as far as
    memory goes."""
    acc = isa.access(b)
    if acc == "none":
        return True
    if acc == "barrier":
        return False                           # push/pop/branches/unknown
    if isa.access(a) == "load" and acc == "load":
        return True
    if (a.base == isa.sp) != (b.base == isa.sp):
        return True                            # the frame never aliases argument memory
    if a.base == isa.sp:
        return not set(_slot_keys(a, isa)) & set(_slot_keys(b, isa))
    return False                               # argument memory: in and out may be one buffer


def _tied(ins) -> list:
    """The destinations ``ins`` also reads (movt, umlal): its result continues their value."""
    return [r for r in (ins.dst, ins.dst2)
            if r is not None and r in ins.reads() and r not in ins.srcs and r != ins.base]


class _Values:
    """Value numbering of a body's registers (see the module docstring, step 1)."""

    def __init__(self, body: list, fixed: frozenset):
        self.parent: list = []
        self.reg0: list = []          # register a value had in the input
        self.livein: list = []        # True for the values read before any write
        self.reads: list = []         # per instruction: {field: value} for srcs (index), base
        self.defs: list = []          # per instruction: {field: value} for dst, dst2
        cur: dict = {}

        def new(reg, livein=False):
            self.parent.append(len(self.parent))
            self.reg0.append(reg)
            self.livein.append(livein)
            return len(self.parent) - 1

        def get(reg):
            if reg not in cur:
                cur[reg] = new(reg, True)
            return cur[reg]

        for ins in body:
            rd = {}
            for k, r in enumerate(ins.srcs):
                if r not in fixed:
                    rd[k] = get(r)
            if ins.base is not None and ins.base not in fixed:
                rd["base"] = get(ins.base)
            tied = _tied(ins)
            df = {}
            for f in ("dst", "dst2"):
                r = getattr(ins, f)
                if r is None or r in fixed:
                    continue
                if r in tied:                  # movt / umlal: the same value, continued
                    rd[f] = get(r)
                    df[f] = rd[f]
                else:
                    df[f] = new(r)
                cur[r] = df[f]
            self.reads.append(rd)
            self.defs.append(df)
        self.final = dict(cur)        # register -> its value at the end of the body


def _timing(ins, rd: dict, df: dict) -> T.Insn:
    """The timing record of ``ins`` with values in place of its renameable registers."""
    t = ins.timing()
    w = frozenset(df.values()) | {r for r in t.writes if r not in (ins.dst, ins.dst2)}
    a = frozenset({rd["base"]}) if "base" in rd else t.addr_regs
    return replace(t, writes=w, addr_regs=a)


def _pressure(seq: list, reads: list, defs: list, counted) -> list:
    """live[g] = values occupying a register across gap g (between seq[g] and seq[g + 1];
    gap -1 is the entry, stored at index 0 shifted: live[g + 1]).  A value written and never
    read occupies its register across the gap after its write."""
    n = len(seq)
    start: dict = {}
    end: dict = {}
    for k, i in enumerate(seq):
        for v in reads[i].values():
            start.setdefault(v, -1)
            end[v] = k - 1
        for v in defs[i].values():
            start.setdefault(v, k)
            end.setdefault(v, k)
            end[v] = max(end[v], k)
    diff = [0] * (n + 2)
    for v, s in start.items():
        if counted(v):
            diff[s + 1] += 1
            diff[max(s, end[v]) + 2] -= 1
    live, c = [], 0
    for g in range(n + 1):
        c += diff[g]
        live.append(c)
    return live


def improve(body: list, core: str, live_out: frozenset = frozenset(), reach: int = 64,
            passes: int = 8, block: int = 4, debug: bool = False, isa: Isa = THUMB2) -> tuple:
    """(new body, moves applied).  ``body``: allocated, scheduled straight-line instructions
    (symbolic or resolved stack slots, no push/pop/branch inside).  The modelled cycles drop
    by exactly the sum of the applied moves' prices (never rise).  ``live_out``: registers
    whose final value matters (none in the kernels here); their last values keep their
    registers, and if that cannot be kept the body is returned unchanged."""
    fixed = frozenset(r for i in body for r in i.reads() | i.writes() if r not in isa.allocatable)
    V = _Values(body, fixed)
    pool = [r for r in isa.allocatable if any(r in (i.dst, i.dst2) for i in body)]
    R = len(pool)
    counted = (lambda v: not V.livein[v] or V.reg0[v] in pool)
    tim = [_timing(i, V.reads[k], V.defs[k]) for k, i in enumerate(body)]
    rvals = [set(d.values()) for d in V.reads]
    dvals = [set(d.values()) for d in V.defs]
    seq = list(range(len(body)))
    n = len(seq)
    pa = T.pair_adjust
    read = set().union(*rvals)
    is_load = [isa.access(i) == "load" for i in body]
    movable = [tim[k].cls in T.PIPE_SINK and bool(i.base) and not (i.writes() - {i.dst}) - fixed
               and (not is_load[k] or (i.dst in isa.allocatable and dvals[k] <= read))
               for k, i in enumerate(body)]
    moves = 0
    cost = listsched.cycles(body, core)
    live: list = []

    def _best_move(seq, p, m, best):
        """Best strictly improving place for the block seq[p:p+m] (all single loads/stores)."""
        blk = seq[p:p + m]
        t0, tl = tim[blk[0]], tim[blk[-1]]
        loads = sum(1 for b in blk if is_load[b])
        grow = sum(1 for b in blk if not is_load[b] for v in rvals[b] if counted(v))
        rv = set().union(*(rvals[b] for b in blk))
        dv = set().union(*(dvals[b] for b in blk))
        prev = tim[seq[p - 1]]
        after = tim[seq[p + m]] if p + m < n else None
        # leaving: the block's two outer pairs go, its neighbours meet
        leave = -pa(prev, t0) + (pa(prev, after) - pa(tl, after) if after else 0)

        def crossable(j):
            return not (dvals[j] & rv or rvals[j] & dv) and \
                all(_memory_independent(body[b], body[j], isa) for b in blk)
        for q in range(p - 1, max(0, p - reach), -1):           # earlier: in front of seq[q]
            j = seq[q]
            if not crossable(j) or (loads and max(live[q], live[q + 1]) + loads > R):
                break
            a = tim[seq[q - 1]]
            d = leave + pa(a, t0) + pa(tl, tim[j]) - pa(a, tim[j])
            if d < 0 and (best is None or (d, p - q, m) < best[:3]):
                best = (d, p - q, m, q)
        for k in range(p + m, min(n, p + m + reach)):             # later: behind seq[k]
            j = seq[k]
            if not crossable(j) or (grow and live[k + 1] + grow > R):
                break
            d = leave + pa(tim[j], t0)
            if k + 1 < n:
                d += pa(tl, tim[seq[k + 1]]) - pa(tim[j], tim[seq[k + 1]])
            if d < 0 and (best is None or (d, k - p, m) < best[:3]):
                best = (d, k - p, m, k + 1)
        return best

    for _ in range(passes):
        live[:] = _pressure(seq, V.reads, V.defs, counted)
        changed = False
        p = 1
        while p < n:
            best = None                               # (delta, distance, block length, new index)
            for m in range(1, block + 1):
                if p + m > n or not movable[seq[p + m - 1]]:
                    break
                best = _best_move(seq, p, m, best)
            if best is None:
                p += 1
                continue
            d, _, m, q = best
            blk = seq[p:p + m]
            del seq[p:p + m]
            at = q - m if q > p else q
            seq[at:at] = blk
            moves += 1
            changed = True
            cost += d
            if debug:
                got = T.sequence_cycles([tim[x] for x in seq], core)
                assert got == cost, (got, cost, best)
            live[:] = _pressure(seq, V.reads, V.defs, counted)
            if q < p:
                p += m
        if not changed:
            break
    if not moves:
        return list(body), 0
    regs = _colour(seq, V, pool, live_out)
    if regs is None:
        return list(body), 0
    out = []
    for i in seq:
        ins, rd, df = body[i], V.reads[i], V.defs[i]
        srcs = tuple(regs[rd[k]] if k in rd else r for k, r in enumerate(ins.srcs))
        ch = {"srcs": srcs}
        if "base" in rd:
            ch["base"] = regs[rd["base"]]
        for f, v in df.items():
            ch[f] = regs[v]
        out.append(replace(ins, **ch))
    if debug:
        assert listsched.cycles(out, core) == cost
    return out, moves


def _colour(seq: list, V: _Values, pool: list, live_out) -> dict | None:
    """Registers for the values in order ``seq`` (see the module docstring, step 4)."""
    n = len(seq)
    start: dict = {}
    end: dict = {}
    for k, i in enumerate(seq):
        for v in V.reads[i].values():
            start.setdefault(v, -1)
            end[v] = k - 1
        for v in V.defs[i].values():
            start.setdefault(v, k)
            end[v] = max(end.get(v, k), k)
    pinned = {v: V.reg0[v] for v in start if V.livein[v]}
    for r in live_out:
        v = V.final.get(r)
        if v is not None:
            pinned[v] = r
            end[v] = n                     # alive to the very end
    order = sorted(start, key=lambda v: (start[v], v))
    regs: dict = {}
    busy: dict = {}                        # register -> end gap of its current value
    for v in order:
        s = start[v]
        e = max(s, end[v])
        if v in pinned:
            r = pinned[v]
        else:
            free = [r for r in pool if busy.get(r, -2) < s and not _pinned_later(pinned, start, r, s, e)]
            if not free:
                return None
            r = V.reg0[v] if V.reg0[v] in free else free[0]
        if busy.get(r, -2) >= s:
            return None
        regs[v] = r
        busy[r] = e
    return regs


def _pinned_later(pinned: dict, start: dict, r: str, s: int, e: int) -> bool:
    """True when a pinned value (live-out) of register ``r`` starts within gaps s..e."""
    return any(reg == r and s <= start[v] <= e for v, reg in pinned.items() if start[v] >= 0)


def pair(body: list, core: str, live_out: frozenset = frozenset(), isa: Isa = THUMB2) -> tuple:
    """``improve`` followed by ``check`` (raises on a mismatch); returns (new body, moves)."""
    new, moves = improve(body, core, live_out, isa=isa)
    check(body, new, live_out, isa)
    assert listsched.cycles(new, core) <= listsched.cycles(body, core)
    return new, moves


# --------------------------------------------------------------------------- the checker

class _Terms:
    """Hash-consed terms: every distinct (operator, operands) key gets one integer id."""

    def __init__(self):
        self.ids: dict = {}

    def __call__(self, *key) -> int:
        return self.ids.setdefault(key, len(self.ids))


def _operation(ins):
    """``ins`` without its registers (and note): what it computes from its operands."""
    return replace(ins, dst=None, dst2=None, srcs=(), base=None, note="")


def _trace(body: list, terms: _Terms, live_out, isa: Isa) -> tuple:
    reg: dict = {}
    slots: dict = {}
    io: list = []
    sig: Counter = Counter()
    sp0 = terms("in", isa.sp)

    def val(r):
        if r not in reg:
            reg[r] = terms("in", r)
        return reg[r]

    for ins in body:
        acc = isa.access(ins)
        if acc == "barrier" or ins.writes() & isa.frame_regs:
            raise AssertionError(f"not a straight-line body instruction: {ins}")
        if ins.base is not None:
            base = val(ins.base)
            if ins.base == isa.sp:
                assert base == sp0, f"sp replaced by another register in {ins}"
                keys = _slot_keys(ins, isa)
                if acc == "load":
                    v = slots.get(keys[0])
                    if v is None:
                        v = slots[keys[0]] = terms("slot", keys[0])
                    sig[("load sp", keys[0], v)] += 1
                    reg[ins.dst] = v
                else:
                    for key, r in zip(keys, ins.srcs):
                        slots[key] = val(r)
                    sig[(acc + " sp", keys, tuple(val(r) for r in ins.srcs))] += 1
                continue
            if acc == "load":
                v = terms("load", ins.offset, base, len(io))
                sig[v] += 1
                reg[ins.dst] = v
            elif acc == "store":
                io.append((ins.offset, base, val(ins.srcs[0])))
                sig[("store",) + io[-1]] += 1
            else:
                raise AssertionError(f"unexpected memory instruction {ins}")
            continue
        ops = [val(r) for r in ins.srcs] + [val(r) for r in _tied(ins)]
        v = terms(_operation(ins), tuple(ops))
        sig[v] += 1
        if ins.dst2 is not None:
            reg[ins.dst], reg[ins.dst2] = terms(v, 0), terms(v, 1)
        elif ins.dst is not None:
            reg[ins.dst] = v
    return sig, io, slots, {r: val(r) for r in sorted(live_out)}


def check(old: list, new: list, live_out: frozenset = frozenset(), isa: Isa = THUMB2) -> None:
    """Raise AssertionError unless ``new`` computes what ``old`` computes (see the module
    docstring): the same instruction terms, argument-memory stores, stack contents, live-outs."""
    assert len(old) == len(new), "instruction counts differ"
    terms = _Terms()
    sa, ia, ma, la = _trace(old, terms, live_out, isa)
    sb, ib, mb, lb = _trace(new, terms, live_out, isa)
    if sa != sb:
        diff = next(iter((sa - sb) + (sb - sa)))
        raise AssertionError(f"instruction terms differ (e.g. {diff!r})")
    assert ia == ib, "argument-memory stores differ"
    assert ma == mb, "final stack contents differ"
    assert la == lb, "live-out registers differ"
