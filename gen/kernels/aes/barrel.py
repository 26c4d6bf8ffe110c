"""Barrel-shiftrows AES-128/192/256 encryption of eight blocks at once, built as IR (for RV32).

The representation (Adomnicai & Peyrin, "Fixslicing AES-like ciphers", TCHES 2021/1, the
barrel-shiftrows section): eight blocks are 32 words, one per (row r, bit i); bit 8c + b of word
(r, i) is bit i of byte (r, c) of block b.  A column is a byte position in every word, so

* the S-box is the bitsliced circuit (gen/circuits/aes_sbox.py) on the eight words of each row;
* ShiftRows rotates row r's words right by 8r (column c + r moves to column c): 24 rotations a
  round, the only rotations of the cipher (three instructions each on RV32I);
* MixColumns combines the rows' words at the same positions: pure XORs, no rotation at all
  (out_r = xtime(x_r ^ x_r+1) ^ x_r+1 ^ x_r+2 ^ x_r+3, xtime a re-indexing of the bit words),
  computed by a 97-XOR circuit with cancellations (gen/circuits/mixcolumns_xor.py) where the
  formula takes 108.

Packing is a 32x32 bit transpose (input word 8c + b -> state word 8r + i): 80 SWAPMOVEs, the
same network unpacks (a transpose is its own inverse).  The round keys come in that layout
(``round_key_words``), with the S-box's affine constant 0x63 folded into rounds 1..nr as in the
fixsliced kernels.  ``in`` and ``out`` may be the same buffer.
"""
from __future__ import annotations

from gen.circuits import aes_sbox
from gen.circuits import mixcolumns_xor
from gen.ir import Builder, Program
from gen.kernels.aes.fixsliced import ROUNDS, emit_sbox, emit_swapmove

BLOCKS = 8
WORDS = 32
#: (distance, mask) of the transpose's five SWAPMOVE stages (mask: positions whose bit
#: ``distance`` of the index is clear)
TRANSPOSE_STEPS = ((16, 0x0000FFFF), (8, 0x00FF00FF), (4, 0x0F0F0F0F), (2, 0x33333333), (1, 0x55555555))
#: MixColumns' XOR circuit (gen/circuits/mixcolumns_xor.py): 97 XORs with cancellations against
#: the formula's 108; through the same emitter AES-128 9,103 -> 8,978 cycles, AES-192 10,713 ->
#: 10,565, AES-256 12,331 -> 12,148 (E31 model, best of seeds 0-7)
MIXCOLUMNS = "cancel97"


def check_keybits(keybits: int) -> int:
    if keybits not in ROUNDS:
        raise ValueError(f"keybits must be one of 128, 192, 256 (got {keybits!r})")
    return ROUNDS[keybits]


#: the transpose's stages commute (each swaps one bit of the word index with the same bit of the
#: bit position): ACROSS mixes words 8 and 16 apart, WITHIN the eight words of a row
ACROSS, WITHIN = TRANSPOSE_STEPS[:2], TRANSPOSE_STEPS[2:]


def emit_stages(b: Builder, x: dict, steps) -> dict:
    """The SWAPMOVEs of ``steps`` between the words of ``x`` ({index: vreg}, in place): x[k]'s
    bits at mask << n swap with x[k + n]'s bits at mask (Hacker's Delight's transpose)."""
    for n, mask in steps:
        for k in sorted(x):
            if not k & n and k + n in x:
                x[k], x[k + n] = emit_swapmove(b, x[k], x[k + n], mask, n)
    return x


def emit_pack_across(b: Builder, words: list[int]) -> list[int]:
    """in[4b + c] (block b, column c, byte r at bits 8r..) as x[8c + b], then the ACROSS stages
    block by block (a block's four words): z[8r + b] holds bits 8c + i."""
    z = [0] * WORDS
    for blk in range(BLOCKS):
        for k, v in emit_stages(b, {8 * c + blk: words[4 * blk + c] for c in range(4)}, ACROSS).items():
            z[k] = v
    return z


def emit_pack_row(b: Builder, z: list[int], r: int) -> list[int]:
    """Row r's eight state words (bit i at index i) from z: the WITHIN stages."""
    x = emit_stages(b, {8 * r + q: z[8 * r + q] for q in range(8)}, WITHIN)
    return [x[8 * r + i] for i in range(8)]


def emit_unpack_row(b: Builder, row: list[int], r: int) -> list[int]:
    x = emit_stages(b, {8 * r + i: row[i] for i in range(8)}, WITHIN)
    return [x[8 * r + q] for q in range(8)]


def emit_unpack_across(b: Builder, y: list[int], blk: int) -> list[int]:
    """Block blk's four natural words (columns 0-3) from the rows' unpacked words."""
    x = emit_stages(b, {8 * m + blk: y[8 * m + blk] for m in range(4)}, ACROSS)
    return [x[8 * c + blk] for c in range(4)]


def _deps(gate_list, word: int) -> set[int]:
    """The gates (indices >= 32) word ``word`` is computed from, itself included."""
    seen, todo = set(), [word]
    while todo:
        w = todo.pop()
        if w >= mixcolumns_xor.WORDS and w not in seen:
            seen.add(w)
            todo.extend(gate_list[w - mixcolumns_xor.WORDS])
    return seen


def emit_mixcolumns(b: Builder, x: list[list[int]], circuit: str = MIXCOLUMNS, key=None,
                    mark=lambda: None) -> list[list[int]]:
    """MixColumns as the XOR circuit ``circuit`` of gen/circuits/mixcolumns_xor.py (no rotation:
    whole words), emitted bit by bit so that few words are live at once: a first phase with the
    gates bit 0's outputs share with other bits (the doubled terms' bit 7, which every bit's
    xtime reads), then for each bit i the gates its four outputs still need, in the circuit's
    order; ``key(r, i, v)`` (AddRoundKey) is applied to each output word as it is made (an output
    a later one is built from stays the circuit's value); ``mark()`` starts a phase."""
    key = key or (lambda r, i, v: v)
    gate_list, outs = mixcolumns_xor.gates(mixcolumns_xor.program(circuit))
    n_in = mixcolumns_xor.WORDS
    val = {8 * r + i: x[r][i] for r in range(4) for i in range(8)}
    need = [set().union(*(_deps(gate_list, outs[8 * r + i]) for r in range(4))) for i in range(8)]
    first = need[0] & set().union(*need[1:])
    out = [[None] * 8 for _ in range(4)]
    for i, group in [(None, first)] + list(enumerate(need)):
        mark()
        for g in sorted(group - set(val)):
            a, c = gate_list[g - n_in]
            val[g] = b.eor(val[a], val[c])
        if i is not None:
            for r in range(4):
                out[r][i] = key(r, i, val[outs[8 * r + i]])
    return out


def rk_words(nr: int) -> int:
    """Round-key words: the first and last round keys as 4 natural words (their XOR is on the
    natural block words, before packing and after unpacking: 4 loads instead of 32), rounds
    1..nr-1 as 32 state words each."""
    return 8 + WORDS * (nr - 1)


def add_round_key_word(b: Builder, j: int, r: int, i: int, x: int) -> int:
    """Round j (1..nr-1)'s key word (r, i) XORed into x."""
    return b.eor(x, b.ld("rk", 4 + WORDS * (j - 1) + 8 * r + i))


def emit_natural_round_key(b: Builder, words: list[int], at: int) -> list[int]:
    """A round key kept as 4 natural words (rk[at..at+3]: its columns) XORed into 8 blocks."""
    k = [b.ld("rk", at + c) for c in range(4)]
    return [b.eor(w, k[n % 4]) for n, w in enumerate(words)]


def encrypt8_ir(keybits: int, circuit: str = aes_sbox.DEFAULT, phases: list | None = None,
                mixcolumns: str = MIXCOLUMNS) -> Program:
    """IR program: out[0..31] = AES-Enc(rk, in[0..31]) for eight blocks (module docstring).
    The transpose is split where its stages let it be: the ACROSS stages block by block before
    the first round and after the last, the WITHIN stages of a row next to that row's first and
    last S-box, so a row is packed when its S-box needs it.  ``phases`` (optional) gets, for every
    op, the number of its phase (packing, each row's S-box and ShiftRows, MixColumns bit by bit,
    unpacking: in program order), for a scheduler that keeps them apart (``segments``)."""
    nr = check_keybits(keybits)
    b = Builder(f"aes{keybits}_barrel_encrypt8")
    b.declare("in", WORDS, "r")
    b.declare("rk", rk_words(nr), "r", constant=True)
    b.declare("out", WORDS, "w")
    starts = []
    mark = lambda: starts.append(len(b.ops))
    mark()
    z = emit_pack_across(b, emit_natural_round_key(b, [b.ld("in", k) for k in range(WORDS)], 0))
    state: list = [None] * 4
    for j in range(1, nr + 1):
        rows = []
        for r in range(4):
            mark()
            out = emit_sbox(b, emit_pack_row(b, z, r) if j == 1 else state[r], circuit)
            out = out if r == 0 else [b.ror(x, 8 * r) for x in out]          # ShiftRows
            rows.append(out if j < nr else emit_unpack_row(b, out, r))
        state = emit_mixcolumns(b, rows, mixcolumns, lambda r, i, v: add_round_key_word(b, j, r, i, v), mark) \
            if j < nr else rows
    mark()
    y = [w for row in state for w in row]
    last = 4 + WORDS * (nr - 1)
    k = [b.ld("rk", last + c) for c in range(4)]
    for blk in range(BLOCKS):
        for c, w in enumerate(emit_unpack_across(b, y, blk)):
            b.st("out", 4 * blk + c, b.eor(w, k[c]))
    prog = b.finish()
    if phases is not None:
        assert len(prog.ops) == len(b.ops), "dead ops: the phases would not match"
        bounds = starts[1:] + [len(b.ops)]
        phases[:] = [n for n, end in enumerate(bounds) for _ in range(end - starts[n])]
    return prog


# ---- the round keys' layout (the C key schedule computes the same: barrel_keyschedule_c) ----

def round_key_words(round_keys: list[bytes]) -> list[int]:
    """FIPS-197 round keys (16 bytes each) -> the kernel's ``rk`` (``rk_words``): round 0 and
    round nr (XOR 0x63 in every byte) as their 4 little-endian column words; between them, round
    j's word 4 + 32(j - 1) + 8r + i has byte c all ones where bit i of byte (r, c) of round key j
    XOR 0x63 is set."""
    nr = len(round_keys) - 1
    col = lambda k, c, x: int.from_bytes(bytes(v ^ x for v in k[4 * c: 4 * c + 4]), "little")
    out = [col(round_keys[0], c, 0) for c in range(4)]
    for j, k in enumerate(round_keys[1:nr], 1):
        for r in range(4):
            for i in range(8):
                w = 0
                for c in range(4):
                    byte = k[4 * c + r] ^ (aes_sbox.NOT_MASK if j else 0)
                    if byte >> i & 1:
                        w |= 0xFF << (8 * c)
                out.append(w)
    return out + [col(round_keys[nr], c, aes_sbox.NOT_MASK) for c in range(4)]
