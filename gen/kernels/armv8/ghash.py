"""GHASH with PMULL/PMULL2 and an aggregated reduction: ``{p}_ghash_blocks(hk, y, in, n)``
(y = (y ^ x_i) * H for each block) and ``{p}_ghash_init(hk, h)``.

The trick (Gouvea & Lopez, CT-RSA 2015, after Gueron & Kounavis' Intel white paper): with H
stored "twisted" as r(H x^-1), reflected blocks multiply with no bit reversal; the reduction is
two PMULLs by 0xC2 << 56, done once per group of `agg` (4 or 8) blocks.  Schoolbook or Karatsuba
is a generator choice.  PMULL is data-independent; nothing branches on or indexes by data.  The
derivation and the hk layout: docs/internals/armv8.md.
"""
from __future__ import annotations

from gen.kernels.armv8.asm import counted_loop, function

HK_WORDS = 80
METHODS = ("karatsuba", "schoolbook")

#: registers: X blocks v0-v7; H^k (swapped) v16-v23; Karatsuba words v24-v27 or H^k (unswapped)
#: v8-v15; the rest below
REGS = {
    "karatsuba": {"C": "v28", "Y": "v29", "lo": "v9", "hi": "v10", "mid": "v11",
                  "t": ("v12", "v13", "v14", "v15")},
    "schoolbook": {"C": "v28", "Y": "v29", "lo": "v24", "hi": "v25", "mid": "v26",
                   "t": ("v30", "v31", "v30", "v31")},
}


def _acc(first: bool, acc: str, tmp: str, insn: str) -> list[str]:
    """`insn` with destination `acc` for the first block of a group, else into `tmp` and EOR."""
    if first:
        return [insn.format(d=acc)]
    return [insn.format(d=tmp), f"eor {acc}.16b, {acc}.16b, {tmp}.16b"]


def product(x: str, power: int, method: str, first: bool) -> list[str]:
    """Add x * H^power (unreduced, 256 bits in lo/hi/mid) to the accumulators."""
    R = REGS[method]
    hs = f"v{15 + power}"
    t = R["t"]
    out = _acc(first, R["hi"], t[0], f"pmull {{d}}.1q, {x}.1d, {hs}.1d")       # a1 b1
    out += _acc(first, R["lo"], t[1], f"pmull2 {{d}}.1q, {x}.2d, {hs}.2d")     # a0 b0
    if method == "karatsuba":
        kw = f"v{24 + (power - 1) // 2}"
        out += [f"ext {t[2]}.16b, {x}.16b, {x}.16b, #8", f"eor {t[2]}.16b, {t[2]}.16b, {x}.16b"]
        mul = "pmull" if power % 2 else "pmull2"
        lane = "1d" if power % 2 else "2d"
        out += _acc(first, R["mid"], t[3], f"{mul} {{d}}.1q, {t[2]}.{lane}, {kw}.{lane}")
    else:
        hb = f"v{7 + power}"
        out += _acc(first, R["mid"], t[2], f"pmull {{d}}.1q, {x}.1d, {hb}.1d")     # a1 b0
        out += [f"pmull2 {t[3]}.1q, {x}.2d, {hb}.2d", f"eor {R['mid']}.16b, {R['mid']}.16b, {t[3]}.16b"]
    return out


def reduce(method: str, R: dict | None = None, eor3: bool = False) -> list[str]:
    """lo/hi/mid -> Y (reduced, in the REV64 lane order of the blocks); `R` the registers
    (REGS[method] by default: C holds 0xC2 << 56 in each lane). With `eor3`, three-way XORs where
    two EORs chain.

    The 256-bit product is the limbs L0..L3 (64 bits each, low first): L0 = lo.lo, L1 = lo.hi ^
    mid.lo, L2 = hi.lo ^ mid.hi, L3 = hi.hi (mid with Karatsuba's correction lo ^ hi). mid becomes
    (L1, L2) with one EXT of lo:hi (no zero register), TRN2 and TRN1 put hi = (L2, L3) and mid = (L1, L0)
    (OpenSSL's two INS: 2 uops and 8 cycles each on the Cortex-A72 model),
    then the two folds by 0xC2 << 56 (the form of OpenSSL's ghashv8-armx reduction, Gueron &
    Kounavis' two-phase reduction): 13 vector instructions, 11 with EOR3 (the EXT-and-zero form
    took 14 and 12, and a zero register)."""
    R = R or REGS[method]
    lo, hi, mid, C, Y, t = R["lo"], R["hi"], R["mid"], R["C"], R["Y"], R["t"][0]
    out = [f"ext {t}.16b, {lo}.16b, {hi}.16b, #8"]                         # (lo.hi, hi.lo)
    if method == "karatsuba":
        out += ([f"eor3 {mid}.16b, {mid}.16b, {lo}.16b, {hi}.16b"] if eor3 else
                [f"eor {mid}.16b, {mid}.16b, {t}.16b", f"eor {t}.16b, {lo}.16b, {hi}.16b"])
    out += [f"eor {mid}.16b, {mid}.16b, {t}.16b",                           # mid = (L1, L2)
            f"pmull {t}.1q, {lo}.1d, {C}.1d",                               # fold L0
            f"trn2 {hi}.2d, {mid}.2d, {hi}.2d", f"trn1 {mid}.2d, {mid}.2d, {lo}.2d",  # hi = (L2, L3), mid = (L1, L0)
            f"eor {lo}.16b, {mid}.16b, {t}.16b",
            f"ext {t}.16b, {lo}.16b, {lo}.16b, #8", f"pmull {lo}.1q, {lo}.1d, {C}.1d"]   # fold the new low limb
    out += ([f"eor3 {Y}.16b, {hi}.16b, {t}.16b, {lo}.16b"] if eor3 else
            [f"eor {hi}.16b, {hi}.16b, {t}.16b", f"eor {Y}.16b, {hi}.16b, {lo}.16b"])
    return out + [f"ext {Y}.16b, {Y}.16b, {Y}.16b, #8"]


def group(n: int, method: str, load: bool = True, eor3: bool = False) -> list[str]:
    """Hash n blocks from x2 into Y: blocks times H^n..H^1, summed, one reduction.

    Y enters last: blocks 1..n-1 (which do not depend on Y) are multiplied and summed first, then
    (x_0 ^ Y) H^n is added and the sum reduced. The loop-carried chain from one group's Y to the
    next is then one EOR, one product, one accumulation and the reduction, not the whole sum:
    the other products overlap the previous group's reduction (llvm-mca-19, 8 blocks, Karatsuba:
    63.2 -> 45.4 cycles a step on the Cortex-A72 model, 42.1 -> 30.2 on the V1 model)."""
    Y = REGS[method]["Y"]
    out = []
    if load:
        for g in range(0, n, 4):
            k = min(4, n - g)
            out.append(f"ld1 {{{', '.join(f'v{g + i}.16b' for i in range(k))}}}, [x2], #{16 * k}")
        out += [f"rev64 v{i}.16b, v{i}.16b" for i in range(n)]
    for j, i in enumerate([*range(1, n), 0]):
        if i == 0:
            out.append(f"eor v0.16b, v0.16b, {Y}.16b")
        out += product(f"v{i}", n - i, method, j == 0)
    return out + reduce(method, eor3=eor3)


def setup(method: str, powers: int) -> list[str]:
    """Load H^1..H^powers (2, or all 8) and the constants (x0 = hk)."""
    R = REGS[method]
    if powers == 2:         # H^1, H^2 (and their Karatsuba words, both in one q; or unswapped)
        out = ["ldp q16, q17, [x0]", "ldr q24, [x0, #256]" if method == "karatsuba" else "ldp q8, q9, [x0, #128]"]
    else:
        out = ["ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x0]", "add x9, x0, #64",
               "ld1 {v20.16b, v21.16b, v22.16b, v23.16b}, [x9]"]
        if method == "karatsuba":
            out += ["add x9, x0, #256", "ld1 {v24.16b, v25.16b, v26.16b, v27.16b}, [x9]"]
        else:
            out += ["add x9, x0, #128", "ld1 {v8.16b, v9.16b, v10.16b, v11.16b}, [x9], #64",
                    "ld1 {v12.16b, v13.16b, v14.16b, v15.16b}, [x9]"]
    return out + [f"movi {R['C']}.16b, #0xc2", f"shl {R['C']}.2d, {R['C']}.2d, #56"]


def ghash_blocks(prefix: str, agg: int = 8, method: str = "karatsuba", eor3: bool = False, sched: str = "") -> str:
    if agg not in (4, 8) or method not in METHODS:
        raise ValueError(f"ghash: aggregate 4 or 8 blocks, method one of {METHODS} (got {agg}, {method})")
    Y = REGS[method]["Y"]
    # H^3..H^8 are loaded only when a whole group is there (short calls: the last blocks and the
    # length block); the branch is on the public count. Left-over blocks go two at a time (H^2,
    # H^1, one reduction), then one
    body = [f"ld1 {{{Y}.16b}}, [x1]", f"rev64 {Y}.16b, {Y}.16b", f"cmp x3, #{agg}", "b.lo 5f"]
    body += setup(method, 8) + ["b 6f", "5:"] + setup(method, 2) + ["6:"]
    body += counted_loop("x3", agg, group(agg, method, eor3=eor3), 2, group(2, method, eor3=eor3),
                         odd=group(1, method, eor3=eor3))
    body += [f"rev64 {Y}.16b, {Y}.16b", f"st1 {{{Y}.16b}}, [x1]"]
    name = f"{prefix}_ghash_blocks"
    return function(f"void {name}(const uint32_t *hk, uint8_t y[16], const uint8_t *in, size_t nblocks)",
                    name, body,
                    f"/* {name}: GHASH with PMULL ({method}{', EOR3' if eor3 else ''}), aggregated reduction over {agg} blocks\n"
                    f" * (gen/kernels/armv8/ghash.py){' scheduled for ' + sched if sched else ''} */", framed=True, sched=sched)


def ghash_init(prefix: str) -> str:
    """C: H^1..H^8 (each by one call of ghash_blocks on the previous power), twisted and laid out."""
    p = prefix
    return f"""/* {p}_ghash_init: H^1..H^8 for the PMULL GHASH, twisted to r(H^k x^-1) (a shift left by one and a
 * conditional XOR of 0xC2..01, by mask: no branch on H) and laid out as gen/kernels/armv8/ghash.py says. */
static uint64_t {p}_gh_be64(const uint8_t *b)
{{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < 8u; i++) v = (v << 8) | b[i];
    return v;
}}

static void {p}_gh_put(uint32_t *w, uint64_t v)
{{
    w[0] = (uint32_t)v;
    w[1] = (uint32_t)(v >> 32);
}}

static void {p}_ghash_init(uint32_t *hk, const uint8_t h[16])
{{
    uint8_t x[16], y[16];
    volatile uint8_t *vx = x, *vy = y;
    uint64_t hi, lo, carry;
    unsigned k, i;
    for (i = 0; i < 16u; i++) x[i] = h[i];
    for (k = 1; k <= 8u; k++) {{
        if (k > 1u) {{                  /* x = H^k = H^(k-1) * H, with the powers stored so far */
            for (i = 0; i < 16u; i++) y[i] = 0;
            {p}_ghash_blocks(hk, y, x, 1);
            for (i = 0; i < 16u; i++) x[i] = y[i];
        }}
        hi = {p}_gh_be64(x);
        lo = {p}_gh_be64(x + 8);
        carry = 0u - (hi >> 63);
        hi = (hi << 1) | (lo >> 63);
        lo = (lo << 1) ^ (carry & 1u);
        hi ^= carry & UINT64_C(0xC200000000000000);
        {p}_gh_put(hk + 4u * (k - 1u), hi);          /* halves swapped: lane 0 = high */
        {p}_gh_put(hk + 4u * (k - 1u) + 2u, lo);
        {p}_gh_put(hk + 32u + 4u * (k - 1u), lo);    /* unswapped */
        {p}_gh_put(hk + 32u + 4u * (k - 1u) + 2u, hi);
        {p}_gh_put(hk + 64u + 2u * (k - 1u), hi ^ lo); /* Karatsuba */
    }}
    for (i = 0; i < 16u; i++) {{ vx[i] = 0; vy[i] = 0; }}
    {p}_vector_wipe();                /* the compiler may have vectorised the twist: H^k in v0.. */
}}
"""
