"""The AES key schedule for the size objectives (issue 19): the same round keys as
gen/kernels/aes/keyschedule.py in about a tenth of its code.

The trick: one copy of each piece (``{p}_ks_subword``, ``{p}_ks_sr3``, ``{p}_ks_pack``), printed
from the same IR emitters, driven by a C loop of the FIPS-197 recurrence with public counts.  No
table, no key-dependent index or branch.  The helpers and the loop: docs/internals/aes-kernels.md.
"""
from __future__ import annotations

from gen.backends import c_backend
from gen.circuits import aes_sbox
from gen.ir import Builder
from gen.kernels.aes.fixsliced import alignments, check_args, emit_pack
from gen.kernels.aes.keyschedule import emit_natural_shiftrows, emit_subword


def _subword(prefix: str) -> str:
    b = Builder("ks_subword")
    b.declare("w", 1, "r")
    b.declare("o", 1, "w")
    b.st("o", 0, emit_subword(b, b.ld("w", 0), 0))
    return c_backend.function(f"static void {prefix}_ks_subword(uint32_t *o, const uint32_t *w)", b.finish(),
                              {"w": ("words", "w"), "o": ("words", "o")})


def _sr3(prefix: str) -> str:
    b = Builder("ks_shiftrows3")
    b.declare("w", 4, "r")
    b.declare("o", 4, "w")
    for i, v in enumerate(emit_natural_shiftrows(b, [b.ld("w", i) for i in range(4)], 3)):
        b.st("o", i, v)
    return c_backend.function(f"static void {prefix}_ks_sr3(uint32_t *o, const uint32_t *w)", b.finish(),
                              {"w": ("words", "w"), "o": ("words", "o")})


def _pack(prefix: str) -> str:
    b = Builder("ks_pack")
    b.declare("w", 4, "r")
    b.declare("rk", 8, "w")
    blk = [b.ld("w", i) for i in range(4)]
    for i, v in enumerate(emit_pack(b, blk + blk)):
        b.st("rk", i, v)
    return c_backend.function(f"static void {prefix}_ks_pack(uint32_t *rk, const uint32_t *w)", b.finish(),
                              {"w": ("words", "w"), "rk": ("words", "rk")})


def c_code(prefix: str, keybits: int, slicing: str) -> str:
    """C text: the three helpers and ``static void {prefix}_aes_keyschedule(uint32_t *rk,
    const uint8_t *key)``, needing ``{prefix}_zero32(void *, size_t)`` declared before it."""
    nr = check_args(keybits, slicing)
    nk = keybits // 32
    n = 4 * (nr + 1)
    al = alignments(nr, slicing)
    # a_j as 2-bit fields of one public constant (j = 0..nr, at most 15 rounds -> 30 bits)
    al_bits = sum(a << (2 * j) for j, a in enumerate(al))
    nots = [i for i in range(8) if (aes_sbox.NOT_MASK >> i) & 1]
    sub_cond = f"i % {nk}u == 0u" + (f" || i % {nk}u == 4u" if nk > 6 else "")
    inv = " ".join(f"rk[{i}] = ~rk[{i}];" for i in nots)
    p = prefix
    head = (f"/* AES-{keybits} key schedule -> fixsliced ({slicing}) round keys, {nr + 1} x 8 words, for the size\n"
            f" * objectives: one SubWord circuit, one ShiftRows^-1 and one pack, looped (gen/kernels/aes/\n"
            f" * keyschedule_compact.py; the same round keys as gen/kernels/aes/keyschedule.py). */\n")
    main = f"""static void {p}_aes_keyschedule(uint32_t *rk, const uint8_t *key)
{{
    uint32_t w[{n}], blk[4], t[4];
    uint32_t rcon = 1u, al = 0x{al_bits:08x}u;      /* a_j = (al >> 2j) & 3: public */
    unsigned i, j, k;
    for (i = 0; i < {nk}u; i++)
        w[i] = (uint32_t)key[4u * i] | ((uint32_t)key[4u * i + 1u] << 8) |
               ((uint32_t)key[4u * i + 2u] << 16) | ((uint32_t)key[4u * i + 3u] << 24);
    for (i = {nk}u; i < {n}u; i++) {{
        t[0] = w[i - 1u];
        if ({sub_cond}) {{
            {p}_ks_subword(t, t);
            if (i % {nk}u == 0u) {{                 /* RotWord after SubWord, then Rcon */
                t[0] = ((t[0] >> 8) | (t[0] << 24)) ^ rcon;
                rcon = ((rcon << 1) ^ (0x11bu & (0u - (rcon >> 7)))) & 0xffu;
            }}
        }}
        w[i] = w[i - {nk}u] ^ t[0];
    }}
    for (j = 0; j <= {nr}u; j++, rk += 8) {{
        blk[0] = w[4u * j]; blk[1] = w[4u * j + 1u]; blk[2] = w[4u * j + 2u]; blk[3] = w[4u * j + 3u];
        for (k = (al >> (2u * j)) & 3u; k; k--) {{    /* SR^-a_j */
            {p}_ks_sr3(t, blk);
            blk[0] = t[0]; blk[1] = t[1]; blk[2] = t[2]; blk[3] = t[3];
        }}
        {p}_ks_pack(rk, blk);
        if (j) {{ {inv} }}                          /* the S-box's folded NOTs */
    }}
    {p}_zero32(w, {n}u);
    {p}_zero32(blk, 4u);
    {p}_zero32(t, 4u);
}}
"""
    return head + _subword(p) + _sr3(p) + _pack(p) + main
