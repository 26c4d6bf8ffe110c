"""Register allocation of a scheduled straight-line IR program onto an ISA's registers.

One linear scan in schedule order with Belady's furthest-next-use eviction; a memory's base is
``pinned`` (never evicted) or ``home`` (has a stack copy: evicting it is free); a clean value
(reloadable from constant memory or its slot) is evicted more readily (``clean_bonus``).  The
result is the ISA's instructions with symbolic stack slots, plus counts; deterministic, ``seed``
only breaks ties.  The rules in full: docs/internals/scheduler.md.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from gen import ir
from gen.isa.base import Isa
from gen.isa.thumb2 import THUMB2
from gen.sched import remat as RM


@dataclass
class BaseSpec:
    kind: str                 # 'pinned' | 'home'
    reg: str                  # register at entry
    home: int | None = None   # for 'home': symbolic slot id of its stack copy (negative ids: frame)


@dataclass
class Allocation:
    insns: list               # the ISA's instructions, slots symbolic
    n_slots: int              # spill slots used (slot ids 0..n_slots-1)
    spills: int               # spill stores
    reloads: int              # reloads of spilled values from the stack
    remats: int               # reloads of clean memory values (round keys) from their memory
    base_reloads: int         # reloads of in/out base pointers
    recomputed: int = 0       # spilled values recomputed by one ALU instruction (``recompute``)
    used_regs: set = field(default_factory=set)
    #: positions in ``insns`` of the loads from read-only memories (``remat_mems``: the IR's
    #: own loads and the rematerializing reloads): for listsched.post_schedule(readonly=...)
    readonly: frozenset = frozenset()


class _Value:
    __slots__ = ("name", "uses", "ui", "reg", "slot", "remat", "home", "pending")

    def __init__(self, name, uses):
        self.name = name
        self.uses = uses        # sorted op positions that read it
        self.ui = 0             # index of the next use in uses
        self.reg = None
        self.slot = None        # spill slot (symbolic)
        self.remat = None       # (mem, index) when it is a load from a constant memory
        self.home = None        # stack slot of a base pointer
        self.pending = None     # (index in out, register): a spill store not yet written

    def next_use(self, pos):
        u = self.uses
        i = self.ui
        while i < len(u) and u[i] < pos:
            i += 1
        self.ui = i
        return u[i] if i < len(u) else None

    @property
    def clean(self):
        return self.slot is not None or self.remat is not None or self.home is not None


def allocate(program: ir.Program, order: list, bases: dict, regs=None, seed: int = 0,
             clean_bonus: float = 2.0, remat_mems=None, pick: str = "lru",
             isa: Isa = THUMB2, regs_in=None, regs_out=None, recompute: bool = False,
             remat_bonus: float = 1.0, fpu_words=None) -> Allocation:
    """``regs``: the registers to use (default: all of ``isa.allocatable``).  ``pick``: which
    free register a new value gets: 'first' (lowest name) or 'lru' (the one untouched the
    longest: fewer false dependences for the post-allocation scheduler, so reloads and spill
    stores can move next to other loads).  A word of a memory in ``remat_mems`` (default: the
    program's ``constant`` memories) is loaded again from its memory instead of spilled; if
    that memory's base pointer was evicted (a 'home' base), the pointer is reloaded first.

    ``regs_in`` / ``regs_out`` ({memory: registers}, optional): a memory held in registers
    across a boundary, for code that continues in another allocated piece (gen/kernels/aes/
    compact_thumb2.py).  Word i of a ``regs_in`` memory is in register i at entry (its loads
    emit nothing); word i of a ``regs_out`` memory must be in register i at the end (its stores
    emit nothing; the values stay live to the end, then a parallel move puts them in place).

    ``recompute`` (gen/sched/remat.py): a spilled value is brought back by one ALU instruction
    when its own op's operands, or two values whose XOR it is, are in registers (noted
    ``remat vN``); its spill store is deferred (a placeholder at the eviction) and written only
    when some reload of it cannot be recomputed, so a value recomputed at every use is never
    stored.  ``remat_bonus``: how much further the next use of a dirty value counts when choosing
    whom to evict if it looks recomputable then (its op or an identity from values in registers
    now that are still live at that use).

    ``fpu_words`` ({(memory, index): 'sN'}, optional): words of constant memories that the
    caller keeps in FPU registers (a Cortex-M4F kernel's round keys of some rounds, loaded by a
    VLDM before the body): their loads, and their reloads, are ``vmov rX, sN`` (1 cycle, no base
    pointer: the pointer need not be live for them)."""
    regs_in, regs_out = regs_in or {}, regs_out or {}
    fpu_words = fpu_words or {}
    regs = isa.allocatable if regs is None else regs
    remat_mems = program.constant if remat_mems is None else remat_mems
    rng = random.Random(seed)
    defs = RM.definitions(program) if recompute else None
    sigs = RM.linear_signatures(program) if recompute else None
    assert pick in ("first", "lru"), pick
    ops = [program.ops[i] for i in order]
    # uses of every vreg and of every base pointer ('@mem')
    uses: dict = {}
    for pos, op in enumerate(ops):
        if op.kind == "st" and op.mem in regs_out:     # live to the end (the final moves)
            uses.setdefault(op.a, []).append(len(ops))
            continue
        for r in op.reads():
            uses.setdefault(r, []).append(pos)
        if op.kind in ("ld", "st") and op.mem not in regs_in and (op.mem, op.index) not in fpu_words:
            uses.setdefault("@" + op.mem, []).append(pos)
    vals: dict = {}

    def val(name):
        v = vals.get(name)
        if v is None:
            v = vals[name] = _Value(name, uses.get(name, []))
        return v

    pinned = {spec.reg for spec in bases.values() if spec.kind == "pinned"}
    pool = [r for r in regs if r not in pinned]
    reg_of: dict = {r: None for r in pool}       # register -> value
    for mem, spec in bases.items():
        v = val("@" + mem)
        v.reg = spec.reg
        if spec.kind == "home":
            v.home = spec.home
            if spec.reg in reg_of:
                reg_of[spec.reg] = v
            else:                   # arrives in a register outside ``regs``: use its home
                v.reg = None
    out: list = []
    free_slots: list = []
    n_slots = 0
    counts = {"spills": 0, "reloads": 0, "remats": 0, "base_reloads": 0, "recomputed": 0}
    used = set(pinned)
    touched: dict = {}      # register -> index in ``out`` of the last instruction naming it
    readonly: set = set()

    def evict(pos, locked):
        nonlocal n_slots
        best, best_score = None, None
        cands = [r for r in pool if r not in locked]
        for r in cands:
            v = reg_of[r]
            if v is None:
                return r
        for r in cands:
            v = reg_of[r]
            nu = v.next_use(pos)
            d = float("inf") if nu is None else (nu - pos) * (clean_bonus if v.clean else 1.0)
            if remat_bonus != 1.0 and recompute and nu is not None and not v.clean \
                    and _recomputable_at(v, pos, nu):
                d *= remat_bonus
            score = (d, rng.random())
            if best_score is None or score > best_score:
                best, best_score = r, score
        v = reg_of[best]
        if v.next_use(pos) is not None and not v.clean:
            if free_slots:
                v.slot = free_slots.pop()
            else:
                v.slot = n_slots
                n_slots += 1
            if recompute:                  # written later if a reload cannot recompute it
                v.pending = (len(out), best)
                out.append(None)
            else:
                out.append(isa.store_slot(best, v.slot, note=f"spill {_vname(v.name)}"))
                counts["spills"] += 1
        v.reg = None
        reg_of[best] = None
        return best

    def get_reg(pos, locked):
        free = [r for r in pool if reg_of[r] is None and r not in locked]
        if free:
            if len(free) == 1:
                r = free[0]
            elif seed == 0:
                r = free[0] if pick == "first" else min(free, key=lambda x: (touched.get(x, -1), pool.index(x)))
            else:
                r = free[rng.randrange(len(free))]
        else:
            r = evict(pos, locked)
        used.add(r)
        return r

    def load_value(v, pos, locked):
        r = get_reg(pos, locked)
        if v.home is not None:
            out.append(isa.load_slot(r, v.home, note=f"reload {_vname(v.name)}"))
            counts["base_reloads"] += 1
        elif v.remat is not None and v.remat[0] is None:      # a word kept in an FPU register
            out.append(_fpu_word(r, v.remat[1], note=f"reload {_vname(v.name)}"))
            counts["remats"] += 1
        elif v.remat is not None:
            mem, index = v.remat
            bv = vals["@" + mem]
            if bv.reg is None:             # the base pointer was evicted: reload it first
                load_value(bv, pos, locked | {r})
            locked.add(bv.reg)
            readonly.add(len(out))
            out.append(isa.load(r, bv.reg, isa.word_bytes * index, note=f"reload {_vname(v.name)}"))
            counts["remats"] += 1
        else:
            assert v.slot is not None, f"value {v.name} lost"
            if recompute and _recompute(v, r, pos, locked):
                return v.reg
            commit(v)
            out.append(isa.load_slot(r, v.slot, note=f"reload {_vname(v.name)}"))
            counts["reloads"] += 1
        v.reg = r
        reg_of[r] = v
        return r

    def commit(v):
        """Write v's deferred spill store (at its eviction), if it has one."""
        if v.pending is not None:
            k, src = v.pending
            out[k] = isa.store_slot(src, v.slot, note=f"spill {_vname(v.name)}")
            v.pending = None
            counts["spills"] += 1

    def _recomputable_at(v, pos, nu):
        """Could v be recomputed at its next use ``nu`` from values in registers now that are
        still live then (a guess: they may be evicted in between)?"""
        alive = [w.name for w in reg_of.values() if w is not None and w is not v and isinstance(w.name, int)
                 and (w.next_use(pos) or -1) >= nu]
        return RM.recompute_op(v.name, defs, sigs, alive) is not None

    def _recompute(v, r, pos, locked):
        """v into register r by one ALU instruction from values in registers, if one exists."""
        held = [w.name for w in reg_of.values() if w is not None and isinstance(w.name, int)]
        op = RM.recompute_op(v.name, defs, sigs, held)
        if op is None:
            return False
        src = {w: vals[w].reg for w in op.reads()}
        if r in src.values():               # r was chosen before: it must not hold an operand
            return False
        out.append(replace(isa.lower(op, lambda x: r if x == v.name else src[x], None),
                           note=f"remat {_vname(v.name)}"))
        counts["recomputed"] += 1
        v.reg = r
        reg_of[r] = v
        return True

    def kill(v):
        if v.reg is not None and v.reg in reg_of:
            reg_of[v.reg] = None
        v.reg = None
        if v.slot is not None:
            free_slots.append(v.slot)
            v.slot = None

    for op in ops:                                     # live-in words: in their registers
        if op.kind == "ld" and op.mem in regs_in:
            v = val(op.dst)
            v.reg = regs_in[op.mem][op.index]
            assert v.reg in reg_of and reg_of[v.reg] is None, f"{v.reg} is not free for {op.mem}[{op.index}]"
            reg_of[v.reg] = v
            used.add(v.reg)
    finals: dict = {}                                   # target register -> value
    for pos, op in enumerate(ops):
        if op.kind == "ld" and op.mem in regs_in:
            if not uses.get(op.dst):
                kill(val(op.dst))
            continue
        if op.kind == "st" and op.mem in regs_out:
            finals[regs_out[op.mem][op.index]] = val(op.a)
            continue
        operands = [val(r) for r in op.reads()]
        in_fpu = fpu_words.get((op.mem, op.index)) if op.kind == "ld" else None
        if op.kind in ("ld", "st") and in_fpu is None:
            operands.append(val("@" + op.mem))
        locked = set()
        for v in operands:
            if v.reg is None:
                load_value(v, pos, locked)
            locked.add(v.reg)
        assign = {v.name: v.reg for v in operands}
        dying = [v for v in operands if v.next_use(pos + 1) is None]
        for v in dying:
            if v.reg in pinned:
                continue
            kill(v)
            locked.discard(assign[v.name])
        if op.dst is not None:
            d = val(op.dst)
            r = get_reg(pos, locked)
            d.reg = r
            reg_of[r] = d
            assign[op.dst] = r
            if in_fpu is not None:
                d.remat = (None, in_fpu)
            elif op.kind == "ld" and op.mem in remat_mems:
                d.remat = (op.mem, op.index)
        if in_fpu is not None:
            insn = _fpu_word(assign[op.dst], in_fpu)
        else:
            insn = isa.lower(op, lambda x: assign[x], lambda m: assign["@" + m])
        if op.kind == "ld" and op.mem in remat_mems and in_fpu is None:
            readonly.add(len(out))
        out.append(insn)
        for r in insn.reads() | insn.writes():
            touched[r] = len(out)
        if op.dst is not None and not uses.get(op.dst):
            kill(val(op.dst))
    if finals:
        for v in finals.values():                       # reloaded from their slots at the end
            if v.reg is None:
                commit(v)
        _final_moves(finals, reg_of, pool, out, isa)
        used.update(finals)
    if recompute:                                       # drop the spill stores never needed
        keep = [k for k, i in enumerate(out) if i is not None]
        new_index = {k: n for n, k in enumerate(keep)}
        out = [out[k] for k in keep]
        readonly = {new_index[k] for k in readonly}
    return Allocation(out, n_slots, counts["spills"], counts["reloads"], counts["remats"],
                      counts["base_reloads"], counts["recomputed"], used, frozenset(readonly))


def _fpu_word(reg: str, sreg: str, note: str = ""):
    """``vmov reg, sreg``: a constant word the caller keeps in an FPU register (``fpu_words``)."""
    from gen.isa.thumb2 import Insn
    return Insn("vmov", dst=reg, srcs=(sreg,), note=note)


def _final_moves(finals: dict, reg_of: dict, pool, out: list, isa) -> None:
    """Put each value of ``finals`` (target register -> value) in its target: register moves
    ordered so no pending source is overwritten (a cycle goes through a free register), then
    the spilled ones reloaded from their slots."""
    moves = {t: v.reg for t, v in finals.items() if v.reg is not None and v.reg != t}
    while moves:
        sources = set(moves.values())
        t = next((t for t in sorted(moves) if t not in sources), None)
        if t is None:                                   # a cycle: one source to a free register
            tmp = next(r for r in pool if r not in finals and r not in sources)
            t0 = sorted(moves)[0]
            out.append(_move(isa, tmp, moves[t0], finals[t0]))
            moves[t0] = tmp
            continue
        out.append(_move(isa, t, moves.pop(t), finals[t]))
    for t, v in sorted(finals.items()):
        if v.reg is None:
            assert v.slot is not None, f"value {v.name} lost"
            out.append(isa.load_slot(t, v.slot, note=f"reload {_vname(v.name)}"))


def _move(isa, dst: str, src: str, v):
    """dst = src, lowered by the ISA from an IR ``mov``, noted as a move of v."""
    insn = isa.lower(ir.Op("mov", dst=-1, b=-2), {-1: dst, -2: src}.__getitem__, None)
    return replace(insn, note=f"move {_vname(v.name)}")


def _vname(name) -> str:
    return f"v{name}" if isinstance(name, int) else f"{name[1:]} pointer" if str(name).startswith("@") else str(name)


def check_allocation(program: ir.Program, order: list, alloc: Allocation, bases: dict,
                     isa: Isa = THUMB2, regs_in=None, regs_out=None, fpu_words=None) -> None:
    """Raise AssertionError unless every register read holds the value the IR op expects.

    Symbolic check, independent of any input: each register and stack slot carries the IR
    value (or base pointer) last written to it; every lowered op must read its operands' values.
    ``regs_in``/``regs_out`` as in ``allocate``: the words start in, and must end in, their
    registers.  A recomputed value (note ``remat vN``) must be one instruction, the lowering of
    an IR op reading the values its source registers hold, that ``gen.sched.remat.proves``
    computes vN (its own op, or an XOR identity by linear signatures derived here from the IR).
    ``fpu_words`` as in ``allocate``: such a word's load and reloads are VMOVs from its register."""
    regs_in, regs_out = regs_in or {}, regs_out or {}
    fpu_words = fpu_words or {}
    sreg_holds: dict = {}                   # FPU register -> the value its word was loaded as
    defs, sigs = RM.definitions(program), RM.linear_signatures(program)
    reg_holds: dict = {spec.reg: f"{mem} pointer" for mem, spec in bases.items()}
    slot_holds: dict = {}
    ops, finals = [], {}
    for i in order:
        op = program.ops[i]
        if op.kind == "ld" and op.mem in regs_in:
            reg_holds[regs_in[op.mem][op.index]] = _vname(op.dst)
        elif op.kind == "st" and op.mem in regs_out:
            finals[regs_out[op.mem][op.index]] = _vname(op.a)
        else:
            ops.append(op)
    k = 0
    for insn in alloc.insns:
        if insn.note.startswith("move "):
            assert reg_holds.get(insn.srcs[0]) == insn.note[5:], (insn.text(), reg_holds.get(insn.srcs[0]))
            reg_holds[insn.dst] = insn.note[5:]
            continue
        if insn.note.startswith("remat "):
            _check_recomputed(insn, reg_holds, defs, sigs, isa)
            reg_holds[insn.dst] = insn.note[6:]
            continue
        if insn.note.startswith(("spill", "reload")):
            name = insn.note.split(" ", 1)[1]
            if isa.access(insn) == "store":
                assert reg_holds.get(insn.srcs[0]) == name, (insn.text(), reg_holds.get(insn.srcs[0]))
                slot_holds[insn.slot] = name
            elif insn.mnem == "vmov" and insn.srcs[0] in sreg_holds:     # a word kept in an FPU register
                assert sreg_holds[insn.srcs[0]] == name, (insn.text(), sreg_holds[insn.srcs[0]])
                reg_holds[insn.dst] = name
            else:
                if insn.base == isa.sp and insn.slot is not None and insn.slot >= 0:
                    assert slot_holds.get(insn.slot) == name, (insn.text(), slot_holds.get(insn.slot))
                elif insn.base != isa.sp:   # a constant word again: through its base pointer
                    assert str(reg_holds.get(insn.base)).endswith(" pointer"), \
                        (insn.base, insn.offset, reg_holds.get(insn.base))
                reg_holds[insn.dst] = name
            continue
        op = ops[k]
        k += 1
        if op.kind == "ld" and (op.mem, op.index) in fpu_words:
            assert insn.mnem == "vmov" and insn.srcs == (fpu_words[(op.mem, op.index)],), (str(op), insn.text())
            reg_holds[insn.dst] = sreg_holds[insn.srcs[0]] = _vname(op.dst)
            continue
        want = [_vname(r) for r in op.reads()]
        got = [reg_holds.get(r) for r in insn.srcs]
        assert got == want, (str(op), insn.text(), got, want)
        if op.kind in ("ld", "st"):
            assert reg_holds.get(insn.base) == f"{op.mem} pointer", (insn.text(), reg_holds.get(insn.base))
        if op.dst is not None:
            reg_holds[insn.dst] = _vname(op.dst)
    assert k == len(ops)
    for reg, name in finals.items():
        assert reg_holds.get(reg) == name, (reg, reg_holds.get(reg), name)


def _check_recomputed(insn, reg_holds: dict, defs: dict, sigs: dict, isa) -> None:
    """``insn`` (noted ``remat vN``) computes vN from the values its sources hold."""
    name = insn.note[6:]
    assert name.startswith("v"), insn.note
    v = int(name[1:])
    held = [reg_holds.get(r) for r in insn.srcs]
    assert all(h is not None and h.startswith("v") and h[1:].isdigit() for h in held), (insn.text(), held)
    srcs = [int(h[1:]) for h in held]
    own = defs[v]
    if own.kind in RM.RECOMPUTABLE and list(own.reads()) == srcs:
        op = own
    else:
        assert len(srcs) == 2, (insn.text(), held)
        op = ir.Op("eor", dst=v, a=srcs[0], b=srcs[1])
    assert RM.proves(op, v, defs, sigs), (insn.text(), held, name)
    regs = dict(zip(op.reads(), insn.srcs))
    regs[v] = insn.dst
    want = isa.lower(op, regs.__getitem__, None)
    assert replace(want, note=insn.note) == insn, (insn.text(), want.text())
