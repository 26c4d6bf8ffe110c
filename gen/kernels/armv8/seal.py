"""The whole one-shot GCM encrypt with a 96-bit IV in one call:
``{p}_gcm96_seal(ctx, out, iv, in, len, y, aadlen, tag, taglen)`` (returns 0).

The trick: everything a call does besides the stitched loop, moved into the kernel so the call
costs one branch-and-link and no C word copies. E(J0) (J0 = IV || 1) is dealt among the round
steps of the first group as a ninth block (its AESE/AESMC pairs fill the same pipe, no chain of
its own on an in-order core); the tail (len % 32 bytes) is staged on the kernel's stack,
encrypted as one more pair, masked to its length (CMHI against the byte index) and hashed with
the length block [aadlen]64 || [len]64 (NIST SP 800-38D §7.1) in one last group; the tag
E(J0) ^ GHASH is stored (16 bytes at once, or taglen bytes), and the stack and `y` are wiped.
`y` is the GHASH of the AAD (NULL without), the one thing the C glue computes; without AAD the
glue's encrypt() tail-calls the kernel (a branch, no call). Every branch is on
a length (public); the round-1 table is read at the counter's low byte (public: 96-bit IV).
"""
from __future__ import annotations

from gen.kernels.armv8 import aes, ghash, stitched
from gen.kernels.armv8.asm import function
from gen.cores.aarch64 import fused_pair

#: the kernel's stack: [0, 48) tail blocks, length block, tag; then E(J0), H^9 and its Karatsuba
#: word (the last group of whole pairs takes H^9..H^2), L.H (the length block times H), a zero y
FRAME, EJ0, H9, K9, LH, Y0 = 128, 48, 64, 80, 96, 112
VJ = "v8"           #: E(J0) while it is computed (the first group hashes nothing: v8 is free)
VB = stitched.VB    #: the IV as loaded (IV || 0), then the first run's base
#: the registers of a product in the first group, whose GHASH registers v9-v14 are free (E(J0) in
#: v8; P the constant once the three products are made, unless stitched.hoist_c has it)
W = {"X": "v9", "P": "v10", "T": "v11", "lo": "v13", "hi": "v12", "mid": "v14"}


def _times_h(method: str, eor3: bool, c: str | None) -> list[str]:
    """W["X"] (lane form, as blocks are after REV64) times H (hk's first power), reduced into
    W["hi"]: the kernel's Karatsuba product and reduction, on registers (`c`: the reduction
    constant's register, stitched.hoist_c; None: made in P)."""
    X, P, T = W["X"], W["P"], W["T"]
    out = [f"ldr q{P[1:]}, [x5]", f"pmull {W['hi']}.1q, {X}.1d, {P}.1d", f"pmull2 {W['lo']}.1q, {X}.2d, {P}.2d",
           f"ext {T}.16b, {X}.16b, {X}.16b, #8", f"eor {X}.16b, {X}.16b, {T}.16b", f"ldr q{P[1:]}, [x5, #256]",
           f"pmull {W['mid']}.1q, {X}.1d, {P}.1d"] + (stitched.c_setup(P) if c is None else [])
    R = {"lo": W["lo"], "hi": W["hi"], "mid": W["mid"], "C": c or P, "Y": W["hi"], "t": (T,)}
    return out + ghash.reduce(method, R, eor3)


def _powers(method: str, eor3: bool, c: str | None) -> list[str]:
    """(x2 = len, x16 = aadlen) H^9 = H^8 . H (hk keeps H^k twisted, r(H^k x^-1), in lane form,
    so the product of H^8's word with H is H^9's) with its Karatsuba word, and L.H, L =
    [aadlen]64 || [len]64 in lane form: to the stack, dealt into the first group."""
    hi, T, X = W["hi"], W["T"], W["X"]
    return ([f"ldr q{X[1:]}, [x5, #112]"] + _times_h(method, eor3, c)
            + [f"ext {T}.16b, {hi}.16b, {hi}.16b, #8", f"eor {T}.16b, {T}.16b, {hi}.16b",
               f"stp q{hi[1:]}, q{T[1:]}, [sp, #{H9}]",
               "lsl x9, x16, #3", "lsl x10, x2, #3", f"fmov d{X[1:]}, x9", f"mov {X}.d[1], x10"]
            + _times_h(method, eor3, c) + [f"str q{hi[1:]}, [sp, #{LH}]"])


def _first_work(nr: int, method: str, eor3: bool, fold: bool, c: str | None) -> list[str]:
    """E(J0), (fold) H^9 and L.H, zipped (independent chains; an AESE/AESMC pair stays one unit,
    so it fuses), then y from x6."""
    a, b = ej0_work(nr), (_powers(method, eor3, c) if fold else [])
    units = []
    for line in a:
        if units and fused_pair(units[-1][-1], line):
            units[-1].append(line)
        else:
            units.append([line])
    out = [x for u, line in zip(units, b) for x in (*u, line)]
    out += [x for u in units[len(b):] for x in u] + b[len(units):]
    return out + load_y()


def load_y() -> list[str]:
    hi = stitched.G["hi"]
    return [f"ld1 {{{hi}.16b}}, [x6]", f"rev64 {hi}.16b, {hi}.16b"]


def _last_hash(method: str, eor3: bool, unroll: int):
    """The last group of whole pairs (stitched.ghash_group with y_last): without a tail
    (x15 = 0) the length block is folded in, blocks times H^(n+1)..H^2, and K = L.H ^ REV64(E(J0))
    (made while they are multiplied, in v15 and v16: the run base and round key 0 are dead once
    no tail follows) added after the reduction: y ^ K, byte-reversed, is the tag, so after the
    last reduction one EOR and one REV64 are left (label 47 of gcm96_seal)."""
    far = {9: (f"[sp, #{H9}]", f"[sp, #{K9}]")}
    hi = stitched.G["hi"]
    every = frozenset(range(unroll))
    # K with its halves swapped: it joins hi before the reduction's last EOR(s) and its final EXT
    k = [f"ldr q15, [sp, #{LH}]", f"ldr q16, [sp, #{EJ0}]", "rev64 v16.16b, v16.16b", "eor v15.16b, v15.16b, v16.16b",
         "ext v15.16b, v15.16b, v15.16b, #8"]

    def last(n: int, c: str | None) -> list[str]:
        g = stitched.ghash_group(n, method, eor3, shift=1, far=far, c=c, pairs=every, y_last=True)
        end = len(g) - (2 if eor3 else 3)            # the last EOR3 (or two EORs) and the EXT (ghash.reduce)
        assert g[end].startswith(("eor3 ", f"eor {hi}")) and g[-1].startswith("ext "), g[end:]
        g = g[:end] + [f"eor {hi}.16b, {hi}.16b, v15.16b"] + g[end:]
        return (["cbnz x15, 61f"] + k + g + ["b 62f", "61:"]
                + stitched.ghash_group(n, method, eor3, c=c, pairs=every, y_last=True) + ["62:"])
    return last


def ej0_work(nr: int) -> list[str]:
    """The rounds of J0 = IV || 1 (set in v8 by the prologue), then E(J0) stored."""
    return [x for step in aes.block_rounds(VJ, nr) for x in step] + [f"str q{VJ[1:]}, [sp, #{EJ0}]"]


def _byte_copy(dst: str, src: str, count: str, label: int) -> list[str]:
    """count (> 0, public, < 32) bytes from [src] to [dst]: 16 at once (q5) when there are, then
    one at a time; x9 the index, w10 the byte."""
    return ["mov x9, #0", f"cmp {count}, #16", f"b.lo {label + 100}f", f"ldr q5, [{src}]", f"str q5, [{dst}]",
            "mov x9, #16", f"{label + 100}:", f"cmp x9, {count}", f"b.hs {label + 200}f",
            f"{label}:", f"ldrb w10, [{src}, x9]", f"strb w10, [{dst}, x9]", "add x9, x9, #1",
            f"cmp x9, {count}", f"b.lo {label}b", f"{label + 200}:"]


def tail(nr: int, spread: str, eor3: bool, decrypt: bool = False) -> list[str]:
    """x15 = len % 32 (> 0) bytes at x3 -> out at x1: staged zero-padded at sp, one plain pair
    (counters w12, w12 + 1), copied out. Encrypt: the pair overwrites the staged input and is
    masked to x15 bytes (the ciphertext hashed next, left in v0, v1 and at sp). `decrypt`: the
    staged ciphertext stays at sp to be hashed; the plaintext pair goes to sp + 64 (open96.py)."""
    out = ["stp xzr, xzr, [sp]", "stp xzr, xzr, [sp, #16]", "mov x11, x1"]
    out += _byte_copy("sp", "x3", "x15", 41) + ["mov x3, sp", f"add x1, sp, #{H9}" if decrypt else "mov x1, sp"]
    out += stitched.aes_group(2, nr, [], spread, eor3)
    if decrypt:
        return out + [f"add x13, sp, #{H9}"] + _byte_copy("x11", "x13", "x15", 42)
    out += ["mov x9, #0x0100", "movk x9, #0x0302, lsl #16", "movk x9, #0x0504, lsl #32",
            "movk x9, #0x0706, lsl #48", "mov x10, #0x0808080808080808", "add x10, x9, x10",
            "fmov d2, x9", "mov v2.d[1], x10", "movi v3.16b, #16", "add v3.16b, v2.16b, v3.16b",
            "dup v4.16b, w15", "cmhi v2.16b, v4.16b, v2.16b", "cmhi v3.16b, v4.16b, v3.16b",
            "and v0.16b, v0.16b, v2.16b", "and v1.16b, v1.16b, v3.16b", "stp q0, q1, [sp]"]
    return out + _byte_copy("x11", "sp", "x15", 42)


def entry(keybits: int, ctx_rk_words: int | None = None) -> list[str]:
    """From the call to the first pair: round keys in v16.., then the registers as the stitched
    loop has them: x5 hk, x6 y (the frame's zero y without AAD), x7 tab; x16 aadlen, x17 tag,
    x0 taglen; IV || 0 as loaded in VB, J0 = IV || 1 in VJ, the IV's words REV32-ed in v31,
    w12 = 2, x2 = len, x15 = len % 32, x4 pairs (`ctx_rk_words`: ctx_offsets)."""
    hk, tab = ctx_offsets(keybits, ctx_rk_words)
    body = aes.load_round_keys(aes.rounds_of(keybits), "x0")          # the ctx starts with rk
    body += ["mov x16, x6", "mov x17, x7", "mov x6, x5", f"add x5, x0, #{hk}",
             f"add x7, x0, #{tab}", f"ldr x0, [sp, #{FRAME + 64}]",
             f"cbnz x6, 1f", f"stp xzr, xzr, [sp, #{Y0}]", f"add x6, sp, #{Y0}", "1:",    # no AAD: y = 0
             "ldr x9, [x2]", "ldr w10, [x2, #8]", f"fmov d{VB[1:]}, x9", f"mov {VB}.d[1], x10",     # IV || 0
             "orr x11, x10, #0x0100000000000000", f"fmov d{VJ[1:]}, x9", f"mov {VJ}.d[1], x11",      # J0 = IV || 1
             f"rev32 {stitched.VCTR}.16b, {VB}.16b", "mov w12, #2", "mov x2, x4", "and x15, x4, #31",
             "lsr x4, x4, #5"]
    return body


def length_hash(method: str, eor3: bool, c: str | None = None, pairs: bool = False) -> list[str]:
    """(label 40) The length block after the tail's x15 bytes of ciphertext (zero-padded at sp,
    none without a tail), the 1 to 3 blocks hashed into y, the full tag E(J0) ^ y left in v0
    (`c`, `pairs`: the GHASH form of stitched.ghash_group; pairs=True pairs every block)."""
    hi = stitched.G["hi"]
    body = ["lsl x9, x16, #3", "rev x9, x9", "lsl x10, x2, #3", "rev x10, x10", "add x11, x15, #15",
            "lsr x11, x11, #4", "add x8, sp, x11, lsl #4", "stp x9, x10, [x8]", "mov x8, sp",
            "cmp x11, #1", "b.eq 44f", "b.hi 45f"]
    for label, n in ((43, 1), (44, 2), (45, 3)):
        body += [f"{label}:"] if label != 43 else []
        body += stitched.ghash_group(n, method, eor3, c=c, pairs=frozenset(range(n)) if pairs else frozenset()) + ["b 46f"]
    return body + ["46:", f"rev64 {hi}.16b, {hi}.16b", f"ldr q0, [sp, #{EJ0}]", f"eor v0.16b, v0.16b, {hi}.16b"]


def wipe_frame() -> list[str]:
    """The kernel's frame and y, zeroed before the return."""
    return [f"stp xzr, xzr, [sp, #{o}]" for o in range(0, FRAME, 16)] + ["stp xzr, xzr, [x6]"]


def ctx_offsets(keybits: int, ctx_rk_words: int | None = None) -> tuple[int, int]:
    """Byte offsets of hk and ctr_tab in the ctx (uint32_t arrays rk, hk, ctr_tab: no padding;
    the glue checks them at compile time). `ctx_rk_words`: the length of the ctx's rk array when
    it is not this key size's round keys alone (a multi-key ctx, gen/targets/multikey.py: the
    largest key's round keys and the key-length word; the kernel reads the first ones)."""
    hk = 4 * ctx_rk_words if ctx_rk_words is not None else 16 * (aes.rounds_of(keybits) + 1)
    return hk, hk + 4 * ghash.HK_WORDS


def gcm96_seal(prefix: str, keybits: int, unroll: int = 8, method: str = "karatsuba",
               spread: str = "even", eor3: bool = False, sched: str = "", form: tuple = stitched.PLAIN,
               ctx_rk_words: int | None = None) -> str:
    nr = aes.rounds_of(keybits)
    hi = stitched.G["hi"]
    body = entry(keybits, ctx_rk_words)
    fold = method == "karatsuba"
    c = stitched.hoist_c(nr) if form[1] else None           # set by pairs_loop, kept to the tag
    body += ["mov x8, x1"] + stitched.RUN_INIT
    # with a whole group: the first run's base (stitched.run_base for counters 0..255; every call
    # starts at 2) from IV || 0 as loaded, no REV32 and back: the first group's round 2 waits on it
    run0 = [f"aese {VB}.16b, {aes.rk(0)}.16b", f"aesmc {VB}.16b, {VB}.16b", "ldr s14, [x7]",
            f"eor {VB}.16b, {VB}.16b, v14.16b", f"eor {VB}.16b, {VB}.16b, {aes.rk(1)}.16b", f"mov {stitched.RUN}, #0"]
    body += stitched.pairs_loop(nr, unroll, method, spread, eor3, tuple(_first_work(nr, method, eor3, fold, c)),
                                _last_hash(method, eor3, unroll) if fold else None,
                                tuple(ej0_work(nr) + load_y()), form, tuple(run0))   # no pairs: nothing to fold into
    body += ["5:", "cbnz x15, 39f"] + (["cbnz x2, 50f"] if fold else []) + ["b 40f", "39:"]
    body += tail(nr, spread, eor3) + ["40:"]
    # the length block after the tail's blocks (at sp + 16 ceil(rest / 16)), then 1 to 3 blocks hashed
    body += length_hash(method, eor3, c, pairs=True) + ["b 51f"]
    body += ["50:", f"rev64 v0.16b, {hi}.16b"] if fold else []          # folded: E(J0) is in y already
    body += ["51:", "cmp x0, #16", "b.ne 47f", "str q0, [x17]", "b 48f", "47:", "str q0, [sp]"]
    body += _byte_copy("x17", "sp", "x0", 49)
    body += ["48:"] + wipe_frame() + ["mov w0, #0"]
    name = f"{prefix}_gcm96_seal"
    return function(f"int {name}(const void *ctx, uint8_t *out, const uint8_t *iv, const uint8_t *in, size_t len, "
                    f"uint8_t *y, uint64_t aadlen, uint8_t *tag, size_t taglen)", name, body,
                    f"/* {name}: AES-{keybits}-GCM encrypt with a 96-bit IV, the whole call after the AAD: E(J0),\n"
                    f" * the stitched loop ({unroll} blocks a step, GHASH {method}, spread {spread}"
                    f"{', EOR3' if eor3 else ''}), the tail, the length block and the tag (gen/kernels/armv8/seal.py)"
                    f"{' scheduled for ' + sched if sched else ''} */",
                    framed=True, sched=sched, frame=FRAME)
