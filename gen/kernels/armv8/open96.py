"""The whole one-shot GCM decrypt with a 96-bit IV in one call, the twin of seal.py's
``gcm96_seal`` (``[armv8] decrypt = "single-pass"``, issue 35):
``{p}_gcm96_open(ctx, out, iv, in, len, y, aadlen, tag, taglen)``, returns 0, or -1 (EAUTH)
with all `len` bytes of `out` zeroed when the tag does not match.

The trick: decrypt hashes its input, which is there from the start, so each group of the
stitched loop hashes the ciphertext of the very group it decrypts (stitched_dec.pairs_loop: no
pipeline fill or drain, and the group's GHASH loads come before its stores, so in == out works).
What gcm96_seal moved into its kernel is moved here too: the argument registers, E(J0) (before
the loop, in registers the first group then reuses: an out-of-order core runs its chain beside
that group), the tail (staged zero-padded in the frame: the staged ciphertext is hashed, the
plaintext pair goes to the frame and is copied out), the length block (seal.length_hash) and
the tag. Then the tag is compared in the kernel: 16 bytes as one vector XOR folded to a word
(or taglen bytes, each XORed and ORed in), every byte looked at whatever the first difference;
the verdict (public) decides one branch, to the loop that zeroes `out`. So `decrypt()` reaches
it by a tail branch, as `encrypt()` reaches gcm96_seal: the call executes no call instruction.
The frame, y and the scalar registers that held tag bytes are zeroed before the return. Every
other branch is on a length or the tag length (public); the round-1 table is read at the
counter's low byte (public: 96-bit IV).
"""
from __future__ import annotations

from gen.kernels.armv8 import aes, seal, stitched, stitched_dec
from gen.kernels.armv8.asm import function

OUT = seal.LH        #: the frame slot (seal's L.H, unused here) that keeps `out` for the wipe


def compare_tag() -> list[str]:
    """The full tag in v0 against taglen (x0) bytes at x17: x13 = 0 when equal, else non-zero.
    No branch or address depends on a tag byte."""
    return ["cmp x0, #16", "b.ne 56f", "ldr q1, [x17]", "eor v0.16b, v0.16b, v1.16b",
            "fmov x9, d0", "mov x10, v0.d[1]", "orr x13, x9, x10", "b 57f",
            "56:", "str q0, [sp]", "mov x13, #0", "mov x9, #0",
            "55:", "ldrb w10, [sp, x9]", "ldrb w11, [x17, x9]", "eor w10, w10, w11", "orr x13, x13, x10",
            "add x9, x9, #1", "cmp x9, x0", "b.lo 55b", "57:"]


def zero_out() -> list[str]:
    """(tag mismatch) x2 = len bytes of out (kept in the frame) zeroed: 16 at a time, then bytes."""
    return [f"ldr x9, [sp, #{OUT}]", "mov x10, x2", "cmp x10, #16", "b.lo 53f",
            "52:", "stp xzr, xzr, [x9], #16", "sub x10, x10, #16", "cmp x10, #16", "b.hs 52b",
            "53:", "cbz x10, 58f",
            "54:", "strb wzr, [x9], #1", "subs x10, x10, #1", "b.ne 54b"]


def gcm96_open(prefix: str, keybits: int, unroll: int = 8, method: str = "karatsuba",
               spread: str = "even", eor3: bool = False, sched: str = "", form: tuple = stitched.PLAIN,
               ctx_rk_words: int | None = None) -> str:
    if unroll not in (4, 8) or spread not in stitched.SPREADS:
        raise ValueError(f"gcm96_open: unroll 4 or 8, spread one of {stitched.SPREADS} (got {unroll}, {spread})")
    nr = aes.rounds_of(keybits)
    body = seal.entry(keybits, ctx_rk_words)          # ctx_rk_words: seal.ctx_offsets
    body += [f"str x1, [sp, #{OUT}]"] + seal.ej0_work(nr) + seal.load_y()
    body += ["mov x8, x3"] + stitched.RUN_INIT
    body += stitched_dec.pairs_loop(nr, unroll, method, spread, eor3, form)      # the encrypt loop's GHASH form
    body += ["5:", "cbz x15, 40f"] + seal.tail(nr, spread, eor3, decrypt=True) + ["40:"]
    c = stitched.hoist_c(nr) if form[1] else None                  # set by pairs_loop, kept to the tag
    body += seal.length_hash(method, eor3, c, pairs=True) + compare_tag()
    body += ["cbz x13, 58f"] + zero_out() + ["58:"] + seal.wipe_frame()
    body += ["cmp x13, #0", "csetm w0, ne", "mov x9, #0", "mov x10, #0", "mov x11, #0", "mov x13, #0"]
    name = f"{prefix}_gcm96_open"
    return function(f"int {name}(const void *ctx, uint8_t *out, const uint8_t *iv, const uint8_t *in, size_t len, "
                    f"uint8_t *y, uint64_t aadlen, const uint8_t *tag, size_t taglen)", name, body,
                    f"/* {name}: AES-{keybits}-GCM decrypt with a 96-bit IV, the whole call after the AAD: E(J0),\n"
                    f" * the stitched loop hashing what it decrypts ({unroll} blocks a step, GHASH {method}, spread "
                    f"{spread}{', EOR3' if eor3 else ''}), the tail, the length block, the tag compared in constant\n"
                    f" * time and out zeroed if it does not match: 0 or -1 (gen/kernels/armv8/open96.py)"
                    f"{' scheduled for ' + sched if sched else ''} */",
                    framed=True, sched=sched, frame=seal.FRAME)
