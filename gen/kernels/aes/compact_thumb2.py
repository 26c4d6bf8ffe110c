"""Counter mode with per-round subroutines: the AES kernel of the "size" objective (issue 19).

The trick: the speed kernels (gen/kernels/aes/thumb2.py, ctr_thumb2.py) are straight line, every
round its own copy of the 113-gate S-box (about 0.8 KB of Thumb-2 per round).  Here each
*distinct* round exists once, as a generated Thumb-2 function on a state of 8 bit planes in
memory, and a C loop calls them (the layout of aadomn/aes's armcortexm/fixslicing, whose round
functions are subroutines called per round, as quoted in issue 19; the code here is generated
from this project's IR, not taken from there):

* ``{p}_aes_first(st, in)``: two counter blocks packed into planes (SWAPMOVE);
* ``{p}_aes_rnd{k}(so, si, rk)``: AddRoundKey of rk[0..7], the S-box, then the linear layer of
  round kind k (``thumb2.segment_kinds``: ffs has four MixColumns variants, sfs two, one of them
  with an explicit packed ShiftRows^2); rk points at the round key of the round before;
* ``{p}_aes_last(out, st, rk, msg)``: AddRoundKey, the S-box, the final AddRoundKey, unpacking,
  the leftover ShiftRows, the XOR with the message.

The C loop calls round j's function (1..Nr-1) in round order, straight line; the only loop
count is the pair count (public), so the code stays constant time.  Each function is
compiled by gen/kernels/thumb2_function.compile_function (list schedule in the stored
evaluation orders of thumb2_orders.py, Belady allocation, post-scheduling, STRD and reload
pairing).  The price is a call, 8 plane loads and 8 plane stores per round.
"""
from __future__ import annotations

from dataclasses import dataclass

from gen.ir import Builder
from gen.isa import thumb2 as t2
from gen.kernels.aes import fixsliced as AF
from gen.kernels.aes import thumb2 as A
from gen.kernels.thumb2_function import Param, compile_function


@dataclass
class CompactCode:
    code: str                 # C: prototypes + file-scope __asm__ of the round functions + the C loop
    pair_cycles: int          # modelled cycles of the calls of one pair (functions only, not the C loop)
    functions: dict           # name -> Function.summary()


def _round_program(kind: str):
    """ARK(rk[0..7]) + S-box + the linear layer of ``kind`` ('lin:e:v'), planes si -> so;
    segments and ranks as the speed kernel's ('ark+sbox', then '-lin:e:v')."""
    b = Builder(f"aes_round_{kind}", is_imm=t2.is_imm)
    b.declare("so", 8, "w")
    b.declare("si", 8, "r")
    b.declare("rk", 8, "r", constant=True)
    q = [b.ld("si", i) for i in range(8)]
    marks = [len(b.ops)]
    q = AF.emit_sbox(b, AF.emit_add_round_key(b, q, 0))
    marks.append(len(b.ops))
    _, e, v = kind.split(":")
    if e == "2":
        q = AF.emit_packed_shiftrows2(b, q)
    q = AF.emit_mixcolumns(b, q, int(v))
    marks.append(len(b.ops))
    for i in range(8):
        b.st("so", i, q[i])
    prog = b.finish()
    assert len(prog.ops) == len(b.ops), "dead code in a round function"
    segment, rank = [0] * len(prog.ops), [None] * len(prog.ops)
    lin = A.ORDERS.get("-" + kind) or A._filtered(A.ORDERS.get(kind), len(A.ORDERS.get(kind) or ()))
    for s, (lo, hi, order) in enumerate(((marks[0], marks[1], A.ORDERS.get("ark+sbox")),
                                         (marks[1], marks[2], lin))):
        pos = {g: k for k, g in enumerate(order)} if order and len(order) == hi - lo else None
        for i in range(lo, hi):
            segment[i] = s + 1
            rank[i] = pos[i - lo] if pos else None
    for i in range(marks[2], len(prog.ops)):
        segment[i] = 3
    return prog, segment, rank


def _first_program():
    b = Builder("aes_first", is_imm=t2.is_imm)
    b.declare("st", 8, "w")
    b.declare("in", 8, "r")
    q = AF.emit_pack(b, [b.ld("in", i) for i in range(8)])
    for i in range(8):
        b.st("st", i, q[i])
    return b.finish()


def _last_program(nr: int, slicing: str):
    b = Builder("aes_last", is_imm=t2.is_imm)
    b.declare("out", 8, "w")
    b.declare("st", 8, "r")
    b.declare("rk", 16, "r", constant=True)
    b.declare("msg", 8, "r")
    q = AF.emit_sbox(b, AF.emit_add_round_key(b, [b.ld("st", i) for i in range(8)], 0))
    w = AF.emit_unpack(b, AF.emit_add_round_key(b, q, 1))
    if AF.alignments(nr, slicing)[nr] % 4 == 2:
        w = AF.emit_natural_shiftrows2(b, w)
    for i in range(8):
        b.st("out", i, b.eor(w[i], b.ld("msg", i)))
    return b.finish()


def _best(prog, name, params, core, seed, **kw):
    """The cheaper (cycle model) of a homed and a pinned round-key base."""
    cands = [compile_function(prog, name, params, core, seed, **kw)]
    if "rk" in prog.mems:
        cands.append(compile_function(prog, name, params, core, seed, pinned=("rk",), **kw))
    return min(cands, key=lambda f: (f.cycles, len(f.insns)))


def thumb2(prefix: str, keybits: int, slicing: str, core: str, seed: int = 0) -> CompactCode:
    nr = AF.check_args(keybits, slicing)
    kinds = A.segment_kinds(keybits, slicing)[:-1]          # rounds 1..nr-1; round nr is 'last'
    distinct = sorted(set(kinds), key=kinds.index)
    p = prefix
    fns, texts = {}, []
    first = compile_function(_first_program(), f"{p}_aes_first",
                             [Param("st", "uint32_t *", "st"), Param("in", "const uint8_t *", "in")], core, seed)
    fns[first.name] = first
    rounds = []
    for k, kind in enumerate(distinct):
        prog, segment, rank = _round_program(kind)
        f = _best(prog, f"{p}_aes_rnd{k}", [Param("so", "uint32_t *", "so"), Param("si", "const uint32_t *", "si"),
                                            Param("rk", "const uint32_t *", "rk")], core, seed,
                  segments=segment, rank=rank)
        fns[f.name] = f
        rounds.append((kind, f))
    last = _best(_last_program(nr, slicing), f"{p}_aes_last",
                 [Param("out", "uint8_t *", "out"), Param("st", "const uint32_t *", "st"),
                  Param("rk", "const uint32_t *", "rk"), Param("msg", "const uint8_t *", "msg")], core, seed)
    fns[last.name] = last
    for f in fns.values():
        texts.append(f.c_text(f"/* {f.name}: {f.summary()['instructions']} instructions, {f.cycles} cycles "
                              f"(cycle model), stack {f.stack_bytes} bytes; gen/kernels/aes/compact_thumb2.py */"))
    by_kind = dict(rounds)
    calls = "\n".join(f"        {by_kind[kind].name}(st, st, rk + {8 * (j - 1)}u);    /* round {j}: {kind} */"
                      for j, kind in enumerate(kinds, start=1))
    loop = f"""/* {p}_ctr_pairs (objective size): counter mode over n >= 1 pairs, out = in ^ E(cb) with cb's two
 * big-endian counters (bytes 12..15, 28..31) advanced by 2 per pair; AES-{keybits} {slicing} as per-round
 * subroutines (gen/kernels/aes/compact_thumb2.py), called in round order (no branch but the loops'). */
static void {p}_ctr_pairs(const uint32_t *rk, uint8_t *out, uint8_t *cb, const uint8_t *in, size_t n)
{{
    uint32_t st[8], c;
    unsigned k;
    for (; n; n--, in += 32, out += 32) {{
        {p}_aes_first(st, cb);
{calls}
        {p}_aes_last(out, st, rk + {8 * (nr - 1)}u, in);
        for (k = 12u; k < 32u; k += 16u) {{            /* both counters += 2 (GCM inc32, mod 2^32) */
            c = ((uint32_t)cb[k] << 24 | (uint32_t)cb[k + 1u] << 16 | (uint32_t)cb[k + 2u] << 8 | cb[k + 3u]) + 2u;
            cb[k] = (uint8_t)(c >> 24); cb[k + 1u] = (uint8_t)(c >> 16); cb[k + 2u] = (uint8_t)(c >> 8);
            cb[k + 3u] = (uint8_t)c;
        }}
    }}
    {p}_zero32(st, 8u);
}}
"""
    per_round = {kind: f.cycles for kind, f in rounds}
    pair = first.cycles + sum(per_round[k] for k in kinds) + last.cycles
    return CompactCode(code="\n".join(texts) + "\n" + loop, pair_cycles=pair,
                       functions={n: f.summary() for n, f in fns.items()})
