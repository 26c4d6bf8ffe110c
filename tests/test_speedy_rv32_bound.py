"""SPEEDY on RV32I (no rotate): what docs/riscv.md's bound rests on.  MixColumns' column: the two
searches, each asserted on an instance small enough for seconds (the full runs: ``make
mixcolumns-bound``, gen/circuits/rotxor_cost.py and gen/circuits/shiftxor_min.py); the packing
transposes: the alternatives measured as no cheaper."""
from gen.ciphers import speedy
from gen.circuits import rotxor_chain, rotxor_cost, shiftxor_bound, shiftxor_min
from gen.kernels import bitperm
from gen.kernels.speedy import layout
from gen.kernels.speedy.rounds import mix_plan

T = rotxor_chain.mask_of(speedy.MC_OFFSETS)


def test_the_searches_know_speedys_offsets():
    assert shiftxor_min.SPEEDY_MC == speedy.MC_OFFSETS


def _mix_plan_as_shifts() -> list:
    """The kernel's 20-instruction column (mix_plan: t = x ^ rotl(x, d), then XORs of rotations
    of t and x), every rotation spelled slli, srli, or (as XOR of disjoint parts)."""
    d, bases, singles = mix_plan(speedy.MC_OFFSETS)
    prog: list = []

    def rot_xor(acc, src, k):            # acc ^ rotl(src, k): 4 instructions
        n = len(prog) + 1
        prog.extend([(k, src, None), (-(32 - k), src, None), (0, n, n + 1), (0, acc, n + 2)])
        return n + 3

    t = rot_xor(0, 0, d)
    terms = [(t, a) for a in bases] + [(0, s) for s in singles]
    (acc, r0), rest = terms[0], terms[1:]
    assert r0 == 0 and acc == t
    for src, a in rest:
        acc = rot_xor(acc, src, a)
    return prog


def test_the_kernels_column_is_20_instructions_and_right_on_every_word():
    prog = _mix_plan_as_shifts()
    assert len(prog) == 20
    assert shiftxor_min.computes(prog, speedy.MC_OFFSETS) == 0
    broken = prog[:-1] + [(0, prog[-1][1], 1)]
    assert shiftxor_min.computes(broken, speedy.MC_OFFSETS) is None


def test_a_column_without_rotations_costs_22():
    """Left shifts: u = x ^ x << 5, u ^ u << 21 ^ ((x << 6 ^ x) << 8 ^ x) << 1 (10); right shifts:
    a Horner chain for x >> 6 ^ x >> 11 ^ x >> 17 ^ x >> 23 ^ x >> 27 ^ x >> 31 (11); one XOR."""
    left = [(5, 0, None), (0, 0, 1), (21, 2, None), (0, 2, 3), (6, 0, None), (0, 0, 5),
            (8, 6, None), (0, 0, 7), (1, 8, None), (0, 4, 9)]
    right = [(-4, 0, None), (0, 0, 11), (-4, 12, None), (0, 0, 13), (-6, 14, None), (0, 0, 15),
             (-6, 16, None), (0, 0, 17), (-5, 18, None), (0, 0, 19), (-6, 20, None)]
    prog = left + right + [(0, 10, 21)]          # L ^ R
    assert len(prog) == 22
    assert shiftxor_min.computes(prog, speedy.MC_OFFSETS) == 0


def test_rotation_model_search_is_exact_on_small_targets():
    # (1 + z^5) takes one rotate-and-XOR; (1 + z)(1 + z^2) and (1 + z^5)(1 + z^21) two
    assert rotxor_cost.min_cost(rotxor_chain.mask_of((0, 5)), 8) == 4
    assert rotxor_cost.min_cost(rotxor_chain.mask_of((0, 1, 2, 3)), 10) == 8
    assert rotxor_cost.min_cost(rotxor_chain.mask_of((0, 5, 21, 26)), 10) == 8
    # weight 3 needs two rotations whatever the plain XORs: 8, and nothing at 7
    assert rotxor_cost.min_cost(rotxor_chain.mask_of((0, 3, 7)), 7) is None
    assert rotxor_cost.min_cost(rotxor_chain.mask_of((0, 3, 7)), 8) == 8


def test_rotation_model_speedy_nothing_within_11():
    assert rotxor_cost.min_cost(T, 11) is None


def test_shift_model_search_finds_the_minimum_and_proves_below_it():
    st, prog, r, _ = shiftxor_min.exact_n(4, (0, 5))
    assert st == "sat" and len(prog) == 4 and shiftxor_min.computes(prog, (0, 5)) == r
    # nothing of 3: the counter-example loop ended on UNSAT
    assert shiftxor_min.exact_n(3, (0, 5))[0] == "unsat"


def test_shift_model_speedy_nothing_within_3():
    n, proofs = shiftxor_min.min_cost(speedy.MC_OFFSETS, 3)
    assert n is None and [p[0] for p in proofs] == [1, 2, 3]


# ---- the packing transposes: the alternatives docs/riscv.md reports as no cheaper ----

def _l_gather(a: int, b: int) -> dict:
    """The gather into the 8-word intermediate layout for the row order i -> a i + b."""
    pi = lambda i: (a * i + b) % 32
    return {(pi(i) % 8, 31 - 8 * (pi(i) // 8) - c): layout.halves_position(6 * i + c)
            for i in range(32) for c in range(6)}


def test_no_row_order_makes_the_packing_gather_smaller():
    sizes = {sum(len(g) for g in bitperm.groups(_l_gather(a, b)).values())
             for a in range(1, 32, 2) for b in range(32)}
    assert sizes == {24}                          # today's order (a, b) = (1, 0) has 24 groups


def test_a_direct_gather_to_columns_costs_more_than_the_network():
    def rv32_ops(perm):            # per destination word: an AND per group, a shift per moved
        return sum(2 * len(g) - 1 + sum(1 for (_, rot) in g if rot)       # group, XORs between
                   for g in bitperm.groups(perm).values())
    direct = {(c, 31 - i): layout.halves_position(6 * i + c) for i in range(32) for c in range(6)}
    assert sum(len(g) for g in bitperm.groups(direct).values()) == 96
    assert rv32_ops(direct) == 276
    # today's: halves 24 + gather 62 + network 68 ALU instructions after the RV32 split
    assert rv32_ops(_l_gather(1, 0)) == 62


# ---- with any shifts: at least 9 instructions a column (gen/circuits/shiftxor_bound.py) ----

def test_doubling_chains_none_computes_speedys_column():
    passing, found = shiftxor_bound.doubling_chains(speedy.MC_OFFSETS)
    assert found == [] and passing == 0


def test_the_chain_filter_keeps_what_it_must():
    # {0, 16}: diagonals 0, 16, -16, the path offsets of any chain starting (16, -16)
    assert shiftxor_bound.diagonals((0, 16), 0) == {0, 16, -16}
    carrying = set(shiftxor_bound.chains_carrying((0, 16)))
    assert all((16, -16, c, d) in carrying for c in shiftxor_bound.SHIFTS for d in shiftxor_bound.SHIFTS)
    # a chain's program is what the argument counts: 8 instructions, 16 paths
    prog = shiftxor_bound.chain_program((3, -7, 11, -2))
    assert len(prog) == 8 and sum(1 for d, _, j in prog if j is not None) == 4
    # and its output is the XOR over the 16 subset sums of x shifted (masked) by them
    x = 0x9E3779B9
    want = 0
    for a in (0, 3):
        for b in (0, -7):
            for c in (0, 11):
                for d in (0, -2):
                    v = x
                    for s in (a, b, c, d):
                        v = (v << s) & 0xFFFFFFFF if s > 0 else v >> -s
                    want ^= v
    assert shiftxor_min.evaluate(prog, x) == want
