"""AES for the RV32 GCM drops, generated as RV32I assembly (issue 36): the same IR as every other
AES kernel through gen/kernels/rv32_function.py (split for RV32: rotations become three
instructions; scheduled, allocated onto RV32's registers, scheduled again for the E31's latencies).

* ``encrypt2``: fixsliced, two blocks (gen/kernels/aes/fixsliced.encrypt2_ir), beside the portable
  target's C key schedule: H, E(J0), and the last 0-3 pairs of a run.
* ``encrypt8``: barrel-shiftrows, eight blocks (gen/kernels/aes/barrel.py: MixColumns without a
  rotation, a 97-XOR circuit), compiled phase by phase, with its C key schedule and loops (gen/kernels/aes/barrel_c.py):
  ECB and counter mode four pairs at a time.  The S-box circuit and seed: the fewest modelled cycles.
"""
from __future__ import annotations

from gen.circuits import aes_sbox
from gen.kernels import rv32_function as F
from gen.kernels.aes import barrel
from gen.kernels.aes import barrel_c
from gen.kernels.aes import fixsliced as AF

#: the registers the kernels may give values (a0-a2 hold rk, out, in)
REGS = F.REGS
#: the S-box circuit of the 8-block kernel: bpc113 (113 gates) beats bp115 by 61 cycles on
#: AES-128 (9,285 against 9,346, best of seeds 0-7; 12,557 / 12,626 on AES-256)
BARREL_CIRCUIT = "bpc113"
#: the allocator brings a spilled value back by one XOR when its operands are in registers
#: (regalloc ``recompute``), and counts a value that looks recomputable as 4 times further away
#: when choosing whom to evict: AES-128 9,169 -> 9,066 cycles before the frame (bonus 1: no
#: change; 2: 9,093; 3: 9,072; 6: 9,084; best of seeds 0-7)
BARREL_ALLOC = {"recompute": True, "remat_bonus": 4.0}
#: per key size, with the 97-XOR MixColumns (best of seeds 0-7 unless said): AES-192 and AES-256
#: evict recomputable values as 5 times further away and clean ones (round keys) as 3 times
#: (AES-192 10,565 -> 10,562; AES-256 12,148 -> 12,140, and 12,134 at seed 13 of 8-32: the ECB
#: target of 95 c/B needs <= 12,135); AES-128 keeps 4 and 2 (5 / 3: 8,978, no gain).  Measured
#: before BARREL_HOME_BASES; with it seed 13 still gives AES-256's cheapest (11,964; 11,975 at 4)
BARREL_TUNING = {192: ({"remat_bonus": 5.0, "clean_bonus": 3.0}, ()),
                 256: ({"remat_bonus": 5.0, "clean_bonus": 3.0}, (13,))}


#: the pointers ``out`` and ``in`` get a stack home (rv32_function ``home_bases``): the kernel
#: reads ``in`` in its first phase and writes ``out`` in its last, so a1 and a2 hold state words in
#: between (27 registers, not 25): AES-128 8,978 -> 8,856 cycles, AES-192 10,562 -> 10,416,
#: AES-256 12,134 -> 11,964 (spills 502 -> 466 on AES-128)
BARREL_HOME_BASES = ("out", "in")


def barrel_alloc(keybits: int) -> dict:
    return {**BARREL_ALLOC, **BARREL_TUNING.get(keybits, ({}, ()))[0]}


def compile_encrypt2(keybits: int, slicing: str, seed: int = 0, circuit: str = aes_sbox.DEFAULT) -> F.Compiled:
    return F.compile_function(AF.encrypt2_ir(keybits, slicing, circuit), seed)


def compile_encrypt8(keybits: int, seed: int = 0, circuit: str = BARREL_CIRCUIT) -> F.Compiled:
    phases: list = []
    return F.compile_function(barrel.encrypt8_ir(keybits, circuit, phases), seed, phases, barrel_alloc(keybits),
                              home_bases=BARREL_HOME_BASES)


def cheapest_encrypt8(keybits: int, seeds=F.SEEDS, circuit: str = BARREL_CIRCUIT) -> F.Compiled:
    """The cheapest over ``seeds`` and the key size's extra seeds (BARREL_TUNING)."""
    phases: list = []
    seeds = tuple(dict.fromkeys((*seeds, *BARREL_TUNING.get(keybits, ({}, ()))[1])))
    return F.cheapest(barrel.encrypt8_ir(keybits, circuit, phases), seeds, phases, barrel_alloc(keybits),
                      home_bases=BARREL_HOME_BASES)


def encrypt2_c(prefix: str, keybits: int, slicing: str, seeds=F.SEEDS, schedule_prefix: str | None = None):
    """(key schedule C text, kernel C text, Compiled): the fixsliced head and key schedule
    (gen/kernels/aes/portable.py) as ``{schedule_prefix}_aes_keyschedule`` (default: prefix), and
    the cheapest two-block kernel over ``seeds`` as ``{prefix}_aes_encrypt2`` on byte buffers
    (rv32_function.c_text). rv32_c and rv32_barrel_c (under ``{prefix}_fs``) both use it."""
    from gen.kernels.aes import portable
    c = F.cheapest(AF.encrypt2_ir(keybits, slicing, aes_sbox.DEFAULT), seeds)
    schedule = portable.head_c(keybits, slicing) + portable.keyschedule_c(schedule_prefix or prefix, keybits, slicing)
    return schedule, F.c_text(f"{prefix}_aes_encrypt2", c, 8, 8, f"AES-{keybits} ({slicing}) on two blocks"), c


def rv32_c(prefix: str, keybits: int, slicing: str, seeds=F.SEEDS):
    """(C text, Compiled): the C key schedule, then the two-block kernel (encrypt2_c)."""
    schedule, kernel, c = encrypt2_c(prefix, keybits, slicing, seeds)
    return schedule + "\n" + kernel, c


def fs_words(keybits: int) -> int:
    return 8 * (AF.ROUNDS[keybits] + 1)


def rk_words(keybits: int) -> int:
    """The ctx's round keys: the fixsliced ones, then the barrel-shiftrows ones."""
    return fs_words(keybits) + barrel.rk_words(AF.ROUNDS[keybits])


def rv32_barrel_c(prefix: str, keybits: int, slicing: str, seeds=F.SEEDS):
    """(C text, encrypt2's Compiled, encrypt8's Compiled): both kernels, ``{prefix}_aes_keyschedule``
    writing both round-key layouts (rk_words), ``{prefix}_aes_encrypt_pairs`` and
    ``{prefix}_ctr_pairs`` (barrel_c.loops_c)."""
    fs, p = fs_words(keybits), prefix
    schedule, kernel2, c2 = encrypt2_c(p, keybits, slicing, seeds, schedule_prefix=f"{p}_fs")
    c8 = cheapest_encrypt8(keybits, seeds)
    text = (schedule + "\n"
            + barrel_c.keyschedule_c(p, keybits)
            + f"\n/* Both layouts: the fixsliced round keys (rk[0..{fs - 1}]), then the barrel-shiftrows ones. */\n"
            f"static void {p}_aes_keyschedule(uint32_t *rk, const uint8_t *key)\n{{\n"
            f"    {p}_fs_aes_keyschedule(rk, key);\n    {p}_bsr_keyschedule(rk + {fs}, key);\n}}\n\n"
            + kernel2
            + F.c_text(f"{p}_aes_encrypt8", c8, 32, 32,
                       f"AES-{keybits} barrel-shiftrows (gen/kernels/aes/barrel.py, S-box {BARREL_CIRCUIT}) on eight blocks")
            + barrel_c.loops_c(p, fs))
    return text, c2, c8
