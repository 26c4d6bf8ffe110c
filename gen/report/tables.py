"""The generated parts of README.md and docs/*.md, from the drops' manifests and the presets.

    python -m gen.report [--out out] [--readme README.md] [--docs docs]

rewrites, in one pass, the text between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->`` (nothing
else) of each generated page: README.md's short drop table (``drops``), docs/performance.md's
tables beside published figures (``perf-table``) and docs/presets.md's preset list
(``presets``); and the size-speed plot next to the page that holds ``perf-table``. The text
depends only on out/*/manifest.json and gen/presets.py, so running it twice changes nothing.

Our figures come from the slicegen cycle model (emu/bench/cycles.py: Cortex-M4/M3 TRM timings, zero
wait states), not from silicon; peer figures are what their authors (or our issues) published,
with the platform and method each was obtained on. They are beside ours for orientation: a
figure measured on silicon with flash wait states and one from a zero-wait-state model are
not the same quantity.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from gen.report import armv8 as report_armv8

from gen.report import size as report_size

from gen.report import rv32 as report_rv32
from gen.report import multikey as report_multikey

START = "<!-- perf-table:start -->"
END = "<!-- perf-table:end -->"
GCM_SIZES = ("16", "256", "4096")      # the message sizes shown in the README
GCTR_SIZE = "4096"                     # the message size of the FACE table's GCTR columns
ECB_KEY = "64"                         # ecb_cycles_per_block entry used for "AES cycles/byte"


@dataclass(frozen=True)
class Peer:
    name: str          # implementation
    what: str          # "aes" (block cipher alone), "ghash" (GHASH alone), "gcm" (whole AES-GCM)
    cipher: str | None # aes128 | aes256 for aes/gcm figures
    variant: str | None  # slicing (ffs/sfs) for aes, GHASH impl for ghash, None for gcm
    constant_time: bool
    platform: str      # where/how it was measured
    cycles_per_byte: float
    approx: bool       # "about" (a rounded figure)
    source: str


# Published figures. Keep the sources named; the issues quote them.
# aadomn/aes: issue 3 quotes "84.3 cycles/byte on Cortex-M3 silicon (AES-256 ffs 115.6, sfs 87.1)";
# 87.1 is the semi-fixsliced AES-128 figure (sfs is the slower variant and AES-256 costs ~1.4x
# AES-128). An older revision of that README lists 87.3 / 91.3 (AES-128 ffs / sfs) and 119.8 / 125.8
# (AES-256) for the non-unrolled code.
PEERS: tuple[Peer, ...] = (
    Peer("aadomn/aes fully fixsliced AES-128 (asm)", "aes", "aes128", "ffs", True,
         "Cortex-M3 silicon", 84.3, False, "aadomn/aes README (quoted in issue 3)"),
    Peer("aadomn/aes semi-fixsliced AES-128 (asm)", "aes", "aes128", "sfs", True,
         "Cortex-M3 silicon", 87.1, False, "aadomn/aes README (quoted in issue 3)"),
    Peer("aadomn/aes fully fixsliced AES-256 (asm)", "aes", "aes256", "ffs", True,
         "Cortex-M3 silicon", 115.6, False, "aadomn/aes README (quoted in issue 3)"),
    Peer("BearSSL ghash_ctmul (C, -O2)", "ghash", None, "ctmul", True,
         "Cortex-M4 timing model", 75.0, True, "BearSSL src/hash/ghash_ctmul.c, figure from issue 4"),
    Peer("BearSSL ghash_ctmul32 (C, -O2)", "ghash", None, "ctmul", True,
         "Cortex-M4 timing model", 102.0, True, "BearSSL src/hash/ghash_ctmul32.c, figure from issue 4"),
    Peer("fixsliced AES asm + BearSSL ctmul, glued", "gcm", "aes128", None, True,
         "Cortex-M4 timing model", 179.0, True, "aadomn/aes + BearSSL, figure from issue 4"),
    Peer("best 4-bit table GHASH (C)", "ghash", None, "table4", False,
         "Cortex-M4 timing model", 53.0, True, "figure from issue 4 (seed paper's comparison)"),
    Peer("mbedTLS GHASH (4-bit table, C)", "ghash", None, "table4", False,
         "Cortex-M4 timing model", 66.0, True, "mbedTLS library/gcm.c, figure from issue 4"),
    Peer("best 8-bit table GHASH (C)", "ghash", None, "table8", False,
         "Cortex-M4 timing model", 27.0, True, "figure from issue 4"),
)

WHAT = {"aes": "AES alone", "ghash": "GHASH alone", "gcm": "AES-GCM, 4 KiB"}


# -- our figures --------------------------------------------------------------------------------
def _num(x, digits=2) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def aes_cpb(metrics: dict) -> float | None:
    ecb = metrics.get("ecb_cycles_per_block") or {}
    v = ecb.get(ECB_KEY)
    return None if v is None else round(v / 16, 2)


def ghash_cpb(metrics: dict) -> float | None:
    return metrics.get("ghash_cycles_per_byte")


def gcm_cpb(metrics: dict, size: str = "4096") -> float | None:
    return (metrics.get("cycles_per_byte") or {}).get(size)


def gctr_cpb(metrics: dict, size: str = "4096") -> float | None:
    """Keystream (GCTR) part of `encrypt`, per byte (emu/bench/drop.py: encrypt minus its GHASH functions)."""
    return (metrics.get("gctr_cycles_per_byte") or {}).get(size)


def gctr_cycles(metrics: dict, size: str = "4096") -> int | None:
    return (metrics.get("gctr_cycles") or {}).get(size)


def _sorted(manifests) -> list[dict]:
    return sorted(manifests, key=lambda m: m["name"])


def _core(m: dict) -> str:
    met = m.get("metrics", {})
    core = met.get("core") or ("cortex-m4" if m["target"] == "portable" else m["target"])
    fpu = " + FPU spills" if report_size.fpu_spill(m) else ""
    return (m["target"] if core == m["target"] else f"{m['target']} (on {core})") + fpu


def is_gcm(m: dict) -> bool:
    return m.get("mode", "gcm") == "gcm"


def block_table(manifests) -> str | None:
    """Block-cipher drops (ecb, ctr): ECB and CTR cycles per byte, key set-up, sizes."""
    rows = []
    for m in _sorted(x for x in manifests if not is_gcm(x)):
        met = m.get("metrics", {})
        cpb = met.get("cycles_per_byte") or {}
        rows.append([f"`{m['name']}`", m["cipher"], m["mode"], _core(m), "yes" if m.get("constant_time") else "**no**",
                     _num(met.get("ecb_cycles_per_byte")), _num(cpb.get("1024")), _num(cpb.get("4096")),
                     _num(met.get("key_setup_cycles")), _num(met.get("text_bytes")), _num(met.get("ctx_bytes")),
                     _num(met.get("stack_bytes"))])
    if not rows:
        return None
    head = ["drop", "cipher", "mode", "target", "constant-time", "ECB c/B", "CTR c/B @1024", "CTR c/B @4096",
            "key setup cycles", ".text B", "ctx B", "stack B"]
    return _markdown(head, rows, right_from=5)


def drops_table(manifests) -> str:
    head = (["drop", "target", "slicing", "GHASH", "constant-time"]
            + [f"GCM c/B @{n}" for n in GCM_SIZES] + ["decrypt c/B @16"]
            + ["AES c/B", "GHASH c/B", "key setup cycles", ".text B", "ctx B", "stack B"])
    rows = []
    for m in _sorted(x for x in manifests if is_gcm(x)):
        met, opt = m.get("metrics", {}), m.get("options", {})
        rows.append([f"`{m['name']}`", _core(m), opt.get("slicing", "—"), opt.get("ghash", "—"),
                     "yes" if m.get("constant_time") else "**no**"]
                    + [_num(gcm_cpb(met, n)) for n in GCM_SIZES]
                    + [_num((met.get("decrypt_cycles_per_byte") or {}).get("16"))]
                    + [_num(aes_cpb(met)), _num(ghash_cpb(met)), _num(met.get("key_setup_cycles")),
                       _num(met.get("text_bytes")), _num(met.get("ctx_bytes")), _num(met.get("stack_bytes"))])
    return _markdown(head, rows, right_from=5)


def aes_table(manifests) -> str:
    """Issue 3's table: the fixsliced Thumb-2 AES, ffs/sfs x 128/192/256 x M3/M4, beside aadomn/aes."""
    rows = []
    pub = {(p.cipher, p.variant): p for p in PEERS if p.what == "aes"}
    chosen = {}
    for m in _sorted(manifests):
        opt = m.get("options", {})
        if m["target"] not in ("cortex-m4", "cortex-m3") or opt.get("face", "off") != "off" \
                or opt.get("ghash") != "ctmul" or report_size.objective(m) != "speed" or report_size.fpu_spill(m):
            continue
        chosen.setdefault((m["target"], opt.get("slicing"), m["cipher"]), m)
    order = {"cortex-m3": 0, "cortex-m4": 1, "ffs": 0, "sfs": 1}
    for key in sorted(chosen, key=lambda k: (order[k[0]], order[k[1]], k[2])):
        m = chosen[key]
        met = m["metrics"]
        peer = pub.get((m["cipher"], key[1]))
        rows.append([key[0], key[1], m["cipher"].upper().replace("AES", "AES-"), _num(aes_cpb(met)),
                     f"{peer.cycles_per_byte:g} ({peer.platform})" if peer else "—",
                     _num(met.get("key_schedule_cycles")), _num(met.get("text_bytes")),
                     _num(met.get("round_key_bytes"))])
    head = ["core", "slicing", "cipher", "AES c/B", "aadomn/aes c/B", "key schedule cycles",
            ".text B (whole drop)", "round-key B"]
    return _markdown(head, rows, right_cols={3, 5, 6, 7})


def face_table(manifests) -> str | None:
    """FACE drops beside the same configuration with face off: GCM c/B per size, the saving at
    4 KiB, the keystream (GCTR) c/B at 4 KiB and its saving (issue 5's figure; "—" for
    manifests measured before emu/bench/drop.py had it), the break-even size (the first measured
    size where FACE is faster) and the RAM (FACE cache, ctx: r1's table lives in the ctx)."""
    ms = _sorted(manifests)
    rows = []
    for m in ms:
        base = face_off_twin(m, ms) if m["options"].get("face", "off") != "off" else None
        if base is None:
            continue
        off, met = base["metrics"], m["metrics"]
        sizes = sorted(met["cycles"], key=int)
        even = next((n for n in sizes if met["cycles"][n] < off["cycles"][n]), None)
        saving = 100.0 * (1 - met["cycles"]["4096"] / off["cycles"]["4096"])
        g_off, g_face = gctr_cycles(off, GCTR_SIZE), gctr_cycles(met, GCTR_SIZE)
        if g_off and g_face:
            gctr = [f"{_num(gctr_cpb(off))} → {_num(gctr_cpb(met))}", f"{100.0 * (1 - g_face / g_off):.1f}%"]
        else:
            gctr = ["—", "—"]
        rows.append([f"`{m['name']}`", f"`{base['name']}`"]
                    + [f"{_num(off['cycles_per_byte'][n])} → {_num(met['cycles_per_byte'][n])}" for n in GCM_SIZES]
                    + [f"{saving:.1f}%"] + gctr
                    + [f"{even} B" if even else "—", _num(met.get("cache_bytes")), _num(met.get("ctx_bytes")),
                       _num(met.get("stack_bytes"))])
    if not rows:
        return None
    head = (["FACE drop", "same with face off"] + [f"GCM c/B @{n}: off → FACE" for n in GCM_SIZES]
            + ["saving @4096", f"GCTR c/B @{GCTR_SIZE}: off → FACE", f"GCTR saving @{GCTR_SIZE}",
               "faster from (measured sizes)", "cache B", "ctx B", "stack B"])
    return _markdown(head, rows, right_from=2)


def face_off_twin(m: dict, ms) -> dict | None:
    """The drop of the same configuration as FACE drop `m` with face off, if built."""
    for o in ms:
        if all(o.get(k) == m.get(k) for k in ("cipher", "target")) and o["options"].get("face") == "off" \
                and all(o["options"].get(k) == m["options"].get(k) for k in ("slicing", "ghash")) \
                and report_size.objective(o) == report_size.objective(m):
            return o
    return None


#: message sizes of the cached-FACE table
CACHE_SIZES = ("64", "4096")


def face_cache_table(manifests) -> str | None:
    """FACE drops through their caller-owned cache (``metrics.face_cache``, emu/bench/face_cache.py:
    the mean over 256 messages with consecutive IVs, one rebuild amortised) against the same
    configuration with face off: GCTR saving and GCM c/B at 64 B and 4 KiB, and the cache's RAM."""
    ms = _sorted(manifests)
    rows = []
    for m in ms:
        fc = m.get("metrics", {}).get("face_cache")
        base = face_off_twin(m, ms) if fc else None
        if base is None:
            continue
        off = base["metrics"]
        row = [f"`{m['name']}`"]
        for n in CACHE_SIZES:
            g_off = gctr_cycles(off, n)
            row += [f"{_num(gctr_cpb(off, n))} → {_num(fc['gctr_cycles_per_byte'][n])}",
                    f"{100.0 * (1 - fc['gctr_cycles'][n] / g_off):.1f}%" if g_off else "—",
                    f"{_num(off['cycles_per_byte'][n])} → {_num(fc['cycles_per_byte'][n])}",
                    f"{100.0 * (1 - fc['cycles'][n] / off['cycles'][n]):.1f}%"]
        row += [_num(m["metrics"].get("face_cache_bytes")), _num(fc.get("stack_bytes"))]
        rows.append(row)
    if not rows:
        return None
    head = ["FACE drop, cached calls"]
    for n in CACHE_SIZES:
        head += [f"GCTR c/B @{n}: off → cached", f"GCTR saving @{n}", f"GCM c/B @{n}: off → cached",
                 f"GCM saving @{n}"]
    return _markdown(head + ["cache B", "stack B"], rows, right_from=1)


def face_kernel_table(manifests) -> str | None:
    """FACE drops' kernel figures (the generator's cycle model, ``metrics.kernel_cycles``): a
    pair in the plain counter-mode loop against a pair in the FACE loop, the saving per pair
    (the most FACE can save at any length, before set-up, fills and bookkeeping), and what a
    run's set-up and an r2 group fill cost."""
    rows = []
    for m in _sorted(manifests):
        k = m.get("metrics", {}).get("kernel_cycles") or {}
        if "face_encrypt2_per_pair" not in k:
            continue
        plain, face = k["ctr_pairs_per_pair"], k["face_encrypt2_per_pair"]
        fill = k["face_fill_group"] if m["options"].get("face") == "r2" else None
        rows.append([f"`{m['name']}`", _num(plain), _num(face), f"{_num(plain - face)} ({100.0 * (plain - face) / plain:.1f}%)",
                     _num(k["face_setup"]), _num(fill) if fill else "— (r1: at init)",
                     f"{fill / (plain - face):.1f}" if fill else "—"])
    if not rows:
        return None
    head = ["FACE drop", "plain pair (loop step)", "FACE pair (loop step)", "saved per pair",
            "set-up per run", "fill per 32-entry group", "pairs that pay one fill"]
    return _markdown(head, rows, right_from=1)


def best_match(peer: Peer, manifests) -> tuple[str, float] | None:
    """Our fastest drop measuring the same thing as `peer` (same cipher and variant)."""
    best = None
    for m in _sorted(manifests):
        met, opt = m.get("metrics", {}), m.get("options", {})
        if m.get("target") == "armv8a":        # A-class: compared in their own table (gen/report/armv8.py)
            continue
        if report_size.fpu_spill(m):           # needs a Cortex-M4F; the peers run without an FPU
            continue
        if peer.what == "aes":
            if m.get("cipher") != peer.cipher or opt.get("slicing") != peer.variant:
                continue
            v = aes_cpb(met)
        elif peer.what == "ghash":
            if opt.get("ghash") != peer.variant:
                continue
            v = ghash_cpb(met)
        else:
            if m.get("cipher") != peer.cipher or not m.get("constant_time"):
                continue
            v = gcm_cpb(met)
        if v is not None and (best is None or v < best[1]):
            best = (m["name"], v)
    return best


def peers_table(manifests) -> str:
    head = ["published", "measures", "platform", "c/B", "source", "our fastest comparable drop", "our c/B"]
    rows = []
    for p in PEERS:
        match = best_match(p, manifests)
        rows.append([p.name + ("" if p.constant_time else " (not constant-time)"), WHAT[p.what], p.platform,
                     ("~" if p.approx else "") + f"{p.cycles_per_byte:g}", p.source,
                     f"`{match[0]}`" if match else "— (none yet)", _num(match[1]) if match else "—"])
    return _markdown(head, rows, right_from=None, right_cols={3, 6})


def _markdown(head, rows, right_from=None, right_cols=frozenset()) -> str:
    def right(i):
        return (right_from is not None and i >= right_from) or i in right_cols
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---:" if right(i) else "---" for i in range(len(head))) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def _models(manifests) -> list[str]:
    seen = []
    for m in _sorted(manifests):
        met = m.get("metrics", {})
        line = met.get("model", "")
        if met.get("compiler"):
            line += f"; C compiled with {met['compiler']}"
        if line and line not in seen:
            seen.append(line)
    return seen


def perf_table(manifests) -> str:
    """The markdown that goes between docs/performance.md's perf-table markers."""
    manifests = list(manifests)
    parts = ["<!-- generated by `python -m gen.report` from out/*/manifest.json; do not edit -->", ""]
    if manifests:
        parts += [drops_table(manifests), ""]
        parts.append("GCM: `encrypt` with a 96-bit IV, no AAD, 16-byte tag, per message byte; decrypt: "
                     "`decrypt` of the same 16-byte message and tag (it verifies, then decrypts). AES: "
                     "`ecb_encrypt` over 64 blocks. GHASH: `ghash` over 4096 bytes. Key setup: `init`. "
                     "Stack: the deepest of these calls, measured by painting the stack.")
        parts += [""] + [f"Model: {line}." for line in _models(manifests)]
        parts += ["", "Fixsliced AES in Thumb-2 (two blocks per call, packing included; `ecb_encrypt` over "
                  "64 blocks; the key schedule alone):", "", aes_table(manifests)]
        face = face_table(manifests)
        if face:
            parts += ["", "FACE (GCM encrypt, 96-bit IV, per-message set-up and table fills included; "
                      "the cache lives in the stream, on the stack for one-shot calls). GCTR is the keystream part "
                      "of the same call: encrypt minus the cycles inside the GHASH functions (`ghash_blocks`, "
                      "`ghash_feed`, `ghash_pad`) and the tag finalisation (`final_tag`), attributed per function "
                      "symbol by the cycle model (emu/bench/drop.py):", "", face]
        cached = face_cache_table(manifests)
        if cached:
            parts += ["", "FACE across messages: the `*_cached` calls with a caller-owned table "
                      "(`PREFIX_face_cache`), mean per message over 256 messages with consecutive 96-bit IVs "
                      "(one table: IV bytes 0, 5, 10 agree; C2 from the cache's table by IV byte 11), one rebuild "
                      "amortised; each kind of call measured "
                      "in the emulator (emu/bench/face_cache.py `bench_cached`). Against the same configuration with "
                      "face off; r1 keeps nothing per IV, so its cached calls are its plain ones:", "", cached]
        trade = report_size.table(manifests, _markdown)
        if trade:
            parts += ["", "Code size against speed (`[schedule] objective`, issue 19; the same GCM encrypt as above, "
                      "cycles @4096 relative to the speed drop with FACE off; RAM: ctx plus any FACE cache). "
                      f"Plotted in [{report_size.SVG_NAME}]({report_size.SVG_NAME}):", "", trade]
        blocks = block_table(manifests)
        if blocks:
            parts += ["", "Block-cipher drops (bitsliced, no tables; packing included): `ecb_encrypt` over 64 blocks "
                      "per byte, `ctr` one-shot per message byte, `init` for the key set-up:", "", blocks]
        parts += report_armv8.section(manifests)
        fk = face_kernel_table(manifests)
        if fk:
            parts += ["", "FACE kernels (the generator's cycle model, `metrics.kernel_cycles` of the manifest): the "
                      "saving per pair is the ceiling of the GCTR saving at any length; a 4 KiB message also pays "
                      "a run set-up, one fill per group of 32 counters it reaches (8 for r2), the pair that "
                      "carries into counter byte 14 (plain path), and the wipe of the cache:", "", fk]
    else:
        parts.append("No drops built yet: run `make`.")
    parts += ["", "Published figures, beside the closest of ours:", "", peers_table(manifests), "",
              "Silicon figures include flash wait states and bus effects the zero-wait-state model leaves "
              "out; peer figures marked ~ are rounded."]
    return "\n".join(parts)


# -- the pages -----------------------------------------------------------------------------------
def load_manifests(out_dir: Path) -> list[dict]:
    """Every drop's manifest; a multi-key drop once per key size (gen/report/multikey.py)."""
    out_dir = Path(out_dir)
    return _sorted(report_multikey.expand(json.loads(p.read_text()) for p in sorted(out_dir.glob("*/manifest.json"))))


def replace_between(text: str, table: str, start: str = START, end: str = END) -> str:
    i, j = text.find(start), text.find(end)
    if i < 0 or j < 0 or j < i:
        raise ValueError(f"the page has no {start} … {end} markers (in that order)")
    return text[:i + len(start)] + "\n" + table.rstrip("\n") + "\n" + text[j:]


PRESETS_START, PRESETS_END = "<!-- presets:start -->", "<!-- presets:end -->"


def presets_table() -> str:
    """docs/presets.md's preset list, from gen/presets.py (what `slicegen list` prints)."""
    from gen import presets
    rows = []
    for c in presets.all_presets():
        gcm = c.mode == "gcm"
        title = f"AES-{'/'.join(map(str, c.keybits))}" if c.keybits else c.spec.title   # multi-key: every size
        rows.append([f"`{c.name}`", title + ("-GCM" if gcm else f" {c.mode.upper()}"), c.target,
                     (f"unroll {c.unroll}, {c.mul}, EOR3 {c.eor3}, GHASH {c.ghash}"
                      + (f", scheduled for {c.core}" if c.core != "generic" else "")
                      + (f", decrypt {c.decrypt}" if c.decrypt != "verify-first" else "") if c.target == "armv8a" else
                      f"{c.slicing}, face {c.face}, GHASH {c.ghash}"
                      + (f", objective {c.objective}" if c.objective != "speed" else "")
                      + (f", spill {c.spill} (Cortex-M4F)" if c.spill != "stack" else "")) if gcm else "bitsliced",
                     "yes" if c.constant_time else "**no** (table GHASH)",
                     "yes" if c.name in presets.DEFAULTS else ""])
    head = ["preset", "cipher", "target", "options", "constant time", "built by `make`"]
    return _markdown(head, rows)


DROPS_START, DROPS_END = "<!-- drops:start -->", "<!-- drops:end -->"

#: the README table's row order: cores, then ciphers
_CORE_ORDER = ("cortex-m4", "cortex-m3", "armv8a", "rv32imac", "portable")
_CIPHER_ORDER = ("aes128", "aes192", "aes256", "rijndael256", "speedy5", "speedy6", "speedy7")


def _cipher_title(m: dict) -> str:
    from gen.ciphers import CIPHERS
    spec = CIPHERS.get(m["cipher"])
    title = spec.title if spec else m["cipher"]
    return title + ("-GCM" if is_gcm(m) else f" {m.get('mode', '').upper()}")


def headline_cpb(m: dict) -> float | None:
    """The one figure of the README's table: cycles per byte of a 4 KiB message (GCM encrypt,
    CTR), or of ECB over 64 blocks; on the manifest's own core (``metrics.core``)."""
    met = m.get("metrics", {})
    if m.get("mode") == "ecb":
        return met.get("ecb_cycles_per_byte")
    return gcm_cpb(met, "4096")


def _choice_core(m: dict) -> str:
    """The core a README row's figure is for: an armv8a drop's first llvm-mca core."""
    cores = m.get("metrics", {}).get("mca_cores")
    if m["target"] == "armv8a" and cores:
        return f"armv8a ({report_armv8.CORE_NAMES.get(cores[0], cores[0])} model)"
    return _core(m)


def drops_choice_table(manifests) -> str:
    """README.md's short table for choosing a drop: one row per core and cipher, naming the
    fastest constant-time drop and, where another one is smaller, the smallest (fewest .text
    bytes); every drop's figures are docs/performance.md's. Not-constant-time drops are left out."""
    groups: dict = {}
    whole: dict = {}                  # multi-key drops: one row each, its figure per key size
    for m in manifests:
        if m.get("multikey_of"):
            whole.setdefault(m["multikey_of"], m)
        elif m.get("constant_time") and headline_cpb(m) is not None:
            groups.setdefault((_choice_core(m), _cipher_title(m)), []).append(m)

    def order(key):
        core, _ = key
        m = groups[key][0]
        t, c = m["target"], m["cipher"]
        return (_CORE_ORDER.index(t) if t in _CORE_ORDER else len(_CORE_ORDER), core,
                _CIPHER_ORDER.index(c) if c in _CIPHER_ORDER else len(_CIPHER_ORDER), c, m.get("mode", ""))

    def cell(m):
        return f"`{m['name']}`", _num(headline_cpb(m)), _num(m.get("metrics", {}).get("text_bytes"))

    keyed = []
    for key in groups:
        ms = groups[key]
        fast = min(ms, key=lambda m: (headline_cpb(m), m["metrics"].get("text_bytes", 0), m["name"]))
        small = min(ms, key=lambda m: (m["metrics"].get("text_bytes", 0), headline_cpb(m), m["name"]))
        keyed.append((order(key), [*key, *cell(fast), *(cell(small) if small is not fast else ("same", "", ""))]))
    for name, m in whole.items():      # after the single-key rows of their core
        core, t = _choice_core(m), m["target"]
        keyed.append(((_CORE_ORDER.index(t) if t in _CORE_ORDER else len(_CORE_ORDER), core,
                       len(_CIPHER_ORDER) + 1, name, ""),
                      [core, report_multikey.title(m), f"`{name}`",
                       report_multikey.headline(m, lambda met: gcm_cpb(met, "4096")),
                       _num(m["metrics"].get("text_bytes")), "same", "", ""]))
    rows = [row for _, row in sorted(keyed, key=lambda kr: kr[0])]
    parts = ["<!-- generated by `python -m gen.report` from out/*/manifest.json; do not edit -->", ""]
    if not rows:
        return "\n".join(parts + ["No drops built yet: run `make`."])
    head = ["core", "cipher", "fastest", "c/B", ".text B", "smallest", "c/B", ".text B"]
    return "\n".join(parts + [_markdown(head, rows, right_cols={3, 4, 6, 7})])


#: what goes between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``, by NAME
SECTIONS = {
    "drops": (DROPS_START, DROPS_END, drops_choice_table),
    "perf-table": (START, END, perf_table),
    "presets": (PRESETS_START, PRESETS_END, lambda manifests: presets_table()),
    "rv32": ("<!-- rv32:start -->", "<!-- rv32:end -->", lambda manifests: "\n".join(report_rv32.section(manifests))),
    "multikey": ("<!-- multikey:start -->", "<!-- multikey:end -->",
                 lambda manifests: report_multikey.section(manifests, _markdown)),
}
#: the generated sections of README.md, and of each docs/ page (by its name in the docs folder)
README_SECTIONS = ("drops",)
DOCS_PAGES = {"performance.md": ("perf-table",), "presets.md": ("presets",), "riscv.md": ("rv32",),
              "multikey.md": ("multikey",)}


def fill(text: str, manifests, names=None) -> str:
    """`text` with the sections `names` regenerated (None: every section whose start marker it
    has, at least one); ValueError when a section's markers are missing."""
    if names is None:
        names = [n for n, (start, _, _) in SECTIONS.items() if start in text]
        if not names:
            raise ValueError("the page has no generated section's markers (" +
                             ", ".join(s for s, _, _ in SECTIONS.values()) + ")")
    for name in names:
        start, end, make = SECTIONS[name]
        text = replace_between(text, make(manifests), start, end)
    return text


def _plan(page: Path, manifests, names=None) -> tuple[Path, str, str]:
    old = Path(page).read_text()
    return Path(page), old, fill(old, manifests, names)


def _write(plans, manifests) -> list[Path]:
    """Write the pages that change, and the size-speed plot next to the page of ``perf-table``
    (its link is relative); the paths written."""
    changed = []
    for path, old, new in plans:
        if new != old:
            path.write_text(new)
            changed.append(path)
        if START in new:
            plot = path.parent / report_size.SVG_NAME
            if report_size.write_svg(plot, manifests):
                changed.append(plot)
    return changed


def update_readme(readme_path: Path, manifests) -> bool:
    """Regenerate every section whose markers one page has (and the plot next to it, when it holds
    ``perf-table``); True when anything changed."""
    return bool(_write([_plan(readme_path, manifests)], manifests))


def update_pages(readme_path: Path, docs_dir: Path, manifests) -> list[Path]:
    """README.md and every generated docs/ page, in one pass: each page is read and regenerated
    before any is written, so a page without its markers leaves every file as it was. Returns
    the paths that changed."""
    manifests = list(manifests)
    plans = [_plan(readme_path, manifests, README_SECTIONS)]
    plans += [_plan(Path(docs_dir) / name, manifests, names) for name, names in DOCS_PAGES.items()]
    return _write(plans, manifests)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gen.report", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out", help="the folder of drops (default: out)")
    ap.add_argument("--readme", default="README.md", help="the README to update (default: README.md)")
    ap.add_argument("--docs", default="docs", help="the folder of the docs pages to update (default: docs)")
    args = ap.parse_args(argv)
    try:
        changed = update_pages(Path(args.readme), Path(args.docs), load_manifests(Path(args.out)))
    except (OSError, ValueError) as exc:
        print(f"gen.report.tables: {exc}", file=sys.stderr)
        return 2
    print("updated: " + ", ".join(map(str, changed)) if changed else
          f"{args.readme}, {args.docs}/: unchanged", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
