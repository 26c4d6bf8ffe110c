"""The 32-block bitsliced SPEEDY kernel (gen/kernels/speedy/rv32_bs32.py) as one RV32I function:
the straight-line bodies of rv32_bs32 (each compiled by gen/kernels/rv32_function.py) inside
counted loops, one local subroutine per pass, the state in stack buffers.

The trick of the addressing: the compiled bodies address their memories as word indices off the
pinned bases (rk a0, out a1, in a2); this module rewrites those offsets, so one body serves every
trip of a loop and ShiftColumns is an offset, never an instruction:

* state buffers: row-major, word 6 i + j = (row i, column j) of 32 blocks, 38 rows (rows 0..5
  again as rows 32..37, written by the passes whose next reader applies ShiftColumns: column j
  of row i is read at row i + j, 28 j bytes further, and never wraps);
* S-box pass (``{sym}_ark``, ``_plain``, ``_last``): a loop over pairs of rows (UNROLL: one
  body compiled for two rows), in and rk advance 48 bytes; rows 0..5 by a body that also stores
  the mirror rows (+768 bytes), rows 6..31 by one that does not (two copies, no per-row test);
  the destination is addressed off the source's pointer, STATE_BYTES on (buffers a -> b -> c);
* MixColumns pass: a loop over the 6 columns, in = src + 28 j (ShiftColumns), out = dst + 4 j,
  row k at 24 k (c -> a);
* pack / unpack: six 32 x 32 transposes, word w of the 32 blocks (24-byte stride) <-> the 32
  state words p = 32 w + q(k) (bit k of a little-endian word is state bit 8 (k div 8) + 7 - k
  mod 8 of its 32: rv32_bs32.state_bit), so the loop adds 4 to one pointer and 128 to the other.

Registers: t6 holds each loop's end; the bodies use the other 24 (a0..a2 pinned).  Every address
depends on loop counters only (public); nothing branches on data.  Memory use: three state
buffers (3 x 912 bytes), the bodies' shared spill slots and the saved registers, on the stack.
"""
from __future__ import annotations

from dataclasses import dataclass

from gen.isa import rv32 as R
from gen.kernels import rv32_function
from gen.kernels.speedy import rv32_bs32 as B

LOOP_REG = "t6"
REGS = tuple(r for r in rv32_function.REGS if r != LOOP_REG)
ROW_BYTES = 4 * B.COLS                       # 24
STATE_BYTES = 4 * B.COLS * (B.ROWS + B.MIRROR)   # 888: 37 rows
MASK_WORDS = B.ROWS * B.COLS                 # round-key masks a round: 192 words


@dataclass
class Body:
    """A compiled straight-line body: its instructions without the frame, E31 cycles, spill bytes."""
    name: str
    insns: list
    cycles: int
    spill_bytes: int
    compiled: rv32_function.Compiled


def _strip(c: rv32_function.Compiled) -> list:
    return [i for i in c.insns if i.note not in ("save", "restore") and i.mnem != "ret"
            and not (i.mnem == "addi" and i.dst == "sp")]


def body(name: str, prog, offsets: dict, seeds=rv32_function.SEEDS, phases: list | None = None,
         out_on_in: int | None = None, compiled: rv32_function.Compiled | None = None) -> Body:
    """``prog`` compiled (the cheapest seed; ``phases`` for the list scheduler, optional) with its
    memory ``m``'s index k at byte offset ``offsets[m](k)`` off its base register; ``out_on_in``:
    ``out`` addressed off in's register (a2), that many bytes further (one pointer a loop);
    ``compiled``: ``prog`` already compiled (the same body under other offsets)."""
    c = compiled or rv32_function.cheapest(prog, seeds=seeds, phases=phases, regs=REGS)
    bases = {spec.reg: mem for mem, spec in rv32_function.BASES.items()}   # a0 rk, a1 out, a2 in
    out, spill = [], 0
    for i in _strip(c):
        if i.mnem in ("lw", "sw") and i.base in bases:
            mem = bases[i.base]
            base, extra = ("a2", out_on_in) if mem == "out" and out_on_in is not None else (i.base, 0)
            i = R.Insn(i.mnem, dst=i.dst, srcs=i.srcs, base=base,
                       offset=offsets[mem](i.offset // 4) + extra, note=i.note)
            assert R.is_imm(i.offset), (name, i)
        elif i.mnem in ("lw", "sw") and i.base == "sp":
            spill = max(spill, i.offset + 4)
        out.append(i)
    assert LOOP_REG not in set().union(*(i.reads() | i.writes() for i in out)), name
    return Body(name, out, B.body_cycles(c), spill, c)


def _ident(k):
    return 4 * k


#: seeds tried (24 registers; E31 model): MixColumns 250 at the best of 8, 245 of 32 (order
#: 11 k, three a phase); the transpose as rv32_bs32.transpose() says
TRANSPOSE_SEEDS, MIX_SEEDS = range(32), range(32)
#: rows an S-box loop trip takes (the body is compiled for that many consecutive rows)
UNROLL = 4
#: the S-box passes' first rows, by straight bodies that also store the mirror words they must
#: (row r, column j with r < j): MIRROR rounded up to whole trips
HEAD = -(-B.MIRROR // UNROLL) * UNROLL


def _row_offsets(shift: bool, mirror: bool) -> dict:
    """S-box rows (UNROLL of them): in word j of row i + (j if ShiftColumns pends), out word j
    (+ the mirror, 32 rows on)."""
    n = B.COLS * UNROLL
    row_in = (lambda k: ROW_BYTES * (k // B.COLS) + 4 * (B.COLS + 1) * (k % B.COLS)) if shift else _ident
    row_out = (lambda k: 4 * k if k < n else 4 * B.ROWS * B.COLS + 4 * (k - n)) if mirror else _ident
    return {"in": row_in, "rk": _ident, "out": row_out}


def _mirrored(trip: int) -> set:
    """The (row in the trip, column) words trip ``trip`` of the head must store again."""
    return {(r, j) for r in range(UNROLL) for j in range(B.COLS) if trip * UNROLL + r < j}


def bodies(spec) -> dict:
    """Every body of the kernel, compiled: {name: Body}."""
    ls = B.layers(spec, UNROLL)
    out = {}
    for t in range(HEAD // UNROLL):
        m = _mirrored(t)
        out[f"ark_m{t}"] = body(f"ark_m{t}", B.row_program(spec, mirror=m, **ls["first"])[0],
                                _row_offsets(False, True), out_on_in=STATE_BYTES)
        out[f"plain_m{t}"] = body(f"plain_m{t}", B.row_program(spec, mirror=m, **ls["second"])[0],
                                  _row_offsets(True, True), out_on_in=STATE_BYTES)
    out["ark"] = body("ark", B.row_program(spec, **ls["first"])[0], _row_offsets(False, False),
                      out_on_in=STATE_BYTES)
    out["plain"] = body("plain", B.row_program(spec, **ls["second"])[0], _row_offsets(True, False),
                        out_on_in=STATE_BYTES)
    out["last"] = body("last", B.row_program(spec, **ls["last"])[0], _row_offsets(True, False),
                       out_on_in=STATE_BYTES)
    row = lambda k: ROW_BYTES * k
    mix, phases = B.mix()
    out["mix"] = body("mix", mix, {"in": row, "out": row, "rk": _ident}, seeds=MIX_SEEDS, phases=phases)
    q = lambda k: 4 * (B.state_bit(0, k)[0] * B.COLS + B.state_bit(0, k)[1])
    assert all(B.state_bit(w, k) == divmod(32 * w + q(k) // 4, B.COLS) for w in range(B.COLS) for k in range(32))
    tr, phases = B.transpose()
    c = rv32_function.cheapest(tr, seeds=TRANSPOSE_SEEDS, phases=phases, regs=REGS)
    out["pack"] = body("pack", tr, {"in": row, "out": q, "rk": _ident}, compiled=c)
    out["unpack"] = body("unpack", tr, {"in": q, "out": row, "rk": _ident}, compiled=c)
    return out


def _loop(label: str, b: Body, end_base: str, end_bytes: int, steps: list) -> list:
    """``end = end_base + end_bytes``; a loop of ``b`` then ``addi`` each (reg, bytes) of
    ``steps``, back while ``end_base``'s register (the first step's) has not reached it."""
    lines = [f"addi   {LOOP_REG}, {end_base}, {end_bytes}", f"{label}:"]
    lines += [i.text() for i in b.insns]
    lines += [f"addi   {r}, {r}, {n}" for r, n in steps]
    lines.append(f"bne    {end_base}, {LOOP_REG}, {label}b")
    return lines


@dataclass
class Kernel:
    sym: str
    lines: list          # assembly lines (function and its local subroutines)
    bodies: dict
    frame: int
    cycles: int          # E31 model, the whole call (loops counted; see ``model_cycles``)
    instructions: int    # static instructions


def kernel(spec, sym: str) -> Kernel:
    """``void sym(const uint32_t *masks, uint32_t *out, const uint32_t *in)``: 32 blocks (768
    bytes, 4-byte aligned) encrypted; ``masks``: rv32_bs32.key_masks' words, round by round."""
    bs = bodies(spec)
    r = spec.rounds
    spill = -(-max(b.spill_bytes for b in bs.values()) // 16) * 16
    saved = R.CALLEE_SAVED + ("ra",)
    save_off = spill
    out_slot = save_off + 4 * len(saved)
    ra_slot = out_slot + 4
    buf_a = -(-(ra_slot + 4) // 16) * 16
    buf_b, buf_c = buf_a + STATE_BYTES, buf_a + 2 * STATE_BYTES
    frame = -(-(buf_c + STATE_BYTES) // 16) * 16
    assert R.is_imm(buf_c), buf_c
    assert B.ROWS % UNROLL == 0
    # S-box passes: one pointer (a2), the destination STATE_BYTES further (buffers a -> b -> c)
    step = ROW_BYTES * UNROLL
    row_steps = lambda ark: ([("a0", step)] if ark else []) + [("a2", step)]

    def sub(name: str, loops: list) -> list:
        return [f"{sym}_{name}:", f"sw     ra, {ra_slot}(sp)"] + loops + [f"lw     ra, {ra_slot}(sp)", "ret"]

    def head(name: str, ark: bool) -> list:
        lines = []
        for t in range(HEAD // UNROLL):
            lines += [i.text() for i in bs[f"{name}_m{t}"].insns]
            lines += [f"addi   {r}, {r}, {n}" for r, n in row_steps(ark)]
        return lines

    subs = {
        "ark": sub("ark", head("ark", True) + _loop("1", bs["ark"], "a2", ROW_BYTES * (B.ROWS - HEAD), row_steps(True))),
        "plain": sub("plain", head("plain", False)
                     + _loop("1", bs["plain"], "a2", ROW_BYTES * (B.ROWS - HEAD), row_steps(False))),
        "last": sub("last", _loop("1", bs["last"], "a2", ROW_BYTES * B.ROWS, row_steps(True))),
        "mix": sub("mix", _loop("1", bs["mix"], "a1", 4 * B.COLS, [("a1", 4), ("a2", 4 * (B.COLS + 1))])),
        "pack": sub("pack", _loop("1", bs["pack"], "a1", 4 * 32 * B.COLS, [("a1", 128), ("a2", 4)])),
        "unpack": sub("unpack", _loop("1", bs["unpack"], "a2", 4 * 32 * B.COLS, [("a2", 128), ("a1", 4)])),
    }
    main = [f"li     {LOOP_REG}, {frame}", f"sub    sp, sp, {LOOP_REG}"]
    main += [f"sw     {s}, {save_off + 4 * k}(sp)" for k, s in enumerate(saved)]
    main += [f"sw     a1, {out_slot}(sp)", f"addi   a1, sp, {buf_a}", f"jal    ra, {sym}_pack"]

    def call(name, src, dst=None):
        return [f"addi   a2, sp, {src}"] + ([f"addi   a1, sp, {dst}"] if dst is not None else []) \
            + [f"jal    ra, {sym}_{name}"]

    for k in range(r - 1):   # a -> b -> c -> a
        main += call("ark", buf_a) + call("plain", buf_b) + call("mix", buf_c, buf_a)
    main += call("ark", buf_a) + call("last", buf_b)
    main += [f"addi   a2, sp, {buf_c}", f"lw     a1, {out_slot}(sp)", f"jal    ra, {sym}_unpack"]
    main += [f"lw     {s}, {save_off + 4 * k}(sp)" for k, s in enumerate(saved)]
    main += [f"li     {LOOP_REG}, {frame}", f"add    sp, sp, {LOOP_REG}", "ret"]
    lines = main[:]
    for name in ("pack", "ark", "plain", "mix", "last", "unpack"):
        lines += subs[name]
    # ``li`` of the frame size is two instructions (lui, addi)
    main_insns = len(main) + sum(1 for ln in main if ln.startswith("li "))
    return Kernel(sym, lines, bs, frame, model_cycles(spec, bs, main_insns),
                  sum(1 for ln in lines if not ln.endswith(":")) + sum(1 for ln in lines if ln.startswith("li ")))


def model_cycles(spec, bs: dict, main_insns: int) -> int:
    """The call's E31-model cycles from its bodies: trips x (body + the loop's adds and branch),
    plus each pass's entry (end register, ra save/restore, call and return) and the main line.
    Branch mispredictions at loop exits are not in it (the emulator's figure has them)."""
    r = spec.rounds
    trip = lambda name, n, adds: n * (bs[name].cycles + adds + 1)
    rows = lambda name, n, adds: trip(name, n // UNROLL, adds)
    head = lambda name, adds: sum(bs[f"{name}_m{t}"].cycles + adds for t in range(HEAD // UNROLL))
    ark = head("ark", 2) + rows("ark", B.ROWS - HEAD, 2) + 2
    plain = head("plain", 1) + rows("plain", B.ROWS - HEAD, 1) + 2
    last = rows("last", B.ROWS, 2) + 1
    mix = trip("mix", B.COLS, 2) + 1
    pack = trip("pack", B.COLS, 2) + 1
    unpack = trip("unpack", B.COLS, 2) + 1
    passes = 2 + 2 * r + (r - 1)
    return (r * ark + (r - 1) * (plain + mix) + last + pack + unpack + passes * 4 + main_insns)
