"""The generator's cost model for the A-class kernels: llvm-mca-19 (LLVM's machine-code analyser,
the scheduling models users trust for Cortex-A and Neoverse cores).

A loop body is given to ``llvm-mca-19 -mtriple=aarch64 -mcpu=CORE -iterations=100``; its total
cycles divided by 100 is the steady-state cost of one loop step. The stitched kernel's GHASH
spread is chosen by it (the least summed cycles over the cores that have the same
AES-and-PMULL-on-one-pipe structure, Cortex-A72 and Neoverse N1; ties go to the first in
stitched.SPREADS), so is the unroll when the config says `auto` (the least summed cycles per
byte of the stitched loop, each unroll with its own best spread; ties go to the larger), and the manifest's ``kernel_cycles`` reports the steady-state c/B of each loop
on every core, as modelled and fused. The choices score the fused figure (``CHOICE_FUSED``): every
core modelled fuses AESE/AESMC (gen/cores/aarch64.py), so a choice that wins only because a
model charges the AESMC a pipe slot would not win on the core. (As of issue 35 both scores pick
the same unroll and spread for every preset: 8, early.) Deterministic: same text, same llvm-mca, same figures. A missing llvm-mca-19 is a
ConfigError (the Makefile's set-up installs it), never a silent default.
"""
from __future__ import annotations

import functools
import itertools
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from gen.config import ARMV8_UNROLLS
from gen.cores.aarch64 import CHOICE_CORES, CORES, SHA3_CORES, fuse_aes, mattr
from gen.errors import ConfigError
from gen.kernels.armv8 import aes, ctr, ghash, inorder, stitched

MCA = "llvm-mca-19"
ITERATIONS = 100
CHOICE_FUSED = True         #: the choices score the loops with fused AESE/AESMC pairs


@functools.lru_cache(maxsize=None)
def _mca(text: str, core: str, sha3: bool = False) -> float:
    exe = shutil.which(MCA)
    if exe is None:
        raise ConfigError(f"{MCA} not found on PATH; run `make` (it installs llvm-19) or `apt-get install llvm-19`")
    with tempfile.TemporaryDirectory(prefix="slicegen-mca-") as tmp:
        src = Path(tmp) / "loop.s"
        src.write_text(text)
        proc = subprocess.run([exe, "-mtriple=aarch64", f"-mcpu={core}", *mattr(core, sha3),
                               f"-iterations={ITERATIONS}",
                               "-summary-view", "-resource-pressure=false", "-instruction-info=false", str(src)],
                              capture_output=True, text=True)
    m = re.search(r"Total Cycles:\s+(\d+)", proc.stdout)
    if proc.returncode != 0 or not m:
        raise ValueError(f"llvm-mca could not cost a generated loop on {core}:\n{proc.stderr[:400]}")
    return int(m.group(1)) / ITERATIONS


def loop_cycles(body: list[str], core: str, fused: bool = False) -> float:
    """Steady-state cycles of one step of a loop whose body is `body` (no labels); `fused`: with
    each adjacent AESE/AESMC pair costed as the AESE alone (gen/cores/aarch64.py)."""
    lines = [x for x in body if not x.endswith(":")]
    if fused:
        lines = fuse_aes(lines)
    return _mca("\n".join(lines) + "\n", core, any(x.startswith("eor3 ") for x in lines))


def stitched_body(keybits: int, unroll: int, method: str, spread: str, eor3: bool = False,
                  cached: bool = True, form: tuple = stitched.PLAIN) -> list[str]:
    """One step of the stitched loop: with the round-1 table (96-bit IVs) or without it; `form`:
    its GHASH form (choose_ghash_form)."""
    nr = aes.rounds_of(keybits)
    pairs, hoist = form
    ghash_work = stitched.ghash_group(unroll, method, eor3, c=stitched.hoist_c(nr) if hoist else None, pairs=pairs)
    return stitched.aes_group(unroll, nr, ghash_work, spread, eor3, cached)


def choice_cores(eor3: bool, core: str = "generic") -> tuple[str, ...]:
    """The cores a drop's loop choices are scored on: the Neoverse V1 for an EOR3 drop (the
    models without SHA-3 reject EOR3) and for ``[armv8] core = "neoverse-v1"``, else CHOICE_CORES."""
    return ("neoverse-v1",) if eor3 or core == "neoverse-v1" else CHOICE_CORES


def choose_spread(keybits: int, unroll: int, method: str, eor3: bool = False, core: str = "generic") -> str:
    cores = choice_cores(eor3, core)
    costs = {s: sum(loop_cycles(stitched_body(keybits, unroll, method, s, eor3), c, CHOICE_FUSED) for c in cores)
             for s in stitched.SPREADS}
    return min(stitched.SPREADS, key=lambda s: costs[s])


def _forms(unroll: int, hoistable: bool) -> list[tuple]:
    """Every GHASH form of a loop step (stitched.PLAIN first): each subset of the blocks that
    may start a Karatsuba pair (the even-power ones: 0, 2, ..), the constant hoisted or not."""
    starts = range(0, unroll, 2)
    subsets = [frozenset(x) for k in range(len(starts) + 1) for x in itertools.combinations(starts, k)]
    return [(p, h) for h in ((False, True) if hoistable else (False,)) for p in subsets]


def choose_ghash_form(keybits: int, unroll: int, method: str, spread: str, eor3: bool = False,
                      core: str = "generic") -> tuple:
    """The GHASH form of the stitched loop (stitched.PLAIN, or Karatsuba pairs and the hoisted
    constant): among the forms whose loop costs no more than PLAIN on every choice core, as
    modelled and fused, the one with the fewest vector instructions (a pair saves one, the
    hoisted constant two: what a core as wide as the Neoverse V1 pays for, its four vector pipes
    taking any of them), ties to the cheaper fused sum, then to the earlier in _forms. On the
    Cortex-A72 and Neoverse N1 the AES/PMULL pipe is the bound, and where the other vector
    instructions land on it is the model's greedy choice: some pairs cost a cycle a step there."""
    if method != "karatsuba" or core == "cortex-a55":
        return stitched.PLAIN
    cores = choice_cores(eor3, core)
    nr = aes.rounds_of(keybits)
    plain = stitched_body(keybits, unroll, method, spread, eor3)
    limit = {(c, f): loop_cycles(plain, c, f) for c in cores for f in (False, True)}
    bodies = {form: stitched_body(keybits, unroll, method, spread, eor3, form=form)
              for form in _forms(unroll, stitched.hoist_c(nr) is not None)}
    # fewest vector instructions first: the first count with a form no costlier than PLAIN wins
    for count in sorted({vector_ops(b) for b in bodies.values()}):
        best, key = None, None
        for form, body in bodies.items():
            if vector_ops(body) != count:
                continue
            costs = {(c, f): loop_cycles(body, c, f) for c, f in limit}
            if all(costs[k] <= limit[k] for k in limit):
                k = sum(costs[c, CHOICE_FUSED] for c in cores)
                if key is None or k < key:
                    best, key = form, k
        if best is not None:
            return best
    return stitched.PLAIN


def vector_ops(body: list[str]) -> int:
    """The instructions of `body` that write a vector register (loads aside): the ones the
    Neoverse V1 model sends to its vector pipes."""
    return sum(1 for x in body if re.match(r"[a-z0-9]+\s+v\d", x) and not x.startswith(("ld", "st")))


def choose_unroll(keybits: int, method: str, eor3: bool = False, core: str = "generic") -> tuple[int, dict[int, float]]:
    """`auto` unroll: the blocks per loop step whose stitched loop (with its chosen spread) costs
    the fewest cycles per byte summed over the choice cores; (unroll, {unroll: that sum})."""
    cores = choice_cores(eor3, core)
    costs = {}
    for unroll in sorted(ARMV8_UNROLLS, reverse=True):
        spread = choose_spread(keybits, unroll, method, eor3, core)
        body = stitched_body(keybits, unroll, method, spread, eor3)
        costs[unroll] = round(sum(loop_cycles(body, c, CHOICE_FUSED) for c in cores) / (16 * unroll), 4)
    return min(costs, key=lambda u: costs[u]), costs


def _loops(keybits: int, unroll: int, method: str, spread: str, eor3: bool, form: tuple = stitched.PLAIN) -> dict:
    """name -> (loop body, the kernel it is a step of, bytes a step)."""
    nr = aes.rounds_of(keybits)
    return {"ctr_ghash_pairs_loop": (stitched_body(keybits, unroll, method, spread, eor3, form=form),
                                     "ctr_ghash_pairs", 16 * unroll),
            "ctr_ghash_pairs_loop_no_table": (stitched_body(keybits, unroll, method, spread, eor3, False, form),
                                              "ctr_ghash_pairs", 16 * unroll),
            "ctr_pairs_loop": (ctr.loop_body(unroll, nr, eor3), "ctr_pairs", 16 * unroll),
            "ghash_blocks_loop": (ghash.group(unroll, method, eor3=eor3), "ghash_blocks", 16 * unroll),
            "aes_encrypt_pairs_loop": (sum(aes.ecb_step(8, nr), []), "aes_encrypt_pairs", 128)}


#: a kernel is scheduled for an in-order core only when its loop gains at least this much there
#: (fused): the schedule also reorders the kernel's prologue and tails, which the out-of-order
#: cores' whole-call figures can lose up to about 1 % on (Neoverse N1, decrypt's ctr_pairs)
SCHEDULE_MIN_GAIN = 0.03
#: among the windows within this of the cheapest on the in-order core, the smallest wins: it keeps
#: more of the generated order, which the out-of-order cores' whole calls keep their speed with
SCHEDULE_WINDOW_SLACK = 0.01


def choose_schedules(keybits: int, unroll: int, method: str, spread: str, eor3: bool, core: str,
                     form: tuple = stitched.PLAIN) -> dict:
    """For ``[armv8] core`` an in-order core: per kernel, the window (inorder.WINDOWS; 0:
    unbounded) its loop is list-scheduled with for the core (gen/kernels/armv8/inorder.py), or
    None (printed as generated). A window is a candidate when its schedule costs no more than the
    generated loop on every choice core (Cortex-A72, Neoverse N1), as modelled and fused, so the
    drop for the in-order core stays as fast on the out-of-order ones; the smallest candidate
    within SCHEDULE_WINDOW_SLACK of the cheapest on the in-order core (fused pairs, CHOICE_FUSED)
    is taken if that beats the generated loop there by SCHEDULE_MIN_GAIN."""
    out: dict = {}
    for name, (body, kernel, _) in _loops(keybits, unroll, method, spread, eor3, form).items():
        if name.endswith("_no_table"):
            continue
        limit = {(c, f): loop_cycles(body, c, f) for c in CHOICE_CORES for f in (False, True)}
        costs = {}
        for window in inorder.WINDOWS:
            done = inorder.schedule(body, core, window)
            if all(loop_cycles(done, c, f) <= limit[c, f] for c, f in limit):
                costs[window] = loop_cycles(done, core, CHOICE_FUSED)
        best = min(costs.values(), default=None)
        out[kernel] = None
        if best is not None and best <= (1 - SCHEDULE_MIN_GAIN) * loop_cycles(body, core, CHOICE_FUSED):
            out[kernel] = next(w for w in inorder.WINDOWS if w in costs and costs[w] <= (1 + SCHEDULE_WINDOW_SLACK) * best)
    return out


def sched_spec(core: str, window: int | None) -> str:
    """The ``sched`` argument of a kernel (gen/kernels/armv8/asm.function): "" when not scheduled."""
    return "" if window is None else core + (f" window {window}" if window else "")


def kernel_figures(keybits: int, unroll: int, method: str, spread: str, eor3: bool, fused: bool = False,
                   sched: dict | None = None, core: str = "", form: tuple = stitched.PLAIN) -> dict:
    """Steady-state c/B of each loop on every core (``metrics.kernel_cycles``); `fused`: with
    fused AESE/AESMC pairs; `sched`: the kernels printed list-scheduled for `core` (their loops
    are costed so)."""
    cores = CORES if not eor3 else SHA3_CORES                # EOR3 needs a core with SHA-3
    out = {}
    for name, (body, kernel, nbytes) in _loops(keybits, unroll, method, spread, eor3, form).items():
        if (sched or {}).get(kernel) is not None:
            body = inorder.schedule(body, core, sched[kernel])
        out[name] = {c: round(loop_cycles(body, c, fused) / nbytes, 3) for c in cores}
    return out
