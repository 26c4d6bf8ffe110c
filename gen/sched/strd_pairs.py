"""Pair spill stores into STRD: two 2-cycle stores become one 3-cycle store.

In the timing model (gen/cores/timing.py, Cortex-M4 TRM Table 3-1) a single STR costs 2 cycles
unless it pipelines behind an LDR, and STRD costs 3.  ``pair(body, core)`` merges a later spill
store into an earlier one where the modelled cycles drop, then gives stack words per live range
so the pairs' words are adjacent.  ``check(old, new)`` proves the result symbolically.  Steps:
docs/internals/scheduler.md.
"""
from __future__ import annotations

from dataclasses import replace

from gen.cores import timing as T
from gen.isa.base import Isa
from gen.isa.thumb2 import THUMB2


def _in_spill_slot(i, isa: Isa) -> bool:
    return i.base == isa.sp and i.slot is not None and i.slot >= 0


def _is_spill(i, isa: Isa) -> bool:
    return isa.access(i) == "store" and _in_spill_slot(i, isa)


def _is_reload(i, isa: Isa) -> bool:
    return isa.access(i) == "load" and _in_spill_slot(i, isa)


def _ranges(body: list, isa: Isa):
    """range id of every spill store and slot reload (position -> range id)."""
    current: dict = {}
    rng: dict = {}
    n = 0
    for k, i in enumerate(body):
        if _is_spill(i, isa):
            current[i.slot] = n
            rng[k] = n
            n += 1
        elif _is_reload(i, isa):
            rng[k] = current[i.slot]
    return rng, n


def pair(body: list, core: str, window: int = 48, isa: Isa = THUMB2) -> tuple:
    """(new body, number of STRD pairs).  ``body``: allocated instructions with symbolic
    spill slots (ids >= 0); frame slots (negative ids) are left as they are."""
    if isa.store_pair is None:
        return list(body), 0
    rng, n_ranges = _ranges(body, isa)
    # items: (insn, ranges it stores / reads); merged stores carry two ranges
    items = [(ins, (rng[k],) if k in rng else ()) for k, ins in enumerate(body)]
    tim = [ins.timing() for ins in body]            # what gen.cores.timing prices, per item
    pairs = 0
    k = 0
    while k < len(items):
        ins, rs = items[k]
        if not _is_spill(ins, isa) or len(rs) != 1:
            k += 1
            continue
        written: set = set()
        for j in range(k + 1, min(len(items), k + 1 + window)):
            other, ors = items[j]
            if _is_spill(other, isa) and len(ors) == 1 and other.srcs[0] not in written:
                strd = isa.store_pair(ins.srcs[0], other.srcs[0], ins.slot, note=f"{ins.note}; {other.note}")
                st = strd.timing()
                if _merge_delta(tim, k, j, st, core) < 0:     # the whole body's cycles drop
                    items = items[:k] + [(strd, rs + ors)] + items[k + 1:j] + items[j + 1:]
                    tim = tim[:k] + [st] + tim[k + 1:j] + tim[j + 1:]
                    pairs += 1
                    break
            written |= other.writes()
        k += 1
    return _assign_slots(items, n_ranges, isa), pairs


def _merge_delta(tim: list, k: int, j: int, strd, core: str) -> int:
    """Change of ``timing.sequence_cycles(tim)`` when item k becomes ``strd`` and item j > k
    goes: a sequence costs the sum of its instructions' isolated cycles plus one pair term per
    neighbour pair, so only the terms next to k and j change (exact, without re-pricing the
    whole body)."""
    def adj(a, b):
        return T.pair_adjust(a, b) if b is not None else 0

    def at(i):
        return tim[i] if 0 <= i < len(tim) else None
    a, b = tim[k], tim[j]
    d = T.insn_cycles(strd, core) - T.insn_cycles(a, core) - T.insn_cycles(b, core)
    d += adj(at(k - 1), strd) - adj(at(k - 1), a)
    after_j = at(j + 1)
    if j == k + 1:
        d += adj(strd, after_j) - adj(a, b) - adj(b, after_j)
    else:
        d += adj(strd, at(k + 1)) - adj(a, at(k + 1))
        d += adj(at(j - 1), after_j) - adj(at(j - 1), b) - adj(b, after_j)
    return d


def _assign_slots(items: list, n_ranges: int, isa: Isa) -> list:
    last = {}
    for k, (_, rs) in enumerate(items):
        for r in rs:
            last[r] = k
    slot_of: dict = {}
    busy_until: list = []          # slot -> position of its range's last use
    out = []
    for k, (ins, rs) in enumerate(items):
        if isa.access(ins) in ("store", "store_pair") and rs:
            free = [s for s, until in enumerate(busy_until) if until < k]
            if len(rs) == 1:
                s = free[0] if free else len(busy_until)
            else:
                fs = set(free)
                s = next((a for a in free if a + 1 in fs or a + 1 == len(busy_until)), len(busy_until))
            for q, r in enumerate(rs):
                while len(busy_until) <= s + q:
                    busy_until.append(-1)
                busy_until[s + q] = last[r]
                slot_of[r] = s + q
            out.append(replace(ins, slot=s))
        elif rs:
            out.append(replace(ins, slot=slot_of[rs[0]]))
        else:
            out.append(ins)
    return out


def n_slots(body: list, isa: Isa = THUMB2) -> int:
    """Spill slots a body uses (an STRD uses two)."""
    top = -1
    for i in body:
        if _in_spill_slot(i, isa):
            top = max(top, i.slot + (1 if isa.access(i) == "store_pair" else 0))
    return top + 1


def check(old: list, new: list, isa: Isa = THUMB2) -> None:
    """Raise AssertionError unless ``new`` computes what ``old`` does: simulate both with
    symbolic values (a register holds the instruction that produced it; a spill slot holds
    what was stored) and compare what every non-spill instruction reads."""
    def trace(body):
        reg: dict = {}
        slot: dict = {}
        seen: dict = {}
        for i in body:
            if isa.access(i) == "store_pair" or _is_spill(i, isa):
                for q, r in enumerate(i.srcs):
                    slot[i.slot + q] = reg.get(r, r)
                continue
            if _is_reload(i, isa):
                assert i.slot in slot, f"reload of an empty slot: {i.text() if i.offset else i}"
                reg[i.dst] = slot[i.slot]
                continue
            seen[id(i)] = tuple(reg.get(r, r) for r in sorted(i.reads()))
            for w in i.writes():
                reg[w] = id(i)
        return seen
    a, b = trace(old), trace(new)
    assert a.keys() == b.keys(), "instructions differ"
    for key in a:
        assert a[key] == b[key], f"operands differ at {next(i for i in old if id(i) == key)}"
