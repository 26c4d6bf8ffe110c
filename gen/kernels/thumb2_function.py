"""Any straight-line IR ``Program`` (gen/ir.py) as a Thumb-2 function (AAPCS), as generated text.

``compile_function(program, name, params, core, ...) -> Function``:

* every memory of the program is one pointer argument (``Param(name, ctype, mem)``; a
  parameter with ``mem=None`` is accepted and ignored). Arguments 0..3 arrive in r0..r3,
  further ones on the caller's stack (AAPCS);
* a memory listed in ``pinned`` keeps its base register for the whole function (its loads
  are read-only values the allocator may load again instead of spilling: round keys); every
  other base is *homed*: a register argument is pushed by the prologue with the callee-saved
  registers, a stack argument already has its home in the caller's frame (it is loaded into a
  scratch register by the prologue), so evicting a base is free and a reload is one
  ``ldr rX, [sp, #home]``;
* order: ``gen.sched.listsched.schedule`` (register-pressure list scheduling; optional
  ``segments``/``rank`` as in gen/kernels/aes/thumb2.py), registers: ``gen.sched.regalloc.allocate``
  (13 registers, Belady spilling into a stack frame), checked symbolically with
  ``regalloc.check_allocation``, then ``listsched.post_schedule`` (load/store pipelining),
  then ``strd_pairs.pair`` (spill stores merged into STRD where the cycle model says it pays),
  then ``reload_pairs.pair`` (loads/stores moved next to loads, registers renamed around them);
* ``movc`` (any 32-bit constant) is allocated as a placeholder ``mov #imm`` and printed as
  MOV/MVN with a modified immediate or MOVW/MOVT (the register allocator lowers one op to one
  instruction, so it never sees the two-instruction form);
* prologue ``push {homed argument registers, r4-r11, lr}; sub sp, #frame``, epilogue
  ``add sp, #frame + homes; pop {r4-r11, pc}``; the stack stays 8-byte aligned;
* argument memory is touched only by single-word LDR/STR at constant offsets (ARMv7-M
  allows them unaligned, unlike LDRD/LDM; STRD only writes the word-aligned frame), so ``uint8_t *`` buffers need no alignment; loads of input
  memories all come before the first store (``listsched.dependences``), so an output may be
  the same buffer as an input;
* ``Function.cycles`` is the modelled cost of the whole call (push .. pop pc), with the one
  timing table of gen/cores/timing.py that the emulator's cycle model uses.

``Function.c_text()`` is a C prototype plus a file-scope ``__asm__`` block defining the
global symbol (``.syntax unified``, ``.thumb``, ``.thumb_func``, ``.type``, ``.size``).
Nothing here branches or computes an address: the code is constant-time by construction.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from gen import ir
from gen.isa import thumb2 as t2
from gen.sched import listsched, regalloc, reload_pairs, strd_pairs

CORES = ("cortex-m4", "cortex-m3")
CALLEE_SAVED = ("r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11")
ARG_REGS = ("r0", "r1", "r2", "r3")
#: scratch registers (not arguments, caller-saved or saved by the prologue) that receive
#: stack arguments in the prologue
STACK_ARG_REGS = ("r12", "r11", "r10", "r9", "r8")


@dataclass(frozen=True)
class Param:
    name: str                 # C parameter name
    ctype: str                # C type, e.g. 'const uint32_t *'
    mem: str | None = None    # the program memory this pointer is the base of (None: unused)


@dataclass
class Function:
    name: str
    prototype: str            # 'void name(const uint32_t *rk, ...)'
    insns: list               # whole function, offsets resolved
    cycles: int               # modelled cycles of one call, push .. pop pc
    spills: int
    reloads: int
    remats: int
    base_reloads: int
    stack_bytes: int          # pushed registers + frame
    n_ops: int                # IR ops
    core: str
    seed: int
    stats: dict = field(default_factory=dict)

    def asm_lines(self) -> list:
        return t2.function_lines(self.name, [f"    {i.text()}" for i in self.insns])

    def c_text(self, comment: str = "") -> str:
        return t2.c_asm(self.prototype, self.asm_lines(), comment)

    def summary(self) -> dict:
        return {"cycles": self.cycles, "instructions": len(self.insns), "ir_ops": self.n_ops,
                "spills": self.spills, "reloads": self.reloads, "remats": self.remats,
                "base_reloads": self.base_reloads, "stack_bytes": self.stack_bytes,
                "core": self.core, "seed": self.seed}


def _placeholder_constants(program: ir.Program) -> ir.Program:
    """movc -> 'mov #imm' (one op, one destination, no operand) for the allocator; the printer
    below expands the ones that are not a modified immediate (no validation: on purpose)."""
    ops = [ir.Op("mov", dst=op.dst, imm=op.imm) if op.kind == "movc" else op for op in program.ops]
    return ir.Program(program.name, ops, dict(program.mems), program.n_vregs)


def _expand_constants(insns: list) -> list:
    out = []
    for i in insns:
        if i.mnem == "mov" and i.imm is not None and not i.srcs and not ir.is_thumb2_imm(i.imm):
            out += [replace(x, note=i.note) for x in t2.lower_movc(i.dst, i.imm)]
        else:
            out.append(i)
    return out


def sink(program: ir.Program, order) -> list:
    """Move ops later in ``order`` where that shortens live ranges without lengthening any: an
    op goes to just before its first consumer when every operand it reads is still read after
    that point anyway (a load has no operand: it always goes next to its first use). Walks
    the order backwards, so a chain of such ops follows its consumer down."""
    ops = program.ops
    order = list(order)
    users: dict = {}
    for i, op in enumerate(ops):
        for r in op.reads():
            users.setdefault(r, []).append(i)
    for i in reversed(list(order)):
        op = ops[i]
        if op.dst is None or op.kind == "st" or not users.get(op.dst):
            continue
        pos = {k: p for p, k in enumerate(order)}
        here = pos[i]
        first = min(pos[u] for u in users[op.dst])
        if first == here + 1:
            continue
        if any(max(pos[u] for u in users[r] if u != i) < first if len(users[r]) > 1 else True
               for r in op.reads()):
            continue
        order.pop(here)
        order.insert(first - 1, i)
    return order


def compile_function(program: ir.Program, name: str, params, core: str, seed: int = 0,
                     pinned=(), segments=None, rank=None, strategy: str = "pressure",
                     order=None) -> Function:
    """Compile ``program`` as ``void name(params...)`` for ``core`` (see the module docstring).

    ``pinned``: memories whose base register stays put (at most a few: each costs a register);
    ``order``: an explicit op order (otherwise ``listsched.schedule(..., strategy, segments, rank)``)."""
    if core not in CORES:
        raise ValueError(f"core must be one of {', '.join(CORES)} (got {core!r})")
    params = list(params)
    by_mem = {p.mem: k for k, p in enumerate(params) if p.mem is not None}
    missing = set(program.mems) - set(by_mem)
    if missing:
        raise ValueError(f"{name}: no parameter for memories {sorted(missing)}")
    extra = set(by_mem) - set(program.mems)
    if extra:
        raise ValueError(f"{name}: parameters name unknown memories {sorted(extra)}")
    pinned = tuple(pinned)
    for m in pinned:
        if m not in program.mems:
            raise ValueError(f"{name}: pinned memory {m!r} is not a memory of the program")

    # where every base arrives, and its home
    stack_regs = list(STACK_ARG_REGS)
    pushed_args = sorted((ARG_REGS[by_mem[m]] for m in program.mems
                          if by_mem[m] < 4 and m not in pinned), key=lambda r: int(r[1:]))
    pushed = pushed_args + list(CALLEE_SAVED) + ["lr"]
    popped = list(CALLEE_SAVED) + ["pc"]
    bases, prologue_loads = {}, []        # prologue_loads: (reg, home id)
    homes = {}                            # home id -> ('push', index) | ('arg', stack arg index)
    next_home = -1
    for m in sorted(program.mems, key=lambda m: by_mem[m]):
        k = by_mem[m]
        if k < 4:
            reg = ARG_REGS[k]
            if m in pinned:
                bases[m] = regalloc.BaseSpec("pinned", reg)
            else:
                homes[next_home] = ("push", pushed.index(reg))
                bases[m] = regalloc.BaseSpec("home", reg, next_home)
                next_home -= 1
        else:
            if not stack_regs:
                raise ValueError(f"{name}: too many stack arguments")
            reg = stack_regs.pop(0)
            homes[next_home] = ("arg", k - 4)
            prologue_loads.append((reg, next_home))
            bases[m] = regalloc.BaseSpec("pinned" if m in pinned else "home", reg,
                                         None if m in pinned else next_home)
            next_home -= 1
    pinned_regs = {bases[m].reg for m in pinned}
    if len(pinned_regs) > 3:
        raise ValueError(f"{name}: at most 3 pinned bases")
    remat = tuple(m for m in pinned if program.mems[m][1] == "r")

    prog = _placeholder_constants(program)
    if order is None:
        if strategy == "sink":          # the generator's order, ops sunk to their consumers
            order = sink(program, range(len(program.ops)))
        else:
            order = listsched.schedule(program, seed, strategy, segments=segments, rank=rank)
    alloc = regalloc.allocate(prog, order, bases, seed=seed, remat_mems=remat)
    regalloc.check_allocation(prog, order, alloc, bases)
    readonly = frozenset(bases[m].reg for m in remat)
    body = listsched.post_schedule(alloc.insns, core, seed, readonly_bases=readonly)
    body = _expand_constants(body)
    paired, _ = strd_pairs.pair(body, core)
    strd_pairs.check(body, paired)
    body, _ = reload_pairs.pair(paired, core)       # checked inside (reload_pairs.check)

    s = 4 * strd_pairs.n_slots(body)
    if (4 * len(pushed) + s) % 8:
        s += 4
    n_push = len(pushed)

    def offset(slot):
        if slot >= 0:
            return 4 * slot
        kind, idx = homes[slot]
        return s + 4 * idx if kind == "push" else s + 4 * n_push + 4 * idx

    body = [t2.resolve(i, offset) for i in body]
    pro = [t2.push(pushed)] + ([t2.Insn("sub", dst="sp", srcs=("sp",), imm=s)] if s else [])
    pro += [t2.resolve(t2.ldr_slot(reg, home, note="stack argument"), offset) for reg, home in prologue_loads]
    unwind = s + 4 * len(pushed_args)
    epi = ([t2.Insn("add", dst="sp", srcs=("sp",), imm=unwind)] if unwind else []) + [t2.pop(popped)]
    insns = pro + body + epi
    t2.check_core(insns, core)
    for i in insns:      # only single-word memory instructions, constant offsets
        assert i.mnem in ("ldr", "str", "push", "pop") or i.base is None or \
            (i.mnem == "strd" and i.base == "sp"), i.text()
    proto = f"void {name}(" + ", ".join(f"{p.ctype}{'' if p.ctype.endswith('*') else ' '}{p.name}"
                                        for p in params) + ")"
    return Function(name=name, prototype=proto, insns=insns, cycles=listsched.cycles(insns, core),
                    spills=alloc.spills, reloads=alloc.reloads, remats=alloc.remats,
                    base_reloads=alloc.base_reloads, stack_bytes=4 * n_push + s,
                    n_ops=len(program.ops), core=core, seed=seed, stats=program.stats())


def split_frame(insns: list) -> tuple:
    """(start, end, frame) of a function made here (or by aes_thumb2.compile_encrypt2): its body
    is ``insns[start:end]``, after the push, the ``sub sp, #frame`` and the stack-argument loads,
    before the ``add sp`` and the pop."""
    assert insns[0].mnem == "push" and insns[-1].mnem == "pop"
    start, frame = 1, 0
    if insns[start].mnem == "sub" and insns[start].dst == "sp":
        frame = insns[start].imm
        start += 1
    while insns[start].mnem == "ldr" and insns[start].base == "sp" and insns[start].note == "stack argument":
        start += 1
    end = len(insns) - 1
    if insns[end - 1].mnem == "add" and insns[end - 1].dst == "sp":
        end -= 1
    return start, end, frame


def looped_lines(sym: str, insns: list, back_edge: list) -> list:
    """Assembly lines of function ``insns`` with its body (``split_frame``) run in a loop: label 1
    before the body, then ``back_edge`` (assembly text ending in a branch to 1b), so the loop
    pays one prologue and one epilogue in all."""
    start, end, _ = split_frame(insns)
    text = [f"    {i.text()}" for i in insns]
    return t2.function_lines(sym, text[:start] + ["1:"] + text[start:end]
                             + [f"    {t}    @ next pair" for t in back_edge] + text[end:])


def execute(fn: Function, args: list, memory: dict, sp: int = 0x2000F000) -> dict:
    """Run ``fn`` on gen.isa.thumb2.execute (word-granular memory dict, byte addresses):
    ``args`` are the argument values (pointers); returns the register file at the end."""
    regs = {f"r{i}": 0 for i in range(13)}
    regs.update(sp=sp, lr=0, pc=0)
    for k, a in enumerate(args):
        if k < 4:
            regs[f"r{k}"] = a
        else:
            memory[sp + 4 * (k - 4)] = a
    t2.execute(fn.insns, regs, memory)
    return regs
