"""One straight-line IR program (memories ``rk``, ``out``, ``in``) as a generated RV32I function:
split for RV32 (gen/kernels/rv32_split.py), list-scheduled, allocated onto RV32's registers
(gen/sched/regalloc.py with gen/isa/rv32.RV32; rk, out, in pinned in a0, a1, a2), scheduled again
on the E31 scoreboard (gen/sched/inorder_post.py), with the frame that saves what the body uses;
the cheapest of a few schedule seeds.  ``c_text`` wraps it for byte buffers: the kernel reads and
writes words (the E31 traps on a misaligned LW/SW), so a C function passes aligned buffers
straight through and copies others through an aligned stack buffer, chosen by the pointers'
values only (public), never by data.  Used by gen/kernels/aes/rv32.py and gen/targets/rv32imac.py.
"""
from __future__ import annotations

from dataclasses import dataclass

from gen import ir
from gen.isa import rv32 as R
from gen.kernels import rv32_split
from gen.sched import inorder_post, listsched, regalloc

CORE = "sifive-e31"
BASES = {"rk": regalloc.BaseSpec("pinned", "a0"), "out": regalloc.BaseSpec("pinned", "a1"),
         "in": regalloc.BaseSpec("pinned", "a2")}
REGS = tuple(r for r in R.ALLOCATABLE if r not in ("a0", "a1", "a2"))
#: schedule seeds tried, the cheapest kept (the seed breaks ties in the list scheduler and the
#: allocator; measured AES-128 ffs: 2,918 cycles at seed 0, 2,878 at best of 8)
SEEDS = range(8)


@dataclass
class Compiled:
    insns: list          # the whole function: prologue, body, epilogue
    cycles: int          # E31 model, straight line (gen/cores/inorder.py)
    spills: int
    reloads: int
    n_ops: int           # IR ops after the RV32 split
    rotations: int       # rotations left after the split (three instructions each)
    rotations_as_shifts: int  # rotations of masked values the split made one shift (nothing wraps)
    saved: tuple         # callee-saved registers the body uses
    stack_bytes: int
    used_regs: int       # registers the body's values used, of ``pool``
    seed: int
    pool: int = len(REGS)  # registers the allocator could give values (REGS and the home bases')


def compile_function(prog: ir.Program, seed: int = 0, phases: list | None = None,
                     alloc_options: dict | None = None, regs: tuple = REGS,
                     home_bases: tuple = ()) -> Compiled:
    """``phases`` (optional, one number per op of ``prog``): the list scheduler takes the ops
    phase by phase (its ``segments``), for programs whose live values exceed the registers unless
    their parts are kept apart (barrel-shiftrows AES: gen/kernels/aes/barrel.py).
    ``alloc_options``: extra arguments of regalloc.allocate (``recompute``, ``remat_bonus``).
    ``regs``: the registers the body may use (a loop around it keeps others: gen/kernels/speedy/rv32_bs32.py).
    ``home_bases``: memories (of ``out``, ``in``) whose pointer the prologue stores in the frame,
    so that the allocator may give its register to values and reload the pointer when the memory
    is next used (regalloc's 'home' bases): two more registers in the middle of a kernel that
    reads ``in`` only at its start and writes ``out`` only at its end."""
    stats: dict = {}
    split = rv32_split.split(prog, stats)
    segments = None if phases is None else [phases[o] for o in stats["origin"]]
    order = listsched.schedule(split, seed, "pressure", segments=segments)
    bases = dict(BASES)
    for k, m in enumerate(home_bases):
        bases[m] = regalloc.BaseSpec("home", BASES[m].reg, -1 - k)
    regs = tuple(regs) + tuple(bases[m].reg for m in home_bases)
    alloc = regalloc.allocate(split, order, bases, regs=regs, seed=seed, isa=R.RV32, **(alloc_options or {}))
    regalloc.check_allocation(split, order, alloc, bases, isa=R.RV32)
    body = R.expand_constants(alloc.insns)
    body = inorder_post.schedule(body, CORE, R.RV32, readonly=frozenset(alloc.readonly))
    used = set().union(*(i.reads() | i.writes() for i in body))
    saved = tuple(r for r in R.CALLEE_SAVED + ("ra",) if r in used)
    n_save = -(-4 * len(saved) // 16) * 16
    spill_bytes = -(-4 * (alloc.n_slots + len(home_bases)) // 16) * 16
    slot_offset = lambda slot: 4 * slot if slot >= 0 else 4 * (alloc.n_slots - 1 - slot)
    body = [R.resolve(i, slot_offset) for i in body]
    frame = n_save + spill_bytes
    pro = ([R.add_sp(-frame)] if frame else []) + \
          [R.sw(r, "sp", spill_bytes + 4 * k, note="save") for k, r in enumerate(saved)] + \
          [R.sw(bases[m].reg, "sp", slot_offset(bases[m].home), note="home") for m in home_bases]
    epi = [R.lw(r, "sp", spill_bytes + 4 * k, note="restore") for k, r in enumerate(saved)] + \
          ([R.add_sp(frame)] if frame else []) + [R.Insn("ret")]
    insns = pro + body + epi
    R.check_core(insns, CORE)
    return Compiled(insns=insns, cycles=inorder_post.cycles(insns, CORE), spills=alloc.spills,
                    reloads=alloc.reloads, n_ops=len(split.ops), rotations=stats["rotations"],
                    rotations_as_shifts=stats["rotations_as_shifts"], saved=saved,
                    stack_bytes=frame, used_regs=len(set(alloc.used_regs) & set(regs)), seed=seed,
                    pool=len(regs))


def cheapest(prog: ir.Program, seeds=SEEDS, phases: list | None = None, alloc_options: dict | None = None,
             regs: tuple = REGS, home_bases: tuple = ()) -> Compiled:
    """The kernel of the fewest modelled cycles over ``seeds`` (the first on a tie)."""
    return min((compile_function(prog, s, phases, alloc_options, regs, home_bases) for s in seeds),
               key=lambda c: (c.cycles, c.seed))


def facts(c: Compiled) -> dict:
    """What a manifest's ``metrics.kernel_facts`` says of a kernel."""
    return {"seed": c.seed, "rv32_ops": c.n_ops, "rotations": c.rotations,
            "rotations_as_shifts": c.rotations_as_shifts, "spills": c.spills,
            "reloads": c.reloads, "saved_registers": len(c.saved), "free_registers": c.pool - c.used_regs}


def c_text(name: str, c: Compiled, in_words: int, out_words: int, what: str) -> str:
    """The kernel as ``{name}_rv32`` (word buffers) in a file-scope ``__asm__`` block, and
    ``static void {name}(const uint32_t *rk, uint8_t *out, const uint8_t *in)`` around it."""
    sym = f"{name}_rv32"
    comment = (f"/* {sym}: {what} in RV32I assembly generated by gen/kernels/rv32_function.py (seed "
               f"{c.seed}: {c.cycles} cycles on the E31 model, {c.rotations} rotations as three "
               f"instructions each, {c.spills} spills); rk, out, in: 4-byte aligned words. */")
    asm = R.c_asm(f"void {sym}(const uint32_t *rk, uint32_t *out, const uint32_t *in)",
                  R.function_lines(sym, ["    " + i.text() for i in c.insns]), comment)
    n = max(in_words, out_words)
    return asm + (
        f"static void {name}(const uint32_t *rk, uint8_t *out, const uint8_t *in)\n"
        "{\n"
        f"    uint32_t w[{n}];\n"
        "    volatile uint32_t *vw = w;\n"
        "    volatile uint8_t *vb = (volatile uint8_t *)w;   /* volatile: no loop becomes a memcpy call */\n"
        "    unsigned i;\n"
        "    if ((((uintptr_t)out | (uintptr_t)in) & 3u) == 0u) {   /* public: the buffers' addresses */\n"
        f"        {sym}(rk, (uint32_t *)(void *)out, (const uint32_t *)(const void *)in);\n"
        "        return;\n"
        "    }\n"
        f"    for (i = 0; i < {4 * in_words}; i++) vb[i] = in[i];\n"
        f"    {sym}(rk, w, w);\n"
        f"    for (i = 0; i < {4 * out_words}; i++) out[i] = vb[i];\n"
        f"    for (i = 0; i < {n}; i++) vw[i] = 0;\n"
        "}\n")
