"""List scheduling for straight-line code, with the timing rules of gen/cores/timing.py as cost.

On Cortex-M3/M4 an in-order schedule pays only for memory pairs, the address-generation stall
and, above all, spill code, so scheduling is done twice: ``schedule(program)`` before allocation
(greedy, least register pressure), ``post_schedule(insns)`` after it (loads and stores behind
loads).  ``cycles(insns, core)`` prices a list with ``timing.sequence_cycles``.  The rules and the
tie-breaks: docs/internals/scheduler.md.
"""
from __future__ import annotations

import heapq
import random

from gen import ir
from gen.cores import timing as T
from gen.isa.base import Isa
from gen.isa.thumb2 import THUMB2


def dependences(program: ir.Program) -> list:
    """preds[i] = ops that must come before op i: producers of its operands, and for a
    store every load of an input memory (in and out may be the same buffer) that is not
    ``constant`` (nothing writes those)."""
    where: dict = {}
    preds: list = []
    loads_of_inputs: list = []
    for i, op in enumerate(program.ops):
        p = {where[r] for r in op.reads()}
        if op.kind == "st":
            p.update(loads_of_inputs)
        elif op.kind == "ld" and program.mems[op.mem][1] == "r" and op.mem not in program.constant:
            loads_of_inputs.append(i)
        preds.append(p)
        if op.dst is not None:
            where[op.dst] = i
    return preds


def schedule(program: ir.Program, seed: int = 0, strategy: str = "pressure",
             segments: list | None = None, rank: list | None = None) -> list:
    """An order of program.ops (a list of op indices) respecting the dependences.

    strategy 'source' keeps the generator's order; 'pressure' is the greedy described above.
    ``segments[i]`` (optional): ops of a lower segment go first whenever one is ready (the
    program is scheduled piece by piece); ``rank[i]`` (optional, None = free): a fixed order
    for some ops, which then take precedence over the greedy key within their segment."""
    n = len(program.ops)
    if strategy == "source":
        return list(range(n))
    if strategy != "pressure":
        raise ValueError(f"unknown strategy {strategy!r}; allowed: source, pressure")
    rng = random.Random(seed)
    jitter = [rng.random() if seed else 0.0 for _ in range(n)]
    ops = program.ops
    preds = dependences(program)
    succs: list = [[] for _ in range(n)]
    for i, p in enumerate(preds):
        for j in p:
            succs[j].append(i)
    npred = [len(p) for p in preds]
    remaining: dict = {}
    for op in ops:
        for r in set(op.reads()):
            remaining[r] = remaining.get(r, 0) + 1
    born: dict = {}
    # a load is "deferred": it becomes a candidate only when one of its consumers has all
    # its other operands available
    is_load = [op.kind == "ld" for op in ops]
    ready: set = {i for i in range(n) if npred[i] == 0 and not is_load[i]}
    loads_waiting: set = {i for i in range(n) if npred[i] == 0 and is_load[i]}
    order: list = []
    done = [False] * n

    def release_loads():
        # a waiting load becomes ready when some consumer waits only for it (or nothing)
        for li in list(loads_waiting):
            for c in succs[li]:
                if all(done[p] or p == li for p in preds[c]):
                    loads_waiting.discard(li)
                    ready.add(li)
                    break

    seg = segments or [0] * n
    rk_ = [(0, r) if r is not None else (1, 0) for r in (rank or [None] * n)]

    def key(i):
        op = ops[i]
        reads = set(op.reads())
        kills = sum(1 for r in reads if remaining[r] == 1)
        delta = (1 if op.dst is not None else 0) - kills
        recent = max((born.get(r, -1) for r in reads), default=-1)
        return (seg[i], rk_[i], delta, -recent, jitter[i], i)

    step = 0
    while len(order) < n:
        if not ready:
            release_loads()
            if not ready:           # only loads left whose consumers need other loads
                ready.add(min(loads_waiting))
                loads_waiting.discard(min(loads_waiting))
        best = min(ready, key=key)
        ready.discard(best)
        order.append(best)
        done[best] = True
        op = ops[best]
        for r in set(op.reads()):
            remaining[r] -= 1
        if op.dst is not None:
            born[op.dst] = step
        step += 1
        for s in succs[best]:
            npred[s] -= 1
            if npred[s] == 0:
                (loads_waiting if is_load[s] else ready).add(s)
        release_loads()
    assert len(set(order)) == n
    return order


# ---------------------------------------------------------------------------------------
# After register allocation.
# ---------------------------------------------------------------------------------------
def _mem_key(insn, sp: str):
    """Memory location a load/store touches, for ordering: stack slots by slot id / offset,
    read-only memories never conflict, everything else is one location ('io')."""
    if insn.base == sp:
        return ("stack", insn.slot if insn.slot is not None else ("off", insn.offset))
    return ("mem", insn.base)


def post_dependences(insns: list, readonly_bases: frozenset = frozenset(),
                     readonly: frozenset | None = None, isa: Isa = THUMB2) -> list:
    """preds[i] = instructions that must stay before instruction i: register RAW/WAR/WAW,
    stack slots by slot id, and the order of accesses to other memory (in and out may be the
    same buffer).  A load whose base register is in ``readonly_bases`` or whose position is in
    ``readonly`` reads memory nothing here writes (a constant memory): no memory dependence."""
    readonly = readonly or frozenset()
    n = len(insns)
    preds: list = [set() for _ in range(n)]
    last_write: dict = {}
    reads_since: dict = {}
    mem_last_write: dict = {}
    mem_reads_since: dict = {}
    io_last = None
    for i, ins in enumerate(insns):
        p = preds[i]
        for r in ins.reads():
            if r in last_write:
                p.add(last_write[r])
        for r in ins.writes():
            if r in last_write:
                p.add(last_write[r])
            p.update(reads_since.get(r, ()))
        acc = isa.access(ins)
        if acc in ("load", "store"):
            k = _mem_key(ins, isa.sp)
            if k[0] == "stack":
                if acc == "load":
                    if k in mem_last_write:
                        p.add(mem_last_write[k])
                    mem_reads_since.setdefault(k, []).append(i)
                else:
                    if k in mem_last_write:
                        p.add(mem_last_write[k])
                    p.update(mem_reads_since.get(k, ()))
                    mem_last_write[k] = i
                    mem_reads_since[k] = []
            elif not (acc == "load" and (ins.base in readonly_bases or i in readonly)):
                if io_last is not None:
                    p.add(io_last)
                io_last = i
        for r in ins.reads():
            reads_since.setdefault(r, []).append(i)
        for r in ins.writes():
            last_write[r] = i
            reads_since[r] = []
        p.discard(i)
    return preds


def post_schedule(insns: list, core: str = "cortex-m4", seed: int = 0,
                  readonly_bases: frozenset = frozenset(), readonly: frozenset | None = None,
                  method: str = "greedy", isa: Isa = THUMB2) -> list:
    """Reorder allocated instructions (no push/pop/branches inside) to pipeline memory
    accesses, within register and memory dependences (``post_dependences``).

    method 'greedy' (default): a list scheduler that, behind a load, takes any ready
    load/store (loads first); 'gaps': the other instructions keep their order and every
    single LDR/STR is placed into one of the gaps between them (see ``_gap_schedule``)."""
    preds = post_dependences(insns, readonly_bases, readonly, isa)
    tim = [ins.timing() for ins in insns]
    if method == "gaps":
        order = _gap_schedule(preds, tim, seed)
        assert len(order) == len(insns)
        return [insns[i] for i in order]
    if method != "greedy":
        raise ValueError(f"unknown method {method!r}; allowed: greedy, gaps")
    n = len(insns)
    succs: list = [[] for _ in range(n)]
    npred = [0] * n
    for i, p in enumerate(preds):
        npred[i] = len(p)
        for j in p:
            succs[j].append(i)
    rng = random.Random(seed)
    jitter = [rng.random() * 0.5 if seed else 0.0 for _ in range(n)]
    ready: list = [(i + jitter[i], i) for i in range(n) if npred[i] == 0]
    heapq.heapify(ready)
    out: list = []
    prev = None
    while ready:
        pick = None
        if prev is not None and prev.cls in T.PIPE_SOURCE:
            # any ready single load/store that pipelines behind the previous load;
            # loads first: a store ends the chain (nothing pipelines behind a store)
            cands = [(tim[i].cls != "ldr", k, i) for k, i in ready if tim[i].cls in T.PIPE_SINK
                     and prev.writes.isdisjoint(tim[i].addr_regs)]
            if cands:
                pick = min(cands)[1:]
        if pick is None:
            pick = ready[0]
            if prev is not None and tim[pick[1]].cls in T.ADDRESS_USERS and \
                    T.pair_adjust(prev, tim[pick[1]]) > 0:
                alts = [(k, i) for k, i in ready if T.pair_adjust(prev, tim[i]) <= 0]
                if alts:
                    pick = min(alts)
        ready.remove(pick)
        heapq.heapify(ready)
        i = pick[1]
        out.append(insns[i])
        prev = tim[i]
        for s in succs[i]:
            npred[s] -= 1
            if npred[s] == 0:
                heapq.heappush(ready, (s + jitter[s], s))
    assert len(out) == n
    return out


def _gap_schedule(preds: list, tim: list, seed: int = 0) -> list:
    """Placement of single loads/stores into the gaps of the fixed sequence of the other
    instructions.  With 1-cycle ALU instructions the cost of a list is (ALU count) + (memory
    count) + (number of chains), a chain being a maximal run LDR..LDR [STR] (only a single
    load lets the next single load/store pipeline).  So every STR costs one chain, and a
    gap that holds loads but no store costs one more.  Sweeping the gaps in order:

    * a load or store whose first consumer (or overwriter) is the next instruction is forced
      into this gap, with the loads/stores it depends on;
    * when the gap gets a load anyway, or a load and a store are both available, every
      available load joins it (a load costs 1 in any chain, and leaving it for later can only
      make a later gap a chain of its own) and, if none is forced, one available store closes
      the chain (the one with the nearest deadline);
    * inside a gap, loads come before stores where the dependences allow it.
    """
    n = len(preds)
    rng = random.Random(seed)
    jitter = [rng.random() if seed else 0.0 for _ in range(n)]
    is_mem = [t.cls in T.PIPE_SINK for t in tim]
    is_ld = [t.cls == "ldr" for t in tim]
    backbone = [i for i in range(n) if not is_mem[i]]
    rank = {i: k for k, i in enumerate(backbone)}
    m = len(backbone)
    succs: list = [[] for _ in range(n)]
    for i, p in enumerate(preds):
        for j in p:
            succs[j].append(i)
    lo, hi, mpreds = {}, {}, {}
    for x in range(n):
        if not is_mem[x]:
            continue
        lo[x] = max((rank[p] + 1 for p in preds[x] if not is_mem[p]), default=0)
        hi[x] = min((rank[s] for s in succs[x] if not is_mem[s]), default=m)
        mpreds[x] = [p for p in preds[x] if is_mem[p]]
    by_deadline: dict = {}
    for x in lo:
        by_deadline.setdefault(hi[x], []).append(x)
    pending = set(lo)
    placed: set = set()
    out: list = []
    prev = None
    for g in range(m + 1):
        run: set = set()
        stack = [x for x in by_deadline.get(g, ()) if x in pending]
        while stack:                          # forced, with everything it needs
            x = stack.pop()
            if x in run:
                continue
            run.add(x)
            stack.extend(p for p in mpreds[x] if p in pending and p not in run)
        avail = [x for x in pending if x not in run and lo[x] <= g
                 and all(p in placed for p in mpreds[x])]
        aloads = [x for x in avail if is_ld[x]]
        astores = [x for x in avail if not is_ld[x]]
        has_ld = any(is_ld[x] for x in run)
        has_st = any(not is_ld[x] for x in run)
        if has_ld or (aloads and (astores or has_st)):
            run.update(aloads)
            if not has_st and astores:
                run.add(min(astores, key=lambda x: (hi[x], jitter[x], x)))
        # order the run: ready loads first (not addressed by the previous load's result),
        # then a store, and again
        left = set(run)
        while left:
            ready = [x for x in left if all(p in placed or p not in left for p in mpreds[x])]
            ready = [x for x in ready if not any(p in left for p in mpreds[x])]

            def key(x):
                pipe = prev is not None and T.pair_adjust(prev, tim[x]) < 0
                return (not is_ld[x], not pipe, hi[x], jitter[x], x)
            x = min(ready, key=key)
            left.discard(x)
            pending.discard(x)
            placed.add(x)
            out.append(x)
            prev = tim[x]
        if g < m:
            out.append(backbone[g])
            placed.add(backbone[g])
            prev = tim[backbone[g]]
    assert not pending, pending
    return out


def cycles(insns, core: str) -> int:
    """Modelled cycles of a straight-line instruction list (gen.cores.timing)."""
    return T.sequence_cycles([i.timing() for i in insns], core)


def polish(insns: list, readonly: frozenset | None = None, readonly_bases: frozenset = frozenset(),
           reach: int = 24, passes: int = 4, isa: Isa = THUMB2) -> list:
    """Local improvement of a scheduled list: every single load/store and every instruction
    right before or after one is tried at each place within ``reach`` positions inside its
    dependence window (``post_dependences``), and moved where the modelled cycles drop most.
    Only the pair terms of gen/cores/timing (pipelining, address stall) depend on the order,
    so a move is priced exactly by the at most six pairs it changes.  Repeated until a pass
    moves nothing (at most ``passes``).  Deterministic."""
    n = len(insns)
    preds = post_dependences(insns, readonly_bases, readonly, isa)
    succs: list = [[] for _ in range(n)]
    for i, p in enumerate(preds):
        for j in p:
            succs[j].append(i)
    tim = [ins.timing() for ins in insns]
    seq = list(range(n))
    pos = list(range(n))
    pa = T.pair_adjust

    def adj(a, b):
        if a is None or b is None:
            return 0
        return pa(tim[a], tim[b])

    def at(k):
        return seq[k] if 0 <= k < n else None

    for _ in range(passes):
        moved = False
        for x in range(n):
            if tim[x].cls not in T.PIPE_SINK and tim[x].cls not in T.ADDRESS_USERS:
                k = pos[x]
                if not any(at(q) is not None and tim[at(q)].cls in T.PIPE_SINK for q in (k - 1, k + 1)):
                    continue
            k = pos[x]
            lo = max([pos[p] + 1 for p in preds[x]] + [0, k - reach])
            hi = min([pos[s] + 1 for s in succs[x]] + [n + 1, k + reach + 1])
            # removing x from k
            rem = adj(at(k - 1), x) + adj(x, at(k + 1)) - adj(at(k - 1), at(k + 1))
            best, best_j = 0, None
            for j in range(lo, hi):       # x goes before the element now at j (j != k, k+1)
                if j == k or j == k + 1:
                    continue
                a, b = at(j - 1), at(j)
                if j - 1 == k:
                    a = at(k - 1)
                add = adj(a, x) + adj(x, b) - adj(a, b)
                d = add - rem
                if d < best:
                    best, best_j = d, j
            if best_j is not None:
                j = best_j
                seq.pop(k)
                if j > k:
                    j -= 1
                seq.insert(j, x)
                for q in range(min(j, k), max(j, k) + 1):
                    pos[seq[q]] = q
                moved = True
        if not moved:
            break
    return [insns[i] for i in seq]
