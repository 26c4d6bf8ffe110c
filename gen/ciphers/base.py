"""A block cipher as data: sizes, S-box table and gate list, linear layer, reference model.

``CipherSpec`` is what the rest of the generator knows about a cipher.  The reference model
(``key_schedule``, ``encrypt``) is written from the cipher's specification, plainly and slowly;
kernels and generated code are checked against it and against ``known_answers()``.

S-box circuits are tuples of gates ``(dst, op, a, b)`` in evaluation order; ``b`` is ``None`` for
``not``.  Inputs and outputs are named by ``sbox_inputs`` / ``sbox_outputs``, most significant
bit first (``x0`` is the top bit of the S-box input).  ``walk_circuit`` is the one walker:
``eval_circuit`` runs it on Python ints (all inputs at once, one truth-table bit per input),
kernels run it with IR ops.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional

DATA_DIR = Path(__file__).resolve().parent / "data"

#: gate ops and their meaning on Python ints (``m`` = all-ones mask of the evaluation width)
GATE_OPS: dict[str, Callable[[int, int, int], int]] = {
    "and": lambda a, b, m: a & b,
    "or": lambda a, b, m: a | b,
    "xor": lambda a, b, m: a ^ b,
    "xnor": lambda a, b, m: ~(a ^ b) & m,
    "nand": lambda a, b, m: ~(a & b) & m,
    "nor": lambda a, b, m: ~(a | b) & m,
    "andn": lambda a, b, m: a & ~b & m,      # a AND NOT b  (Thumb-2 BIC)
    "orn": lambda a, b, m: (a | ~b) & m,     # a OR NOT b   (Thumb-2 ORN)
    "not": lambda a, b, m: ~a & m,
}

Gate = tuple  # (dst, op, a, b)


@dataclass(frozen=True)
class CipherSpec:
    name: str                      # registry key: "aes128", "rijndael256", "speedy5", ...
    family: str                    # "aes" | "rijndael256" | "speedy"
    title: str                     # "AES-128", "Rijndael-256", "SPEEDY-5-192"
    block_bytes: int
    key_bytes: int                 # the one accepted key length
    rounds: int
    sbox: tuple                    # the S-box table, sbox[x] for x in 0 .. 2**sbox_bits - 1
    sbox_bits: int
    sbox_circuit: tuple            # gate list (dst, op, a, b), see module docstring
    sbox_inputs: tuple             # circuit input names, MSB first
    sbox_outputs: tuple            # circuit output names, MSB first
    sbox_circuit_source: str       # where the gate list comes from
    linear_layer: Mapping = field(hash=False)   # e.g. {"shiftrows": (0, 1, 3, 4), "mixcolumns": ...}
    key_schedule: Callable[[bytes], list] = field(repr=False)  # key -> round keys (bytes), rounds + 1
    encrypt: Callable[[bytes, bytes], bytes] = field(repr=False)  # (key, block) -> block
    kat_source: str = ""
    known_answers: Callable[[], list] = field(repr=False, default=lambda: [])  # [(key, pt, ct)]
    #: (key, block) -> block through pyca/cryptography (an independent oracle), or None
    pyca: Optional[Callable[[bytes, bytes], bytes]] = field(repr=False, default=None)

    def check_key(self, key: bytes) -> None:
        if len(key) != self.key_bytes:
            raise ValueError(f"{self.title} takes a {self.key_bytes}-byte key (got {len(key)})")

    def check_block(self, block: bytes) -> None:
        if len(block) != self.block_bytes:
            raise ValueError(f"{self.title} takes a {self.block_bytes}-byte block (got {len(block)})")


# ---- circuits ----

def walk_circuit(gates, inputs: Mapping[str, object], gate: Callable[[str, object, object], object],
                 outputs=None) -> dict[str, object]:
    """Evaluate ``gates`` calling ``gate(op, a, b)`` (b None for 'not'); return the named outputs
    (every value when ``outputs`` is None)."""
    env = dict(inputs)
    for dst, op, a, b in gates:
        assert dst not in env, f"{dst} assigned twice"
        env[dst] = gate(op, env[a], None if b is None else env[b])
    return env if outputs is None else {name: env[name] for name in outputs}


def eval_circuit(gates, inputs: Mapping[str, int], outputs=None, width: int = 1) -> dict[str, int]:
    """The circuit on Python ints ``width`` bits wide (bitwise: one independent lane per bit)."""
    m = (1 << width) - 1
    return walk_circuit(gates, inputs, lambda op, a, b: GATE_OPS[op](a, b, m), outputs)


def truth_inputs(names, n_bits: int) -> dict[str, int]:
    """Inputs as truth-table words: bit x of input k (k = 0 the MSB) is bit n-1-k of x."""
    return {name: sum(1 << x for x in range(1 << n_bits) if (x >> (n_bits - 1 - k)) & 1)
            for k, name in enumerate(names)}


def circuit_table(gates, inputs, outputs, n_bits: int) -> list[int]:
    """The function the circuit computes, as a table over all 2**n_bits inputs."""
    outs = eval_circuit(gates, truth_inputs(inputs, n_bits), outputs, width=1 << n_bits)
    k = len(outputs)
    return [sum(((outs[name] >> x) & 1) << (k - 1 - i) for i, name in enumerate(outputs))
            for x in range(1 << n_bits)]


def check_circuit(spec: CipherSpec) -> list[int]:
    """Inputs where the S-box gate list disagrees with the table (empty = correct); every input
    is evaluated."""
    got = circuit_table(spec.sbox_circuit, spec.sbox_inputs, spec.sbox_outputs, spec.sbox_bits)
    return [x for x in range(1 << spec.sbox_bits) if got[x] != spec.sbox[x]]


def gate_counts(gates) -> dict[str, int]:
    out: dict[str, int] = {}
    for g in gates:
        out[g[1]] = out.get(g[1], 0) + 1
    return dict(sorted(out.items()))


# ---- known answers ----

def load_vectors(filename: str) -> list[dict]:
    """The ``vectors`` list of a JSON file in gen/ciphers/data."""
    return json.loads((DATA_DIR / filename).read_text())["vectors"]


def bits_of(data: bytes) -> list[int]:
    """Bits MSB first: bit 0 is the most significant bit of byte 0."""
    return [(data[p // 8] >> (7 - p % 8)) & 1 for p in range(8 * len(data))]


def bytes_of(bits: list[int]) -> bytes:
    return bytes(sum(bits[8 * k + i] << (7 - i) for i in range(8)) for k in range(len(bits) // 8))
