"""AES with the ARMv8 Cryptography Extension: the key schedule and the two-block call.

A round is one AESE/AESMC pair, kept adjacent so cores that fuse them can, with several blocks
interleaved round by round; the key schedule (FIPS 197 §5.2) takes SubWord from AESE with a zero
round key.  No table, no branch.  Round keys: ``4 (Nr + 1)`` words, in v16..v16+Nr in the kernels.
Details: docs/internals/armv8.md.
"""
from __future__ import annotations

RK_BASE = 16                  # round key r in v(16 + r)
RCON = (0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36)


def rounds_of(keybits: int) -> int:
    return {128: 10, 192: 12, 256: 14}[keybits]


def rk(r: int) -> str:
    return f"v{RK_BASE + r}"


def load_round_keys(nr: int, ptr: str) -> list[str]:
    """ld1 of the nr + 1 round keys into v16.. (groups of at most four consecutive registers);
    advances nothing: uses a post-indexed copy in x15."""
    out = [f"mov x15, {ptr}"]
    r = 0
    while r <= nr:
        n = min(4, nr + 1 - r)
        regs = ", ".join(f"{rk(r + i)}.16b" for i in range(n))
        out.append(f"ld1 {{{regs}}}, [x15], #{16 * n}")
        r += n
    return out


def block_rounds(v: str, nr: int) -> list[list[str]]:
    """The rounds of one block in register v, as steps: each AESE/AESMC pair is one step (kept
    together), then the last AESE, then the EOR with the last round key."""
    steps = [[f"aese {v}.16b, {rk(r)}.16b", f"aesmc {v}.16b, {v}.16b"] for r in range(nr - 1)]
    steps.append([f"aese {v}.16b, {rk(nr - 1)}.16b"])
    steps.append([f"eor {v}.16b, {v}.16b, {rk(nr)}.16b"])
    return steps


def interleave(streams: list[list[list[str]]]) -> list[str]:
    """Round-robin merge of several blocks' steps (step i of every block, then step i + 1)."""
    out = []
    for i in range(max(len(s) for s in streams)):
        for s in streams:
            if i < len(s):
                out += s[i]
    return out


def encrypt2(prefix: str, keybits: int) -> str:
    """``{p}_aes_encrypt2(rk, out, in)``: two blocks (the glue's block width), interleaved."""
    from gen.kernels.armv8.asm import function
    nr = rounds_of(keybits)
    body = load_round_keys(nr, "x0") + ["ld1 {v0.16b, v1.16b}, [x2]"]
    body += interleave([block_rounds("v0", nr), block_rounds("v1", nr)])
    body += ["st1 {v0.16b, v1.16b}, [x1]", "ret"]
    name = f"{prefix}_aes_encrypt2"
    return function(f"void {name}(const uint32_t *rk, uint8_t *out, const uint8_t *in)", name, body,
                    f"/* {name}: AES-{keybits} of two blocks with AESE/AESMC (gen/kernels/armv8/aes.py) */")


def keyschedule(prefix: str, keybits: int) -> str:
    """``{p}_aes_keyschedule(rk, key)``: FIPS 197 key expansion, unrolled, SubWord by AESE."""
    from gen.kernels.armv8.asm import function
    nk, nr = keybits // 32, rounds_of(keybits)
    win = [f"w{2 + i}" for i in range(nk)]          # w[i] lives in win[i % nk]
    body = ["movi v31.16b, #0"]
    body += [f"ldr {win[i]}, [x1, #{4 * i}]" for i in range(nk)]
    body += [f"str {win[i]}, [x0, #{4 * i}]" for i in range(nk)]
    for i in range(nk, 4 * (nr + 1)):
        prev, cur = win[(i - 1) % nk], win[i % nk]
        if i % nk == 0 or (nk > 6 and i % nk == 4):
            body += [f"dup v0.4s, {prev}", "aese v0.16b, v31.16b", "umov w10, v0.s[0]"]
            if i % nk == 0:                      # RotWord after SubWord: bytes commute with it
                body += ["ror w10, w10, #8", f"mov w11, #{RCON[i // nk - 1]:#x}", "eor w10, w10, w11"]
            body.append(f"eor {cur}, {cur}, w10")
        else:
            body.append(f"eor {cur}, {cur}, {prev}")
        body.append(f"str {cur}, [x0, #{4 * i}]")
    body += ["mov w10, #0"] + [f"mov {w}, #0" for w in win] + ["ret"]      # v0, v31: function() wipes them
    name = f"{prefix}_aes_keyschedule"
    return function(f"void {name}(uint32_t *rk, const uint8_t *key)", name, body,
                    f"/* {name}: AES-{keybits} key expansion (FIPS 197 5.2), SubWord by AESE with a zero key\n"
                    f" * (gen/kernels/armv8/aes.py): no table, no branch */")
