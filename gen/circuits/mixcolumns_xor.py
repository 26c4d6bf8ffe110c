"""AES MixColumns as XOR circuits on bit words (barrel-shiftrows' layout), and their check.

In barrel-shiftrows AES (gen/kernels/aes/barrel.py) the state is 32 words, word 8r + i holding
bit i of every row-r byte, so MixColumns is the 32 x 32 GF(2) matrix of
``out_r = 2 x_r + 3 x_r+1 + x_r+2 + x_r+3`` (FIPS-197 section 5.1.3; x_r the row-r byte, 2 the
xtime map: bit i of 2y is y[i - 1], with y[7] also into bits 1, 3, 4 and bit 0) applied word-wise:
a circuit of XORs over the words is a kernel's MixColumns, one instruction a gate.

A circuit is written at the byte level, as a ``ByteProgram`` of steps ``(name, "add", a, b)`` and
``(name, "x2", a)`` over the rows ``x0..x3``; ``gates`` expands it to word gates (an add is 8
XORs, an xtime 3: the feedback of bit 7 into bits 1, 3 and 4; its other bits are re-indexings).

* ``FORMULA_108``: t_r = x_r + x_r+1, out_r = 2 t_r + x_r+1 + t_r+2: 12 adds, 4 xtimes, 108 XORs,
  the cancellation-free form (Paar's greedy finds no shorter one on this matrix: docs/riscv.md).
* ``CANCEL_97``: with cancellations, derived here (not transcribed): out_0 + out_1 = 2(x0 + x2) +
  (x0 + x1) and out_2 + out_3 = 2(x0 + x2) + (x2 + x3), so rows 1 and 3 are rows 0 and 2 plus a
  shared doubled term: a = x0 + x1, c = x2 + x3, out_0 = 2a + (x1 + c), out_2 = 2c + (x3 + a),
  e = x0 + x2, out_1 = out_0 + (2e + a), out_3 = out_2 + (2e + c): 11 adds, 3 xtimes, 97 XORs,
  the count Kranz, Leander, Stoffelen and Wiemer report from the Boyar-Peralta heuristic
  ("Shorter linear straight-line programs for MDS matrices", ToSC 2017(4)); 92 is the smallest
  published (A. Maximov, "AES MixColumn with 92 XOR gates", IACR ePrint 2019/833), not reached here.
  gen/circuits/mixcolumns_search.py finds such programs by itself and shows that none has 10
  additions with 3 doublings of row sums.
"""
from __future__ import annotations

from functools import reduce

ROWS, BITS = 4, 8
WORDS = ROWS * BITS
#: xtime on bit words: bit i of 2y is y[i - 1]; y[7] also goes into bits 1, 3, 4 (0x1b)
XTIME_FEEDBACK = (1, 3, 4)

ByteProgram = tuple  # of (name, "add", a, b) / (name, "x2", a); outputs are named "o0".."o3"


def _formula_108() -> ByteProgram:
    steps = [(f"t{r}", "add", f"x{r}", f"x{(r + 1) % 4}") for r in range(4)]
    for r in range(4):
        steps += [(f"d{r}", "x2", f"t{r}"), (f"s{r}", "add", f"x{(r + 1) % 4}", f"t{(r + 2) % 4}"),
                  (f"o{r}", "add", f"d{r}", f"s{r}")]
    return tuple(steps)


FORMULA_108: ByteProgram = _formula_108()
CANCEL_97: ByteProgram = (
    ("a", "add", "x0", "x1"), ("c", "add", "x2", "x3"),
    ("p", "add", "x1", "c"), ("q", "add", "x3", "a"),
    ("da", "x2", "a"), ("o0", "add", "da", "p"),
    ("dc", "x2", "c"), ("o2", "add", "dc", "q"),
    ("e", "add", "x0", "x2"), ("de", "x2", "e"),
    ("u", "add", "de", "a"), ("v", "add", "de", "c"),
    ("o1", "add", "o0", "u"), ("o3", "add", "o2", "v"),
)


CIRCUITS = {"formula108": FORMULA_108, "cancel97": CANCEL_97}


def program(name: str) -> ByteProgram:
    if name not in CIRCUITS:
        raise ValueError(f"unknown MixColumns circuit {name!r} (known: {', '.join(CIRCUITS)})")
    return CIRCUITS[name]


def gates(prog: ByteProgram) -> tuple[list[tuple[int, int]], list[int]]:
    """(gates, outputs): word gates as operand pairs over indices 0..31 (input word 8r + i) then
    32, 33, ... (gate k is index 32 + k); outputs[8r + i] the index of output word (r, i)."""
    names = {f"x{r}": [8 * r + i for i in range(BITS)] for r in range(ROWS)}
    out: list[tuple[int, int]] = []

    def gate(a: int, b: int) -> int:
        out.append((a, b))
        return WORDS + len(out) - 1
    for name, kind, *args in prog:
        if name in names:
            raise ValueError(f"{name!r} is defined twice")
        try:
            ops = [names[a] for a in args]
        except KeyError as e:
            raise ValueError(f"{name!r} reads {e.args[0]!r} before it is defined") from None
        if kind == "add":
            names[name] = [gate(ops[0][i], ops[1][i]) for i in range(BITS)]
        elif kind == "x2":
            y = ops[0]
            names[name] = [y[7]] + [gate(y[i - 1], y[7]) if i in XTIME_FEEDBACK else y[i - 1]
                                    for i in range(1, BITS)]
        else:
            raise ValueError(f"unknown step kind {kind!r}")
    return out, [w for r in range(ROWS) for w in names[f"o{r}"]]



def evaluate(gate_list, outputs) -> list[int]:
    """Each output word as a 32-bit mask of the input words it XORs (a row of the matrix)."""
    v = [1 << k for k in range(WORDS)]
    for a, b in gate_list:
        v.append(v[a] ^ v[b])
    return [v[o] for o in outputs]


def _xtime_masks(y: list[int]) -> list[int]:
    return [y[7]] + [y[i - 1] ^ (y[7] if i in XTIME_FEEDBACK else 0) for i in range(1, BITS)]


def matrix() -> list[int]:
    """MixColumns' 32 x 32 matrix from FIPS-197's definition (coefficients 2, 3, 1, 1 rotating):
    row 8r + i the mask of input words output word (r, i) XORs."""
    x = [[1 << (8 * r + i) for i in range(BITS)] for r in range(ROWS)]
    mul = {1: lambda y: y, 2: _xtime_masks,
           3: lambda y: [p ^ q for p, q in zip(_xtime_masks(y), y)]}
    rows = []
    for r in range(ROWS):
        terms = [mul[(2, 3, 1, 1)[(k - r) % 4]](x[k]) for k in range(ROWS)]
        rows += [reduce(lambda p, q: p ^ q, (t[i] for t in terms)) for i in range(BITS)]
    return rows


def check(prog: ByteProgram) -> int:
    """The program's XOR count; ValueError unless it computes MixColumns exactly."""
    g, outs = gates(prog)
    if evaluate(g, outs) != matrix():
        raise ValueError("the circuit does not compute AES MixColumns")
    return len(g)
