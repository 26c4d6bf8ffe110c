"""Any straight-line IR ``Program`` (gen/ir.py) as a Thumb-2 function (AAPCS), as generated text.

``compile_function(program, name, params, core, ...) -> Function``: every memory is a pointer
argument, kept in a register if ``pinned``, else *homed* (pushed by the prologue, so evicting
it is free and a reload is one LDR); then schedule, allocate (checked symbolically),
post-schedule, STRD pairs and reload renaming, and ``Function.cycles`` is the whole call on the
shared timing table.  Argument memory is touched only by single-word LDR/STR (no alignment needed,
out may be in); nothing branches or computes an address.  The frame, the passes and the loop
helpers: docs/internals/thumb2-functions.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from gen import ir
from gen.cores import timing as T
from gen.isa import thumb2 as t2
from gen.isa.base import Isa
from gen.sched import listsched, regalloc, reload_pairs, strd_pairs

CORES = ("cortex-m4", "cortex-m3")


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
    isa: Isa = t2.THUMB2
    #: pushed argument registers -> their homes' sp offsets in the body (a loop's back edge reloads
    #: them there: gen/kernels/block_ecb_thumb2.py)
    arg_homes: dict = field(default_factory=dict)

    def asm_lines(self) -> list:
        return self.isa.function_lines(self.name, [f"    {i.text()}" for i in self.insns])

    def c_text(self, comment: str = "") -> str:
        return self.isa.c_asm(self.prototype, self.asm_lines(), comment)

    def summary(self) -> dict:
        return {"cycles": self.cycles, "instructions": len(self.insns), "ir_ops": self.n_ops,
                "spills": self.spills, "reloads": self.reloads, "remats": self.remats,
                "base_reloads": self.base_reloads, "stack_bytes": self.stack_bytes,
                "core": self.core, "seed": self.seed}


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
                     order=None, isa: Isa = t2.THUMB2, alloc_policy=None, count: bool = False) -> Function:
    """Compile ``program`` as ``void name(params...)`` for ``core`` (see the module docstring).

    ``pinned``: memories whose base register stays put (at most a few: each costs a register);
    ``order``: an explicit op order (otherwise ``listsched.schedule(..., strategy, segments, rank)``);
    ``alloc_policy``: keyword arguments of ``regalloc.allocate`` (eviction knobs, ``recompute``).
    ``count``: the fourth argument register (no memory's) is pushed with the homes as well, as the
    home of a loop bound (gen/kernels/block_ecb_thumb2.py); the body may use it as a scratch register."""
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
    n_reg_args, word = len(isa.arg_regs), isa.word_bytes
    stack_regs = list(isa.stack_arg_regs)
    pushed_args = sorted((isa.arg_regs[by_mem[m]] for m in program.mems
                          if by_mem[m] < n_reg_args and m not in pinned), key=isa.arg_regs.index)
    if count:
        last = isa.arg_regs[-1]
        if any(by_mem[m] == n_reg_args - 1 for m in program.mems):
            raise ValueError(f"{name}: count needs {last} free (a memory's pointer arrives there)")
        pushed_args.append(last)
    pushed = pushed_args + list(isa.callee_saved) + [isa.link]
    bases, prologue_loads = {}, []        # prologue_loads: (reg, home id)
    homes = {}                            # home id -> ('push', index) | ('arg', stack arg index)
    next_home = -1
    for m in sorted(program.mems, key=lambda m: by_mem[m]):
        k = by_mem[m]
        if k < n_reg_args:
            reg = isa.arg_regs[k]
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
            homes[next_home] = ("arg", k - n_reg_args)
            prologue_loads.append((reg, next_home))
            bases[m] = regalloc.BaseSpec("pinned" if m in pinned else "home", reg,
                                         None if m in pinned else next_home)
            next_home -= 1
    pinned_regs = {bases[m].reg for m in pinned}
    if len(pinned_regs) > 3:
        raise ValueError(f"{name}: at most 3 pinned bases")
    remat = tuple(m for m in pinned if m in program.constant)

    if order is None:
        if strategy == "sink":          # the generator's order, ops sunk to their consumers
            order = sink(program, range(len(program.ops)))
        else:
            order = listsched.schedule(program, seed, strategy, segments=segments, rank=rank)
    alloc = regalloc.allocate(program, order, bases, seed=seed, remat_mems=remat, isa=isa, **(alloc_policy or {}))
    regalloc.check_allocation(program, order, alloc, bases, isa)
    readonly = frozenset(bases[m].reg for m in remat)
    body = listsched.post_schedule(alloc.insns, core, seed, readonly_bases=readonly, isa=isa)
    body = isa.expand_constants(body)
    paired, _ = strd_pairs.pair(body, core, isa=isa)
    strd_pairs.check(body, paired, isa)
    body, _ = reload_pairs.pair(paired, core, isa=isa)       # checked inside (reload_pairs.check)

    s = word * strd_pairs.n_slots(body, isa)
    if (word * len(pushed) + s) % isa.stack_align:
        s += isa.stack_align - (word * len(pushed) + s) % isa.stack_align
    n_push = len(pushed)

    def offset(slot):
        if slot >= 0:
            return word * slot
        kind, idx = homes[slot]
        return s + word * idx if kind == "push" else s + word * n_push + word * idx

    body = [isa.resolve(i, offset) for i in body]
    pro = isa.save(pushed) + ([isa.add_sp(-s)] if s else [])
    pro += [isa.resolve(isa.load_slot(reg, home, note="stack argument"), offset) for reg, home in prologue_loads]
    unwind = s + word * len(pushed_args)
    epi = ([isa.add_sp(unwind)] if unwind else []) + isa.restore_and_return(isa.callee_saved)
    insns = pro + body + epi
    isa.check_core(insns, core)
    for i in insns:      # only single-word memory instructions, constant offsets
        acc = isa.access(i)
        assert i.base is None or acc in ("load", "store") or (acc == "store_pair" and i.base == isa.sp), \
            i.text()
    proto = f"void {name}(" + ", ".join(f"{p.ctype}{'' if p.ctype.endswith('*') else ' '}{p.name}"
                                        for p in params) + ")"
    return Function(name=name, prototype=proto, insns=insns, cycles=listsched.cycles(insns, core),
                    spills=alloc.spills, reloads=alloc.reloads, remats=alloc.remats,
                    base_reloads=alloc.base_reloads, stack_bytes=4 * n_push + s,
                    n_ops=len(program.ops), core=core, seed=seed, stats=program.stats(), isa=isa,
                    arg_homes={r: s + word * pushed.index(r) for r in pushed_args})


def split_frame(insns: list) -> tuple:
    """(start, end, frame) of a function made here (or by aes_thumb2.compile_encrypt2): its body
    is ``insns[start:end]``, after the push (and a VPUSH), the ``sub sp, #frame``, the
    stack-argument loads and the instructions noted "home..." or "frame..." (moves of arguments to
    FPU homes, round keys into FPU registers), before the ``add sp``, a VPOP and the pop."""
    assert insns[0].mnem == "push" and insns[-1].mnem == "pop"
    start, frame = 1, 0
    if insns[start].mnem == "vpush":                                     # aes_thumb2's fpu_rk
        start += 1
    if insns[start].mnem == "sub" and insns[start].dst == "sp":
        frame = insns[start].imm
        start += 1
    while insns[start].mnem == "ldr" and insns[start].base == "sp" and insns[start].note == "stack argument":
        start += 1
    while insns[start].note.startswith(("home", "frame")):    # aes_thumb2's fpu_homes and fpu_rk, out_stepped
        start += 1
    end = len(insns) - 1
    if insns[end - 1].mnem == "vpop":
        end -= 1
    if insns[end - 1].mnem == "add" and insns[end - 1].dst == "sp":
        end -= 1
    return start, end, frame


def loop_lines(insns: list, edge_lines: list) -> list:
    """Assembly lines of function ``insns`` with its body (``split_frame``) run in a loop: label 1
    before the body, then ``edge_lines`` (printed lines ending in a branch to 1b), so the loop
    pays one prologue and one epilogue in all."""
    start, end, _ = split_frame(insns)
    text = [f"    {i.text()}" for i in insns]
    return text[:start] + ["1:"] + text[start:end] + list(edge_lines) + text[end:]


def looped_lines(sym: str, insns: list, back_edge: list) -> list:
    """``loop_lines`` as the global function ``sym``; ``back_edge`` is assembly text, each line
    printed with the note "next pair"."""
    return t2.function_lines(sym, loop_lines(insns, [f"    {t}    @ next pair" for t in back_edge]))


def entered_loop_lines(one: str, loop: str, what: str, insns: list, entry: list, edge_lines: list) -> list:
    """Assembly of two global functions sharing one body: ``one`` is ``movs r3, #1`` falling into
    ``loop``, whose ``entry`` lines (before the push) turn the count in r3 into the loop's bound,
    then ``loop_lines``.  ``what``: what one step is, for the comment ("pair", "step")."""
    return t2.function_lines(one, [f"    movs   r3, #1    @ one {what}: on into {loop}", f".global {loop}",
                                   f".type {loop}, %function", ".thumb_func", f"{loop}:", *entry,
                                   *loop_lines(insns, edge_lines), f".size {loop}, .-{loop}"])


def _same_move(a: t2.Insn, b: t2.Insn) -> bool:
    """The same register move or load (notes and symbolic slots aside)."""
    key = lambda i: (i.mnem, i.dst, i.srcs, i.base, i.offset)
    return key(a) == key(b)


def _writes_home(i: t2.Insn, home: t2.Insn) -> bool:
    """Whether ``i`` may write the home that ``home`` (a reload) reads: its FPU register, or its
    stack word (any store to sp that covers it)."""
    if home.base is None:
        return bool(set(home.srcs) & i.writes())
    if i.base != "sp" or not i.mnem.startswith(("str", "stm")):
        return False
    words = 2 if i.mnem == "strd" else len(i.regs) if i.mnem == "stm" else 1
    return i.offset is None or i.offset <= home.offset < i.offset + 4 * words


def held_at_end(body: list, get, regs) -> frozenset:
    """Registers of ``regs`` (argument registers, each holding its pointer where ``body`` starts)
    that hold it again where it ends: never written, or last written by their own reload
    (``get``), and their home not written since.  A back edge need not reload those."""
    reload = {r: get(r) for r in regs}
    held = {r: True for r in regs}
    for i in body:
        for r, home in reload.items():
            if r in i.writes():
                held[r] = _same_move(i, home)
            elif held[r] and _writes_home(i, home):
                held[r] = False
    return frozenset(r for r, ok in held.items() if ok)


def post_indexed_out(body: list, step_bytes: int) -> tuple[list, str | None]:
    """``body`` with its store of out's word 0 post-indexed by ``step_bytes`` (``str rX, [rO],
    #32``: the same cycles as ``str rX, [rO]``), so the loop's out pointer steps for free, and the
    register rO that then holds the next step's out.  Out's stores are the STRs not to sp (a
    kernel writes no other memory).  The stores after it, all through rO, keep their addresses
    (offsets - ``step_bytes``); nothing after it may write rO or read it otherwise.  Where that
    does not hold: (``body``, None)."""
    stores = [k for k, i in enumerate(body) if i.mnem == "str" and i.base != "sp"]
    first = next((k for k in stores if body[k].offset == 0), None)
    if first is None:
        return body, None
    reg = body[first].base
    for k in range(first + 1, len(body)):
        i = body[k]
        as_base = k in stores and i.base == reg and reg not in i.srcs
        if reg in i.writes() or (reg in i.reads() and not as_base) or (k in stores and not as_base):
            return body, None
    out = list(body)
    out[first] = replace(body[first], post=step_bytes)
    for k in stores:
        if k > first:
            out[k] = replace(body[k], offset=body[k].offset - step_bytes)
    return out, reg


#: the entry of an out-stepped loop (``out_stepped_edge``): before the push, with the count n in
#: r3, the bound becomes the output's end (OUT_END) and r2 in - out (IN_MINUS_OUT), what the homes keep
OUT_END = "    add    r3, r1, r3, lsl #{shift}    @ r3 = out + {step} n, the end of the output"
IN_MINUS_OUT = "    sub    r2, r2, r1    @ r2 = in - out: in's home keeps it, the back edge adds it to out"
#: after the homes (``split_frame`` counts it in the prologue): in again for the first step
IN_AGAIN = t2.Insn("add", dst="r2", srcs=("r1", "r2"), note="home: in = out + (in - out), for the first step")


def out_stepped_entry(step_bytes: int) -> list:
    """The entry lines for steps of ``step_bytes`` (a power of two: one shifted ADD)."""
    assert step_bytes & (step_bytes - 1) == 0, step_bytes
    return [OUT_END.format(shift=step_bytes.bit_length() - 1, step=step_bytes), IN_MINUS_OUT]


def out_stepped(insns: list, step_bytes: int, in_home=None) -> tuple[list, str | None]:
    """Function ``insns`` made an out-stepped loop's: ``IN_AGAIN`` after its prologue and its body
    ``post_indexed_out``; with the register holding the next out (None: the store could not
    step it, ``out_stepped_edge`` adds).  ``in_home``: the instruction that reloads in from its
    home; the body must not contain it (the home holds in - out)."""
    start, end, _ = split_frame(insns)
    key = lambda i: (i.mnem, i.srcs, i.base, i.offset)
    if in_home is not None and any(key(i) == key(in_home) for i in insns[start:end]):
        raise ValueError("out_stepped: the body reloads in, whose home holds in - out")
    body, reg = post_indexed_out(insns[start:end], step_bytes)
    return insns[:start] + [IN_AGAIN] + body + insns[end:], reg


def stepped_out(body: list) -> str | None:
    """The register that holds the next out at the end of an out-stepped ``body`` (the base of
    its post-indexed store), None if no store steps it."""
    stepped = [i for i in body if i.post is not None]
    return stepped[-1].base if stepped else None


def out_stepped_edge(get, put, step_bytes: int, note: str, out_reg: str | None, reload=(),
                     held=frozenset()) -> tuple:
    """The back edge of a loop over out up to its end (r3's home: ``out_stepped_entry``), in being
    out + (in - out) (in's home), as (instructions, printed lines): the end, in - out and the
    registers in ``reload`` (not those in ``held``: ``held_at_end``) reloaded by ``get``, the next
    out, in ``out_reg`` (``out_stepped``: its last store stepped it; None: out reloaded and
    advanced here), stored to its home by ``put`` (on the stack a STR that pipelines behind the
    loads), ``add r2, out, r2``, then ``cmp out, r3; blo 1b``.  Against stepping in and out and
    storing both back: one ADD and one home store less.  The instructions leave out the compare
    and the branch."""
    edge = []
    if out_reg is None:
        edge += [get("r1"), t2.Insn("add", dst="r1", srcs=("r1",), imm=step_bytes)]
        out_reg = "r1"
    elif out_reg in ("r0", "r2", "r3"):         # it must outlive the reloads below
        edge.append(t2.Insn("mov", dst="r1", srcs=(out_reg,)))
        out_reg = "r1"
    edge += [get(r) for r in ("r3", "r2", *reload) if r not in held]
    edge += [replace(put("r1"), srcs=(out_reg,)),
             t2.Insn("add", dst="r2", srcs=(out_reg, "r2"))]
    return edge, [f"    {i.text()}    @ {note}" for i in edge] + [f"    cmp    {out_reg}, r3", "    blo    1b"]


def home_moves(fn: Function) -> tuple:
    """(get, put) of a function made here: for a pushed argument register, the LDR that reloads it
    from its home and the STR that stores it back (``Function.arg_homes``); what a back edge of
    gen/kernels/block_ecb_thumb2.py or block_ctr_thumb2.py is made of."""
    homes = fn.arg_homes
    return (lambda r: t2.ldr(r, "sp", homes[r])), (lambda r: t2.str_(r, "sp", homes[r]))


def homed_live_in(fn: Function) -> frozenset:
    """Argument registers with a home that the body reads before it writes them: a back edge must
    reload those (rk, when it is not pinned and the body's first use comes before any write)."""
    start, end, _ = split_frame(fn.insns)
    return live_in(fn.insns[start:end]) & frozenset(fn.arg_homes)


def live_in(body: list) -> frozenset:
    """Registers ``body`` reads before it writes them (a back edge must restore those)."""
    seen, need = set(), set()
    for i in body:
        need |= set(i.reads()) - seen
        seen |= set(i.writes())
    return frozenset(need)


def loop_figures(insns: list, edge: list, core: str) -> tuple[int, int]:
    """(a loop step, one pass) in modelled cycles of function ``insns`` with its body looped and
    closed by ``edge``, a 1-cycle compare and a conditional branch back, priced as the emulator's
    cycle model prices the executed instructions (pair terms across the body's ends included).
    A step is the body, the edge, the compare and the branch taken; one pass the prologue, the
    body, the edge, the compare, the branch not taken and the epilogue (instructions before the
    push are the caller's to add)."""
    start, end, _ = split_frame(insns)
    body = insns[start:end]
    seq = lambda part, prev: T.sequence_cycles([i.timing() for i in part], core, prev=prev)
    bcc = lambda taken: T.issue_cycles("bcond", core, taken=taken)
    tail = seq(edge, body[-1].timing()) + T.issue_cycles("alu", core)              # ... cmp
    step = seq(body, None) + tail + bcc(True)
    once = (seq(insns[:start], None) + seq(body, insns[start - 1].timing()) + tail + bcc(False)
            + seq(insns[end:], None))
    return step, once


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


def cheapest(program, name: str, params, core: str, seed: int = 0, strategies=("pressure",), **kw) -> Function:
    """``program`` compiled with each scheduling strategy in turn; the fewest modelled cycles
    wins (ties: the first strategy)."""
    fns = [compile_function(program, name, params, core, seed, strategy=s, **kw) for s in strategies]
    return min(fns, key=lambda fn: fn.cycles)
