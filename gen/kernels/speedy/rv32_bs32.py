"""SPEEDY on RV32 fully bitsliced over 32 blocks (issue 36): the parts of the kernel as IR (an
S-box row pass body, a MixColumns column, the 32 x 32 transpose, the round-key masks) and an
executable model of the whole cipher through them (``encrypt32``: the parts run by gen.ir.run in
the order and with the addressing of the kernel's loops).  gen/kernels/speedy/rv32_bs32_asm.py
compiles them into the kernel; figures: docs/riscv.md, "SPEEDY fully bitsliced over 32 blocks".

The trick: a word holds ONE state bit (row i, column j) of 32 blocks, 192 words a group.  Then
no rotation is left anywhere:

* the S-box layer is, per row, the 47-gate circuit on that row's six words (``row_program``:
  6 loads, the gates with the NOT-minimal polarities of gen/kernels/speedy/polarity.py, 6
  stores), looped over the 32 rows;
* ShiftColumns is renaming: row i of column j is read from row i + j, an address offset;
* MixColumns on a column is a circulant XOR over its 32 row words, out[i] = XOR over a of
  in[i + a], a in {0, 1, 5, 9, 15, 21, 26} (``mix``): rotations are addressing, so only the XORs
  count; the distance-5 pairs are shared as in rounds.mix_plan, u[i] = in[i] ^ in[i + 5],
  out[i] = u[i] ^ u[i + 21] ^ in[i + 1] ^ in[i + 9] ^ in[i + 15]: 5 XORs a word (the minimum
  with free rotations: docs/riscv.md);
* AddRoundKey XORs a mask word (0 or all ones) per (row, bit), expanded at key setup: fused into
  the S-box row body as 6 more loads and XORs (``row_program(ark="in")``);
* packing is six 32 x 32 bit transposes per direction per 32 blocks (``transpose``: five
  SWAPMOVE stages, 6 instructions a SWAPMOVE on RV32).
"""
from __future__ import annotations

from gen.ir import Builder, Program
from gen.kernels import rv32_function
from gen.kernels.speedy import polarity
from gen.kernels.speedy import rv32 as one_block
from gen.sched import inorder_post

ROWS, COLS, BLOCKS = 32, 6, 32
#: MixColumns' rotation offsets (SPEEDY, Leander et al., TCHES 2021/4: theta_j)
MC_OFFSETS = (0, 1, 5, 9, 15, 21, 26)
#: SWAPMOVE masks of the 32 x 32 transpose, by distance
TRANSPOSE_MASKS = {16: 0x0000FFFF, 8: 0x00FF00FF, 4: 0x0F0F0F0F, 2: 0x33333333, 1: 0x55555555}
#: the rows after row 31 that a read at row i + j (ShiftColumns, j <= 5) reaches: rows 0..4
#: again at 32..36 (column j: rows 0..j-1 only), written by the passes before such a read
MIRROR = COLS - 1


def row_program(spec, pols: tuple, ark: str = "", mirror=False, rows: int = 1,
                gate_pols: tuple | None = None) -> tuple[Program, tuple]:
    """``rows`` consecutive rows of an S-box layer: ``in`` (6 words a row: its bits j = 0..5,
    held with polarities ``pols``) -> ``out`` (6 words a row), with the output polarities.
    ``ark``: "in" XORs the row's 6 mask words of ``rk`` into the inputs first (AddRoundKey
    before the S-box), "out" into the outputs (the last round key).  ``mirror``: True, or the
    (row, column) pairs of this body to store again as ``out[6 rows + 6 row + j]`` (the first rows
    again after row 31, for the next layer's ShiftColumns reads).  ``gate_pols``: the circuit's
    gate polarities (gen/kernels/speedy/polarity.py); without, the one-block kernel's greedy rule."""
    b = Builder(f"{spec.name}_bs32_row")
    n = COLS * rows
    b.declare("in", n, "r")
    b.declare("rk", n, "r")
    b.declare("out", 2 * n if mirror else n, "w")
    qs = ()
    for row in range(rows):
        base = COLS * row
        x = [b.ld("in", base + j) for j in range(COLS)]
        if ark == "in":
            x = [b.eor(v, b.ld("rk", base + j)) for j, v in enumerate(x)]
        circ = (spec.sbox_circuit, spec.sbox_inputs, spec.sbox_outputs)
        y = (one_block.sbox(b, *circ, list(zip(x, pols))) if gate_pols is None
             else polarity.sbox(b, *circ, list(zip(x, pols)), gate_pols))
        outs = [v for v, _ in y]
        if ark == "out":
            outs = [b.eor(v, b.ld("rk", base + j)) for j, v in enumerate(outs)]
        for j, v in enumerate(outs):
            b.st("out", base + j, v)
            if mirror is True or (mirror and (row, j) in mirror):
                b.st("out", n + base + j, v)
        qs = tuple(p for _, p in y)
    return b.finish(), qs


def layers(spec, rows: int = 1) -> dict:
    """The three S-box row programs of the kernel with the NOT-minimal polarities
    (polarity.search): "first" (AddRoundKey on the inputs, input polarities set by the masks),
    "second" (inputs: the first's outputs), "last" (the second, the last key on the outputs);
    {name: (kwargs of row_program)} and the held polarities: "pin", "q1", "q2"."""
    plan = polarity.search(spec)
    q1 = row_program(spec, plan.pin, gate_pols=plan.p1)[1]
    q2 = row_program(spec, q1, gate_pols=plan.p2)[1]
    return {"first": dict(pols=plan.pin, ark="in", gate_pols=plan.p1, rows=rows),
            "second": dict(pols=q1, ark="", gate_pols=plan.p2, rows=rows),
            "last": dict(pols=q1, ark="out", gate_pols=plan.p2, rows=rows),
            "pin": plan.pin, "q1": q1, "q2": q2}


def mix_order(step: int = 1) -> list[int]:
    """The order in which the column's outputs are computed (step 31: downwards)."""
    return [(step * k) % ROWS for k in range(ROWS)]


#: MixColumns' output order and scheduling phase size: outputs i = 11 k mod 32, three outputs a
#: phase.  Measured on the E31 model (24 registers): 245 cycles a column at the best of 32 seeds
#: (order 21 k, four a phase: 250 at the best of 8; descending order unphased 260 with 10 spills,
#: ascending 269).
MIX_STEP, MIX_PHASE = 11, 3


def mix(order=None, phase: int = MIX_PHASE) -> tuple[Program, list]:
    """MixColumns of one column: ``in`` 32 row words (constant: the allocator reloads instead of
    spilling) -> ``out`` 32 words; and the scheduling phases (``phase`` outputs each)."""
    b = Builder("speedy_bs32_mix")
    b.declare("in", ROWS, "r", constant=True)
    b.declare("rk", 1, "r")
    b.declare("out", ROWS, "w")
    x: dict[int, int] = {}
    u: dict[int, int] = {}
    phases: list[int] = []

    def X(i):
        i %= ROWS
        if i not in x:
            x[i] = b.ld("in", i)
        return x[i]

    def U(i):
        i %= ROWS
        if i not in u:
            u[i] = b.eor(X(i), X(i + 5))
        return u[i]

    for k, i in enumerate(mix_order(MIX_STEP) if order is None else order):
        o = b.eor(b.eor(U(i), U(i + 21)), b.eor(b.eor(X(i + 1), X(i + 9)), X(i + 15)))
        b.st("out", i, o)
        phases += [k // phase] * (len(b.ops) - len(phases))
    return b.finish(), phases


def mix_program(order=None) -> Program:
    return mix(order)[0]


def transpose() -> tuple[Program, list]:
    """The 32 x 32 bit transpose, ``out[i]`` bit k = ``in[k]`` bit i (five SWAPMOVE stages, which
    commute), and its phases for the list scheduler: the distance-16 and 8 stages on all 32
    words, then stages 4, 2, 1 and the stores of each quarter in turn, so a quarter's words are
    stored before the next is worked (E31 model, best of 16 seeds: 584 cycles; 597 with halves
    after stage 16 alone, 607 with eighths; 653 for the stages in order unphased)."""
    b = Builder("speedy_bs32_transpose")
    b.declare("in", ROWS, "r", constant=True)
    b.declare("rk", 1, "r")
    b.declare("out", ROWS, "w")
    x = [b.ld("in", i) for i in range(ROWS)]
    masks: dict[int, int] = {}
    phases: list[int] = []

    def swapmove(p, j):
        if j not in masks:
            masks[j] = b.movc(TRANSPOSE_MASKS[j])
        lo, hi = x[p], x[p + j]
        t = b.and_(b.eor(hi, b.shift("lsr", lo, j)), masks[j])
        x[p + j] = b.eor(hi, t)
        x[p] = b.eor(lo, b.shift("lsl", t, j))

    for j in (16, 8):
        for p in range(ROWS):
            if p & j == 0:
                swapmove(p, j)
    phases += [0] * (len(b.ops) - len(phases))
    for quarter in range(0, ROWS, 8):
        for j in (4, 2, 1):
            for p in range(quarter, quarter + 8):
                if p & j == 0:
                    swapmove(p, j)
        for i in range(quarter, quarter + 8):
            b.st("out", i, x[i])
        phases += [1 + quarter // 8] * (len(b.ops) - len(phases))
    prog = b.finish()
    assert len(prog.ops) == len(phases)
    return prog, phases


def transpose_program() -> Program:
    return transpose()[0]


def body_cycles(c: rv32_function.Compiled) -> int:
    """E31-model cycles of a compiled function without its frame (saves, restores, sp, ret): what
    one trip of a loop around it costs before the loop's own instructions."""
    body = [i for i in c.insns if i.note not in ("save", "restore") and i.mnem != "ret"
            and not (i.mnem == "addi" and i.dst == "sp")]
    return inorder_post.cycles(body, rv32_function.CORE)


def state_bit(w: int, k: int) -> tuple[int, int]:
    """(row, column) of bit k (LSB 0) of little-endian word w of a block: the packing transposes'
    renaming (state bit p = 6 row + column, bit 0 the MSB of byte 0)."""
    p = 8 * (4 * w + k // 8) + 7 - k % 8
    return divmod(p, COLS)


def key_masks(spec, key: bytes, pols: tuple, qs: list) -> list[list[list[int]]]:
    """The mask words key setup would expand: masks[r][i][j] (0 or all ones) for round key r,
    round constant r - 1 folded in, complemented where the held polarity ``qs[r]`` (before) and
    the wanted one (``pols``; 0 after the last) differ."""
    from gen.ciphers import speedy as ref
    from gen.ciphers.base import bits_of
    ks = [bits_of(k) for k in spec.key_schedule(key)]
    out = []
    for r in range(spec.rounds + 1):
        bits = ks[r] if r in (0, spec.rounds) else [a ^ c for a, c in zip(ks[r], bits_of(ref.round_constant(r - 1)))]
        want = pols if r < spec.rounds else (0,) * COLS
        out.append([[(0xFFFFFFFF if bits[COLS * i + j] ^ qs[r][j] ^ want[j] else 0) for j in range(COLS)]
                    for i in range(ROWS)])
    return out


def round_masks(spec, key: bytes) -> list[list[list[int]]]:
    """key_masks with the polarities the kernel holds: 0 after packing, the second S-box's
    outputs' after each MixColumns (7 terms: odd, the polarity stays), the last S-box's at the end
    (the same: the last pass is the second S-box with the key on its outputs)."""
    ls = layers(spec)
    qs = [(0,) * COLS] + [ls["q2"]] * spec.rounds
    return key_masks(spec, key, ls["pin"], qs)


def mask_words(spec, key: bytes) -> list[int]:
    """The masks as the kernel reads them: round r, row i, column j at word 192 r + 6 i + j."""
    return [m for rnd in round_masks(spec, key) for row in rnd for m in row]


def encrypt32(spec, key: bytes, blocks: list[bytes]) -> list[bytes]:
    """32 blocks through the IR parts above, run by gen.ir.run in the order and with the
    addressing the loops would use (ShiftColumns as a read offset, MixColumns per column, the
    masks per row): the executable model of the kernel (rv32_bs32_asm)."""
    from gen.ir import run
    assert len(blocks) == BLOCKS
    ls = layers(spec)
    first, second, last = (row_program(spec, **ls[k])[0] for k in ("first", "second", "last"))
    masks = round_masks(spec, key)
    tr, mix = transpose_program(), mix_program()
    w = [[0] * COLS for _ in range(ROWS)]                      # w[row][column]: 32 blocks
    for word in range(COLS):
        outs = run(tr, {"in": [int.from_bytes(blk[4 * word:4 * word + 4], "little") for blk in blocks],
                        "rk": [0]})["out"]
        for k, v in enumerate(outs):
            i, j = state_bit(word, k)
            w[i][j] = v

    def layer(prog, x, offsets, rk):
        return [run(prog, {"in": [x[(i + offsets[j]) % ROWS][j] for j in range(COLS)],
                           "rk": rk[i] if rk else [0] * COLS})["out"] for i in range(ROWS)]

    none, sc = (0,) * COLS, tuple(range(COLS))                # ShiftColumns: row i + j of column j
    for r in range(spec.rounds):
        w = layer(first, w, none, masks[r])
        if r < spec.rounds - 1:
            w = layer(second, w, sc, None)
            cols = [run(mix, {"in": [w[(i + j) % ROWS][j] for i in range(ROWS)], "rk": [0]})["out"]
                    for j in range(COLS)]
            w = [[cols[j][i] for j in range(COLS)] for i in range(ROWS)]
    w = layer(last, w, sc, masks[spec.rounds])
    out = [bytearray(spec.block_bytes) for _ in range(BLOCKS)]
    for word in range(COLS):
        cols = [w[state_bit(word, k)[0]][state_bit(word, k)[1]] for k in range(ROWS)]
        for b, v in enumerate(run(tr, {"in": cols, "rk": [0]})["out"]):
            out[b][4 * word:4 * word + 4] = v.to_bytes(4, "little")
    return [bytes(o) for o in out]
