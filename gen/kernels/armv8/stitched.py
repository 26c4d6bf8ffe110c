"""The stitched GCM encrypt kernel: ``{p}_ctr_ghash_pairs(rk, out, cb, in, npairs, hk, y, tab)``:
counter mode over npairs pairs of blocks (as ctr.py) AND GHASH of the ciphertext it writes,
y = (...((y ^ c_1) H ^ c_2) H ...) H, in one loop.

The trick (Gouvea & Lopez, CT-RSA 2015, section 4; as OpenSSL's stitched kernels): the AES
rounds of group k and the PMULLs of group k - 1's ciphertext interleave to fill each other's
latency gaps (software-pipelined loop); with a 96-bit IV round 1 comes from ctr_table.py's table.
The pipeline, the registers and `spread`: docs/internals/armv8.md.
"""
from __future__ import annotations

from gen.kernels.armv8 import aes, ghash
from gen.kernels.armv8.asm import function
from gen.cores.aarch64 import fused_pair

VCTR, VB = "v31", "v15"     # the counter block (REV32 form); base ^ rk1 of the run (run_base), or
                            # (0, 0, 0, 1) in a plain group
RUN = "w14"     #: the run (counter >> 8) whose base v15 holds; -1 (none) at entry and after a plain group
G = {"X": "v8", "P": "v9", "T": "v10", "lo": "v11", "hi": "v12", "mid": "v13", "T2": "v14"}
#: the registers ghash.reduce uses here: the constant in X (or a spare register, hoist_c), y left in hi
R = {"lo": G["lo"], "hi": G["hi"], "mid": G["mid"], "C": G["X"], "Y": G["hi"], "t": (G["T"],)}
SPREADS = ("even", "early", "late")
#: the GHASH form of the loop's group (choose.choose_ghash_form): the blocks that may start a
#: Karatsuba pair (_pair_product) and whether the reduction constant is hoisted (hoist_c); PLAIN:
#: every block alone, the constant made each group
PLAIN = (frozenset(), False)


def _acc(first: bool, acc: str, insn: str) -> list[str]:
    if first:
        return [insn.format(d=acc)]
    return [insn.format(d=G["T2"]), f"eor {acc}.16b, {acc}.16b, {G['T2']}.16b"]


def _product(i: int, n: int, method: str, shift: int = 0, far: dict | None = None, first: bool | None = None,
             regs: bool = False) -> list[str]:
    """Block i of a group of n (read from x8, or with `regs` in v_i, loaded and REV64-ed) times
    H^(n - i + shift), added to lo/hi/mid (`first`: the group's first product, which starts them;
    block 0's by default); `far` maps a power beyond hk's eight to the addresses of its two words
    (Karatsuba only)."""
    X, P, T, p = (f"v{i}" if regs else G["X"]), G["P"], G["T"], n - i + shift
    first = i == 0 if first is None else first
    swapped, kword = (far or {}).get(p, (f"[x5, #{16 * (p - 1)}]", f"[x5, #{256 + 16 * ((p - 1) // 2)}]"))
    out = _halves(X, swapped, first, i == 0 and not regs, not regs)
    if method == "karatsuba":
        out += [f"ext {T}.16b, {X}.16b, {X}.16b, #8", f"eor {X}.16b, {X}.16b, {T}.16b",
                f"ldr q{P[1:]}, {kword}"]
        mul, lane = ("pmull", "1d") if p % 2 else ("pmull2", "2d")
        out += _acc(first, G["mid"], f"{mul} {{d}}.1q, {X}.{lane}, {P}.{lane}")
    else:
        out.append(f"ldr q{P[1:]}, [x5, #{128 + 16 * (p - 1)}]")        # H^p unswapped
        out += _acc(first, G["mid"], f"pmull {{d}}.1q, {X}.1d, {P}.1d")
        out += _acc(False, G["mid"], f"pmull2 {{d}}.1q, {X}.2d, {P}.2d")
    return out


def _halves(X: str, swapped: str, first: bool, y: bool, load: bool = True) -> list[str]:
    """(`load`) the next block at x8 into X, REV64-ed, y added (`y`: the group's block 0); then X
    times H^p (`swapped`, its halves swapped) half by half into hi and lo (`first`: started)."""
    P = G["P"]
    out = [f"ldr q{X[1:]}, [x8], #16", f"rev64 {X}.16b, {X}.16b"] if load else []
    if y:
        out.append(f"eor {X}.16b, {X}.16b, {G['hi']}.16b")          # y ^ c_1
    out.append(f"ldr q{P[1:]}, {swapped}")
    out += _acc(first, G["hi"], f"pmull {{d}}.1q, {X}.1d, {P}.1d")
    return out + _acc(first, G["lo"], f"pmull2 {{d}}.1q, {X}.2d, {P}.2d")


def _pair_product(i: int, n: int, shift: int = 0, first: bool | None = None, regs: bool = False) -> list[str]:
    """Blocks i and i + 1 of a group of n, Karatsuba, where block i's power p is even: H^p and
    H^(p - 1) share one Karatsuba word (lane 1 and lane 0; ghash_init's layout), so the two
    blocks' middle operands are made together (TRN1, TRN2 and one EOR put (b.lo ^ b.hi,
    a.lo ^ a.hi) in one register, as the OpenSSL lineage's 8-block kernels do) and multiplied by
    that word's two lanes: 3 vector instructions for two blocks where EXT and EOR a block took 4.
    `first`, `regs`: _product."""
    (A, B), P, p = (f"v{i}", f"v{i + 1}") if regs else (G["X"], G["T"]), G["P"], n - i + shift
    first = i == 0 if first is None else first
    out = (_halves(A, f"[x5, #{16 * (p - 1)}]", first, i == 0 and not regs, not regs)
           + _halves(B, f"[x5, #{16 * (p - 2)}]", False, False, not regs))
    out += [f"trn1 {P}.2d, {B}.2d, {A}.2d", f"trn2 {A}.2d, {B}.2d, {A}.2d", f"eor {A}.16b, {A}.16b, {P}.16b",
            f"ldr q{P[1:]}, [x5, #{256 + 16 * ((p - 1) // 2)}]"]
    if not regs:
        out += _acc(first, G["mid"], f"pmull {{d}}.1q, {A}.1d, {P}.1d")            # block i + 1, H^(p - 1)
        return out + _acc(False, G["mid"], f"pmull2 {{d}}.1q, {A}.2d, {P}.2d")      # block i, H^p
    # (the last hash, the call's tail: latency counts) the two summed in B, free after the TRN2,
    # before they join mid: one accumulation of mid a pair, not two chained
    T2, mid = G["T2"], G["mid"]
    out += [f"pmull {mid if first else T2}.1q, {A}.1d, {P}.1d", f"pmull2 {B}.1q, {A}.2d, {P}.2d"]
    return out + ([f"eor {mid}.16b, {mid}.16b, {B}.16b"] if first else
                  [f"eor {T2}.16b, {T2}.16b, {B}.16b", f"eor {mid}.16b, {mid}.16b, {T2}.16b"])


def hoist_c(nr: int) -> str | None:
    """A vector register free in the stitched kernels for AES with nr rounds (above the round
    keys, below the counter block v31), to hold the reduction constant for the whole call (set by
    c_setup), or None (AES-256: v16-v30 are round keys; the constant is made in X each group)."""
    r = aes.RK_BASE + nr + 1
    return f"v{r}" if r < int(VCTR[1:]) else None


def c_setup(c: str | None) -> list[str]:
    """0xC2 << 56 in each lane of c (nothing for None)."""
    return [f"movi {c}.16b, #0xc2", f"shl {c}.2d, {c}.2d, #56"] if c else []


def ghash_group(n: int, method: str, eor3: bool = False, shift: int = 0, far: dict | None = None,
                c: str | None = None, pairs: frozenset = frozenset(), y_last: bool = False) -> list[str]:
    """Hash the n ciphertext blocks at x8 into y (in hi): products, then one reduction (`shift`:
    each block times one power of H more, for a block folded in after them; `far`: _product; `c`:
    a register holding the reduction constant (hoist_c, c_setup), else it is made in X). With
    Karatsuba, a block whose power is even and the next block (power one less, same Karatsuba
    word, neither `far`) go as one pair (_pair_product) if the block's index is in `pairs`.
    `y_last` (the last group of a call, whose hash is the call's tail; v0..v(n-1) free): the
    blocks are loaded into v0..v(n-1) at offsets from x8 (advanced by one ADD), y is added to
    block 0 and block 0 is multiplied last, so y's chain to the tag is one product, one
    accumulation and the reduction (not n accumulations)."""
    units, i = [], 0
    while i < n:
        p = n - i + shift
        if (method == "karatsuba" and i + 1 < n and p % 2 == 0 and not {p, p - 1} & set(far or {})
                and i in pairs):
            units.append((i, i + 1))
        else:
            units.append((i,))
        i += len(units[-1])
    out = []
    if y_last:
        out += [f"ldr q{i}, [x8, #{16 * i}]" for i in range(n)] + [f"rev64 v{i}.16b, v{i}.16b" for i in range(n)]
        out += [f"eor v0.16b, v0.16b, {G['hi']}.16b", f"add x8, x8, #{16 * n}"]
        units = units[1:] + units[:1]
    for j, u in enumerate(units):
        if len(u) == 2:
            out += _pair_product(u[0], n, shift, j == 0, y_last)
        else:
            out += _product(u[0], n, method, shift, far, j == 0, y_last)
    if c is None:
        c = R["C"]
        out += c_setup(c)
    return out + ghash.reduce(method, {**R, "C": c}, eor3)


def _deal(work: list[str], slots: int, spread: str) -> list[list[str]]:
    """Cut `work` into `slots` consecutive chunks: even, front-loaded or back-loaded."""
    n = len(work)
    if spread == "even":
        cuts = [round(n * k / slots) for k in range(slots + 1)]
    elif spread == "early":                  # all in the first two thirds of the rounds
        m = max(1, (2 * slots) // 3)
        cuts = [round(n * min(k, m) / m) for k in range(slots + 1)]
    else:                                    # "late": from the second round step on
        cuts = [0] + [round(n * (k - 1) / (slots - 1)) for k in range(1, slots + 1)]
    # never between an AESE and the AESMC that fuses with it (work may hold another block's rounds)
    cuts = [c + 1 if 0 < c < n and fused_pair(work[c - 1], work[c]) else c for c in cuts]
    return [work[cuts[k]:cuts[k + 1]] for k in range(slots)]


def aes_group(n: int, nr: int, ghash_work: list[str], spread: str, eor3: bool = False,
              cached: bool = False, premix: tuple[str, ...] = ()) -> list[str]:
    """n counter blocks (counter of the first in w12) encrypted, their rounds interleaved step by
    step, `ghash_work` dealt out among the round steps, then XOR with the message at x3 and store
    to x1 (with `eor3`, the last AddRoundKey and the message XOR are one EOR3). `premix` (free
    vector registers, not with `eor3`): the message blocks are loaded after the first round step
    and XORed with the last round key there, so each block ends in one EOR (not two chained at
    the end, which on the Cortex-A72 model hold the vector queues and cost ~5 cycles a group of
    8); blocks beyond len(premix) the usual way. `cached`: round 1
    of blocks 1..n-1 from the table at x7 (ctr_table.py; the caller checks that the group stays
    in one run of the low counter byte)."""
    body = [] if cached else [f"mov {VCTR}.s[3], w12", f"rev32 v0.16b, {VCTR}.16b"]
    if not cached:      # v15 = (0, 0, 0, 1), so no run's base is in it any more: inc32 is a vector ADD
        body += [f"mov {RUN}, #-1", "mov w13, #1", f"fmov s{VB[1:]}, w13", f"ext {VB}.16b, {VB}.16b, {VB}.16b, #4"]
        for i in range(1, n):
            body += [f"add {VCTR}.4s, {VCTR}.4s, {VB}.4s", f"rev32 v{i}.16b, {VCTR}.16b"]
    steps = [aes.block_rounds(f"v{i}", nr)[:-1] if eor3 else aes.block_rounds(f"v{i}", nr) for i in range(n)]
    if cached:          # block i's state after round 1 is base ^ T(v0 + i) (run_base: v15 = base ^ rk1)
        # AESE XORs its two operands first, so block i's round 2 is AESE of T(v0 + i) (the loaded
        # word, the rest zero) with base ^ round key 1 as the "key": no round 1, no EOR per block
        for i in range(n):
            # the group stays in its run (group() checks), so block i's word is T[(w12 & 0xff) + i]:
            # one address, then n independent loads (no per-block index chain for an in-order core)
            steps[i][0] = (["and w13, w12, #0xff", "add x13, x7, w13, uxtw #2"] if i == 0 else []) + [
                f"ldr s{i}, [x13, #{4 * i}]"]
            steps[i][1] = [f"aese v{i}.16b, {VB}.16b"] + steps[i][1][1:]
    pre = list(premix[:n]) if not eor3 else []
    for i, v in enumerate(pre):                      # the last AddRoundKey is in the premixed message
        steps[i][-1] = [f"eor v{i}.16b, v{i}.16b, {v}.16b"]
    mix = [f"ldp q{pre[j][1:]}, q{pre[j + 1][1:]}, [x3], #32" for j in range(0, len(pre) - 1, 2)]
    mix += [f"ldr q{pre[-1][1:]}, [x3], #16"] if len(pre) % 2 else []
    mix += [f"eor {v}.16b, {v}.16b, {aes.rk(nr)}.16b" for v in pre]
    nsteps = len(steps[0])
    chunks = _deal(ghash_work, nsteps, spread)
    for r in range(nsteps):
        for s in steps:
            body += s[r]
        body += chunks[r] + (mix if r == 1 else [])
    if pre:                                          # blocks past the premixed ones: a freed register
        t = pre[0]
        for i in range(len(pre), n):
            body += [f"ldr q{t[1:]}, [x3], #16", f"eor v{i}.16b, v{i}.16b, {t}.16b"]
        body += [f"stp q{j}, q{j + 1}, [x1], #32" for j in range(0, n, 2)]
        return body + [f"add w12, w12, #{n}"]
    regs = [G["X"], G["P"], G["T"], G["T2"]]
    for g in range(0, n, 4):
        k = min(4, n - g)
        for j in range(0, k, 2):
            body.append(f"ldp q{regs[j][1:]}, q{regs[j + 1][1:]}, [x3], #32")
        body += [f"eor3 v{g + j}.16b, v{g + j}.16b, {regs[j]}.16b, {aes.rk(nr)}.16b" if eor3 else
                 f"eor v{g + j}.16b, v{g + j}.16b, {regs[j]}.16b" for j in range(k)]
        for j in range(0, k, 2):
            body.append(f"stp q{g + j}, q{g + j + 1}, [x1], #32")
    return body + [f"add w12, w12, #{n}"]


def run_base() -> list[str]:
    """v15 = base ^ round key 1 for the counter's run, unless it holds that run's already: base is
    the state after round 1 of the run's block with low byte 0, minus T(0) (ctr_table.py), so
    block v's state after round 1 is base ^ T(v). Once per run of 256 counters; v14 is free
    between groups. Branches on the counter (public: the table is only given for 96-bit IVs)."""
    return ["lsr w13, w12, #8", f"cmp w13, {RUN}", "b.eq 9f", f"mov {RUN}, w13", "lsl w13, w13, #8",
            f"mov {VCTR}.s[3], w13", f"rev32 {VB}.16b, {VCTR}.16b", f"aese {VB}.16b, {aes.rk(0)}.16b",
            f"aesmc {VB}.16b, {VB}.16b", "ldr s14, [x7]", f"eor {VB}.16b, {VB}.16b, v14.16b",
            f"eor {VB}.16b, {VB}.16b, {aes.rk(1)}.16b", "9:"]


RUN_INIT = [f"mov {RUN}, #-1"]


def group(n: int, nr: int, ghash_work: list[str], spread: str, eor3: bool,
          premix: tuple[str, ...] = ()) -> list[str]:
    """A group with the table when there is one (x7 != 0) and the n counters share their run,
    else the plain group. Branches on x7 and the counter: both public when x7 is given."""
    return (["cbz x7, 7f", "and w13, w12, #0xff", f"cmp w13, #{256 - n}", "b.hi 7f"] + run_base()
            + aes_group(n, nr, ghash_work, spread, eor3, cached=True, premix=premix) + ["b 8f", "7:"]
            + aes_group(n, nr, ghash_work, spread, eor3, premix=premix) + ["8:"])


def pairs_loop(nr: int, unroll: int, method: str, spread: str, eor3: bool,
               first_work: tuple[str, ...] = (), last_hash=None, zero_work: tuple[str, ...] | None = None,
               form: tuple = PLAIN, setup: tuple[str, ...] = ()) -> list[str]:
    """The kernel's work on x4 pairs (counter in w12, y in hi, x8 = x1, RUN_INIT done), from the
    first count check to the label ``5:`` (exclusive): prologue group, loop, epilogue, or the
    short paths for fewer than unroll / 2 pairs. ``first_work`` (independent instructions, e.g.
    another block's rounds: seal.py's E(J0)) runs exactly once on every path, dealt among the
    first group's round steps (``zero_work`` instead when there are no pairs); ``last_hash(n,
    c)`` hashes the last n blocks (ghash_group with y_last by default; c the constant's register
    or None). ``form``: the loop's GHASH form (PLAIN; choose.choose_ghash_form); the
    hashes outside the loop pair every block they can. With a hoisted constant it is set first,
    in hoist_c(nr), and stays set after label 5. ``setup`` runs before the first whole group
    only (seal.py: the first run's base)."""
    pairs, hoist = form
    c = hoist_c(nr) if hoist else None
    every = frozenset(range(unroll))
    last = last_hash or (lambda n, c: ghash_group(n, method, eor3, c=c, pairs=every, y_last=True))
    per = unroll // 2
    work = list(first_work)
    body = c_setup(c) + [f"cmp x4, #{per}", "b.lo 3f"] + list(setup)
    body += group(unroll, nr, work, spread, eor3) + [f"sub x4, x4, #{per}"]       # prologue: group 0
    body += ["1:", f"cmp x4, #{per}", "b.lo 2f"]
    body += group(unroll, nr, ghash_group(unroll, method, eor3, c=c, pairs=pairs), spread, eor3)  # group k, hash k - 1
    body += [f"sub x4, x4, #{per}", "b 1b", "2:"]
    # epilogue: the k < per pairs left (a public count), encrypted while the last group is hashed
    body += [x for k in range(per - 1, 0, -1) for x in (f"cmp x4, #{k}", f"b.eq {20 + k}f")]
    body += last(unroll, c) + ["b 5f"]
    for k in range(per - 1, 0, -1):
        body += [f"{20 + k}:"] + aes_group(2 * k, nr, ghash_group(unroll, method, eor3, c=c, pairs=every), spread,
                                           eor3)
        body += last(2 * k, c) + ["b 5f"]
    body += ["3:"]                                                               # fewer than per pairs
    body += [x for k in range(per - 1, 0, -1) for x in (f"cmp x4, #{k}", f"b.eq {30 + k}f")]
    body += (work if zero_work is None else list(zero_work)) + ["b 5f"]
    for k in range(per - 1, 0, -1):
        body += [f"{30 + k}:"] + aes_group(2 * k, nr, work, spread, eor3) + last(2 * k, c)
        body += ["b 5f"]
    return body


def ctr_ghash_pairs(prefix: str, keybits: int, unroll: int = 8, method: str = "karatsuba",
                    spread: str = "even", eor3: bool = False, sched: str = "", form: tuple = PLAIN) -> str:
    if unroll not in (4, 8) or spread not in SPREADS:
        raise ValueError(f"stitched kernel: unroll 4 or 8, spread one of {SPREADS} (got {unroll}, {spread})")
    nr = aes.rounds_of(keybits)
    hi = G["hi"]
    body = aes.load_round_keys(nr, "x0")
    body += [f"ld1 {{{VCTR}.16b}}, [x2]", f"rev32 {VCTR}.16b, {VCTR}.16b", "ldr w12, [x2, #12]", "rev w12, w12",
             f"ld1 {{{hi}.16b}}, [x6]", f"rev64 {hi}.16b, {hi}.16b", "mov x8, x1"] + RUN_INIT
    body += pairs_loop(nr, unroll, method, spread, eor3, form=form)
    return kernel_text(f"{prefix}_ctr_ghash_pairs", body, keybits, unroll, method, spread, eor3, sched)


def kernel_text(name: str, body: list[str], keybits: int, unroll: int, method: str, spread: str, eor3: bool,
                sched: str, read: bool = False) -> str:
    """A stitched kernel's function (this module's, or with `read` stitched_dec.py's, which hashes
    the ciphertext it reads): `body`, then label 5: the two counters of cb advanced and y stored."""
    hi = G["hi"]
    body = body + ["5:", "rev w11, w12", "str w11, [x2, #12]", "add w10, w12, #1", "rev w11, w10",
                   "str w11, [x2, #28]", f"rev64 {hi}.16b, {hi}.16b", f"st1 {{{hi}.16b}}, [x6]"]
    what, source = ("ciphertext\n * read, stitched", "stitched_dec") if read else ("ciphertext,\n * stitched", "stitched")
    return function(f"void {name}(const uint32_t *rk, uint8_t *out, uint8_t *cb, const uint8_t *in, size_t n, "
                    f"const uint32_t *hk, uint8_t y[16], const uint32_t *tab)", name, body,
                    f"/* {name}: AES-{keybits} counter mode over n pairs and GHASH ({method}) of the {what}, "
                    f"{unroll} blocks per loop step, GHASH spread {spread}{', EOR3' if eor3 else ''} "
                    f"(gen/kernels/armv8/{source}.py){' scheduled for ' + sched if sched else ''} */",
                    framed=True, sched=sched)
