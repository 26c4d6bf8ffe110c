"""The whole one-shot GCM encrypt with a 96-bit IV in one call:
``{p}_gcm96_seal(rk, out, iv, in, len, hk, y, tab, aadlen, tag, taglen)``.

The trick: everything a call does besides the stitched loop, moved into the kernel so the call
costs one branch-and-link and no C word copies. E(J0) (J0 = IV || 1) is dealt among the round
steps of the first group as a ninth block (its AESE/AESMC pairs fill the same pipe, no chain of
its own on an in-order core); the tail (len % 32 bytes) is staged on the kernel's stack,
encrypted as one more pair, masked to its length (CMHI against the byte index) and hashed with
the length block [aadlen]64 || [len]64 (NIST SP 800-38D §7.1) in one last group; the tag
E(J0) ^ GHASH is stored (16 bytes at once, or taglen bytes), and the stack and `y` are wiped.
`y` is the GHASH of the AAD (zero without), the one thing the C glue computes. Every branch is on
a length (public); the round-1 table is read at the counter's low byte (public: 96-bit IV).
"""
from __future__ import annotations

from gen.kernels.armv8 import aes, stitched
from gen.kernels.armv8.asm import function

FRAME = 64          #: the kernel's stack: [0, 48) tail blocks, length block, tag; [48, 64) E(J0)
EJ0 = 48
VJ = "v8"           #: E(J0) while it is computed (the first group hashes nothing: v8 is free)


def _ej0_work(nr: int) -> list[str]:
    """J0 = IV || 1 (v31 holds the IV's words REV32-ed), its rounds in v8, then stored."""
    rounds = [x for step in aes.block_rounds(VJ, nr) for x in step]
    return ([f"mov {VJ}.16b, {stitched.VCTR}.16b", "mov w9, #1", f"mov {VJ}.s[3], w9", f"rev32 {VJ}.16b, {VJ}.16b"]
            + rounds + [f"str q{VJ[1:]}, [sp, #{EJ0}]"])


def _byte_copy(dst: str, src: str, count: str, label: int) -> list[str]:
    """count (> 0, public) bytes from [src] to [dst], one at a time; x9 the index, w10 the byte."""
    return ["mov x9, #0", f"{label}:", f"ldrb w10, [{src}, x9]", f"strb w10, [{dst}, x9]", "add x9, x9, #1",
            f"cmp x9, {count}", f"b.lo {label}b"]


def _tail(nr: int, spread: str, eor3: bool) -> list[str]:
    """x15 = len % 32 (> 0) bytes at x3 -> out at x1: staged zero-padded at sp, one plain pair
    (counters w12, w12 + 1), masked to x15 bytes (left in v0, v1 and at sp), copied out."""
    out = ["stp xzr, xzr, [sp]", "stp xzr, xzr, [sp, #16]", "mov x11, x1"]
    out += _byte_copy("sp", "x3", "x15", 41) + ["mov x3, sp", "mov x1, sp"]
    out += stitched.aes_group(2, nr, [], spread, eor3)
    out += ["mov x9, #0x0100", "movk x9, #0x0302, lsl #16", "movk x9, #0x0504, lsl #32",
            "movk x9, #0x0706, lsl #48", "mov x10, #0x0808080808080808", "add x10, x9, x10",
            "fmov d2, x9", "mov v2.d[1], x10", "movi v3.16b, #16", "add v3.16b, v2.16b, v3.16b",
            "dup v4.16b, w15", "cmhi v2.16b, v4.16b, v2.16b", "cmhi v3.16b, v4.16b, v3.16b",
            "and v0.16b, v0.16b, v2.16b", "and v1.16b, v1.16b, v3.16b", "stp q0, q1, [sp]"]
    return out + _byte_copy("x11", "sp", "x15", 42)


def gcm96_seal(prefix: str, keybits: int, unroll: int = 8, method: str = "karatsuba",
               spread: str = "even", eor3: bool = False, sched: str = "") -> str:
    nr = aes.rounds_of(keybits)
    hi = stitched.G["hi"]
    body = aes.load_round_keys(nr, "x0")
    body += [f"sub sp, sp, #{FRAME}", f"ldp x16, x17, [sp, #{FRAME + 64}]", f"ldr x0, [sp, #{FRAME + 80}]",
             "ldr x9, [x2]", "ldr w10, [x2, #8]", f"fmov d31, x9", "mov v31.s[2], w10",
             f"rev32 {stitched.VCTR}.16b, {stitched.VCTR}.16b", "mov w12, #2", "mov x2, x4", "lsr x4, x4, #5",
             f"ld1 {{{hi}.16b}}, [x6]", f"rev64 {hi}.16b, {hi}.16b", "mov x8, x1"] + stitched.RUN_INIT
    body += stitched.pairs_loop(nr, unroll, method, spread, eor3, tuple(_ej0_work(nr)))
    body += ["5:", "ands x15, x2, #31", "b.eq 40f"] + _tail(nr, spread, eor3) + ["40:"]
    # the length block after the tail's blocks (at sp + 16 ceil(rest / 16)), then 1 to 3 blocks hashed
    body += ["lsl x9, x16, #3", "rev x9, x9", "lsl x10, x2, #3", "rev x10, x10", "add x11, x15, #15",
             "lsr x11, x11, #4", "add x8, sp, x11, lsl #4", "stp x9, x10, [x8]", "mov x8, sp",
             "cmp x11, #1", "b.eq 44f", "b.hi 45f"]
    for label, n in ((43, 1), (44, 2), (45, 3)):
        body += [f"{label}:"] if label != 43 else []
        body += stitched.ghash_group(n, method, eor3) + ["b 46f"]
    body += ["46:", f"rev64 {hi}.16b, {hi}.16b", f"ldr q0, [sp, #{EJ0}]", f"eor v0.16b, v0.16b, {hi}.16b",
             "cmp x0, #16", "b.ne 47f", "str q0, [x17]", "b 48f", "47:", "str q0, [sp]"]
    body += _byte_copy("x17", "sp", "x0", 49)
    body += ["48:", "stp xzr, xzr, [sp]", "stp xzr, xzr, [sp, #16]", "stp xzr, xzr, [sp, #32]",
             "stp xzr, xzr, [sp, #48]", "stp xzr, xzr, [x6]", f"add sp, sp, #{FRAME}"]
    name = f"{prefix}_gcm96_seal"
    return function(f"void {name}(const uint32_t *rk, uint8_t *out, const uint8_t *iv, const uint8_t *in, size_t len, "
                    f"const uint32_t *hk, uint8_t y[16], const uint32_t *tab, uint64_t aadlen, uint8_t *tag, "
                    f"size_t taglen)", name, body,
                    f"/* {name}: AES-{keybits}-GCM encrypt with a 96-bit IV, the whole call after the AAD: E(J0),\n"
                    f" * the stitched loop ({unroll} blocks a step, GHASH {method}, spread {spread}"
                    f"{', EOR3' if eor3 else ''}), the tail, the length block and the tag (gen/kernels/armv8/seal.py)"
                    f"{' scheduled for ' + sched if sched else ''} */",
                    framed=True, sched=sched)
