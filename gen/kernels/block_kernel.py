"""What a block-cipher kernel hands to the modes and targets: C text plus its sizes.

Every family's ``portable_c(prefix, spec)`` returns a ``BlockKernel`` whose ``code`` defines
``{prefix}_keyschedule(rk, key)`` (writes ``rk_words``) and ``{prefix}_encrypt_blocks(rk, out, in)``
(``blocks_per_call`` blocks, in == out allowed), both printed from IR programs whose memories
(``key``/``rk``, ``in``/``rk``/``out``) a Thumb-2 backend can take as they are.  The prototypes and
memory conventions: docs/internals/thumb2-functions.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from gen.backends import c_backend
from gen.ir import Program


@dataclass(frozen=True)
class BlockKernel:
    cipher: str               # CipherSpec.name
    code: str                 # C99 (also valid C++): the two static functions above
    rk_words: int             # uint32_t words of round-key material
    block_bytes: int
    key_bytes: int
    blocks_per_call: int
    stats: dict = field(default_factory=dict, hash=False)   # IR op counts per part, S-box gates


def check_programs(keyschedule: Program, encrypt: Program, key_bytes: int, block_bytes: int,
                   blocks_per_call: int) -> int:
    """Check the memory conventions above; return rk_words."""
    words = block_bytes * blocks_per_call // 4
    assert keyschedule.mems["key"] == (key_bytes // 4, "r"), keyschedule.mems
    rk_words, rw = keyschedule.mems["rk"]
    assert rw == "w" and encrypt.mems["rk"] == (rk_words, "r"), (keyschedule.mems, encrypt.mems)
    assert encrypt.mems["in"] == (words, "r") and encrypt.mems["out"] == (words, "w"), encrypt.mems
    first_store = next(i for i, op in enumerate(encrypt.ops) if op.kind == "st")
    assert all(op.mem != "in" for op in encrypt.ops[first_store:] if op.kind == "ld"), \
        "an input word is loaded after the first store: in == out would break"
    return rk_words


def print_c(prefix: str, head: str, keyschedule: Program, encrypt: Program) -> str:
    """The two functions as C99 from their IR programs (``head`` is a leading comment)."""
    ks_fn = c_backend.function(
        f"static void {prefix}_keyschedule(uint32_t *rk, const uint8_t *key)", keyschedule,
        {"key": ("bytes_le", "key"), "rk": ("words", "rk")})
    enc_fn = c_backend.function(
        f"static void {prefix}_encrypt_blocks(const uint32_t *rk, uint8_t *out, const uint8_t *in)",
        encrypt, {"in": ("bytes_le", "in"), "rk": ("words", "rk"), "out": ("bytes_le", "out")})
    return head + ks_fn + "\n" + enc_fn


def make(prefix: str, spec, head: str, keyschedule: Program, encrypt: Program,
         blocks_per_call: int = 1, extra_stats: dict | None = None) -> BlockKernel:
    rk_words = check_programs(keyschedule, encrypt, spec.key_bytes, spec.block_bytes, blocks_per_call)
    stats = {"encrypt": encrypt.stats(), "keyschedule": keyschedule.stats(),
             "sbox_gates": len(spec.sbox_circuit), **(extra_stats or {})}
    return BlockKernel(cipher=spec.name, code=print_c(prefix, head, keyschedule, encrypt),
                       rk_words=rk_words, block_bytes=spec.block_bytes, key_bytes=spec.key_bytes,
                       blocks_per_call=blocks_per_call, stats=stats)


def part_ops(emit, n_words: int, rk_words: int = 0) -> int:
    """IR ops one part of a round spends on ``n_words`` state words: ``emit(b, words)`` ->
    words, built alone (loads of the state and stores of the result not counted; round-key
    loads from a memory ``rk`` of ``rk_words`` words are)."""
    from gen.ir import Builder
    b = Builder("part")
    b.declare("in", n_words, "r")
    b.declare("rk", max(rk_words, 1), "r")
    b.declare("out", n_words, "w")
    for i, x in enumerate(emit(b, [b.ld("in", i) for i in range(n_words)])):
        b.st("out", i, x)
    prog = b.finish()
    return sum(1 for op in prog.ops if op.kind != "st" and not (op.kind == "ld" and op.mem == "in"))
