"""What a target hands to the mode layer (gen/modes) and the header frame: the kernels' C text
and the facts the glue and the structs are sized by, all read off the kernels (no literals)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class GhashPart:
    """GHASH's key material in the ctx (GCM only)."""
    words: int
    comment: str


@dataclass
class KernelSet:
    sections: list[str]      # C (and file-scope __asm__) text, in order
    target_guard: str
    block_bytes: int         # the cipher's block
    blocks_per_call: int     # blocks one call of the block kernel encrypts
    rk_words: int            # round-key words in the ctx
    rk_comment: str
    #: the C names of the block kernel: ``keyschedule(uint32_t *rk, const uint8_t *key)`` and
    #: ``encrypt(const uint32_t *rk, uint8_t *out, const uint8_t *in)`` (blocks_per_call blocks)
    keyschedule: str = "aes_keyschedule"
    encrypt: str = "aes_encrypt2"
    ghash: GhashPart | None = None
    #: FACE's table and constant sizes in words (GCM with face on): table, fs, sv, entry
    face_words: dict = field(default_factory=dict)
    ct_extra_lengths: tuple[int, ...] = ()   # message lengths the constant-time check adds (FACE)
    #: the target has ``{p}_ctr_pairs(rk, out, cb, in, n)`` (counter mode over n pairs, XOR fused,
    #: looped in generated code); without it the glue runs ``keystream2`` + ``xor32`` per pair
    ctr_pairs: bool = False
    #: with ctr_pairs: the target has no separate ``aes_encrypt2``; the glue defines it as one pair
    #: of ctr_pairs over a zero message (the size objectives: one AES kernel, gen/targets/cortex_m.py)
    encrypt_via_ctr: bool = False
    #: the target has ``{p}_aes_encrypt_pairs(rk, out, in, n)``: n >= 1 pairs in one call, looped in
    #: generated code (gen/kernels/aes/ecb_thumb2.py); ecb_encrypt calls it once for all its pairs
    encrypt_pairs: bool = False
    #: the target has ``{p}_encrypt_blocks_n(rk, out, in, n)``: n >= 1 calls' worth of blocks in one
    #: call, looped in generated code (gen/kernels/block_ecb_thumb2.py); ecb_encrypt calls it once
    encrypt_n: bool = False
    #: the target has ``{p}_ctr_blocks(rk, out, cb, in, end)``: counter mode over the blocks of in up
    #: to end, XOR fused, looped in generated code (gen/kernels/block_ctr_thumb2.py)
    ctr_blocks: bool = False
    #: with ctr_blocks: blocks in one granule of ``ctr_blocks`` (rv32imac SPEEDY: 32, its bitsliced
    #: kernel's group); the glue hands it whole granules only, the rest goes through its refill path
    ctr_group: int = 1
    #: the target has ``{p}_ctr_ghash_pairs(rk, out, cb, in, n, hk, y)`` too: ctr_pairs and GHASH of
    #: the ciphertext stitched in one loop (armv8a); encrypt's update then hashes as it writes
    ctr_ghash: bool = False
    #: with ctr_ghash: ``{p}_ctr_ghash_dec_pairs`` too (same arguments), counter mode and GHASH of
    #: the ciphertext it reads in one loop; the glue then decrypts in one pass and zeroes the
    #: output on a bad tag (armv8a ``[armv8] decrypt = "single-pass"``)
    ctr_ghash_dec: bool = False
    #: with ctr_ghash: ``{p}_ctr_table(tab, rk)`` fills ``ctx->ctr_tab`` (256 words) in init, and the
    #: stitched kernel takes it as its last argument for 96-bit IVs (NULL otherwise)
    ctr_table: bool = False
    #: with ctr_ghash and ctr_table: (hk's, ctr_tab's byte offsets in the ctx) when the target has
    #: ``{p}_gcm96_seal(ctx, out, iv, in, len, y, aadlen, tag, taglen)``, a whole one-shot encrypt
    #: with a 96-bit IV after the AAD's GHASH (E(J0), the pairs, the tail, the length block, the
    #: tag) in one call (gen/kernels/armv8/seal.py); () otherwise
    seal96: tuple[int, ...] = ()
    #: the target has ``{p}_zero32(p, nwords)`` in assembly (gen/kernels/wipe.py): an opaque call,
    #: so the glue wipes its structs with it; otherwise (portable C) structs are wiped byte by byte
    zero32_asm: bool = False
    #: the sections hold file-scope ``__asm__`` blocks: string literals far over C99's 4095-character
    #: minimum, which clang -pedantic reports (-Woverlength-strings); the header silences that one
    #: warning around its implementation, for clang only
    file_scope_asm: bool = False
    #: the target has ``{p}_zero_bytes(p, n)`` in assembly too: the glue's byte wipe calls it instead
    #: of a volatile byte loop (armv8a: 16 bytes a store)
    zero_bytes_asm: bool = False
    #: the generator's own cycle-model figures of its asm kernels (gen/cores/timing.py), for the
    #: manifest's ``metrics.kernel_cycles``; empty for targets without generated asm
    kernel_cycles: dict = field(default_factory=dict)
    #: other facts of the generated kernels (S-box gates, IR ops per round part), for the
    #: manifest's ``metrics.kernel_facts``
    kernel_facts: dict = field(default_factory=dict)
    #: RAM of caches beyond ctx (FACE), for the manifest's ``cache_bytes``
    cache_bytes: int = 0
    #: the core the checks emulate when not the target's usual one ("armv8a-max": EOR3 needs SHA-3)
    core: str = ""


def ct_extra_lengths(face: str) -> tuple[int, ...]:
    """Message lengths the constant-time check adds for a FACE drop: 4128 bytes cross a table
    set-up, every group fill and the carry pair of a 256-block run."""
    return () if face == "off" else (4128,)
