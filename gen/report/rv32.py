"""docs/riscv.md's generated section (issue 36), from the rv32imac drops' manifests: the E31 model's
figures beside the published E31 ones and the issue's targets, and the llvm-mca-19 cross-check.
Called by gen/report/tables.py's update_pages with every manifest (the ratio targets compare
with our Cortex-M3/M4 drops)."""
from __future__ import annotations

#: (implementation, cipher, c/B on HiFive1 silicon, c/B by llvm-mca-19 over its executed stream in
#: Unicorn's E31): aadomn/aes's RV32 assembly, as issue 36 quotes them
PEERS = (
    ("aadomn/aes fully fixsliced (RV32I asm)", "aes128", 89.3, 88.50),
    ("aadomn/aes fully fixsliced (RV32I asm)", "aes256", 122.4, 121.47),
    ("aadomn/aes semi-fixsliced (RV32I asm)", "aes128", 93.4, 92.31),
    ("aadomn/aes barrel-shiftrows (RV32I asm)", "aes128", 78.9, 78.07),
    ("aadomn/aes barrel-shiftrows (RV32I asm)", "aes256", 105.7, 104.66),
)
#: the issue's targets: ECB c/B on the E31 model, or a ratio to one of our drops' ECB c/B
TARGETS = {"aes128": ("c/B", 70.0), "aes256": ("c/B", 95.0),
           "speedy5": ("x", 1.3, "speedy5ecb-m3"), "speedy6": ("x", 1.3, "speedy6ecb-m3"),
           "speedy7": ("x", 1.3, "speedy7ecb-m3"), "rijndael256": ("x", 1.2, "rijndael256ecb-m4")}


def _n(x, d=2) -> str:
    return "—" if x is None else (f"{x:.{d}f}" if isinstance(x, float) else f"{x:,}")


def _table(head, rows) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    return "\n".join(out + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows])


def _ecb(m) -> float | None:
    met = m["metrics"]
    per_block = met.get("ecb_cycles_per_block", {}).get("64")
    return met.get("ecb_cycles_per_byte") or (per_block / 16 if per_block else None)


def section(manifests) -> list[str]:
    ms = sorted((m for m in manifests if m.get("target") == "rv32imac"), key=lambda m: m["name"])
    if not ms:
        return []
    by_name = {m["name"]: m for m in manifests}
    rows = []
    for m in ms:
        ecb = _ecb(m)
        t = TARGETS.get(m["cipher"])
        if t is None:
            target, held = "—", "—"
        elif t[0] == "c/B":
            target, held = f"≤ {t[1]:g} c/B", "yes" if ecb <= t[1] else "**no**"
        else:
            ref = by_name.get(t[2])
            ref_cpb = _ecb(ref) if ref else None
            ratio = ecb / ref_cpb if ref_cpb else None
            target = f"≤ {t[1]:g} × `{t[2]}` ({_n(ref_cpb)})"
            held = "—" if ratio is None else (f"{ratio:.2f} ×: " + ("yes" if ratio <= t[1] else "**no**"))
        met = m["metrics"]
        rows.append([f"`{m['name']}`", _n(ecb), target, held, _n(met.get("cycles_per_byte", {}).get("4096")),
                     _n(met.get("ghash_cycles_per_byte")), _n(met.get("key_setup_cycles")), _n(met.get("text_bytes"))])
    head = ["drop", "ECB c/B (64 blocks)", "issue 36 target", "held", "c/B @4096 (GCM: encrypt; CTR: ctr)",
            "GHASH c/B", "key setup cycles", ".text B"]
    xrows = []
    for m in ms:
        x = m["metrics"].get("llvm_mca_cross_check")
        if x:
            xrows.append([f"`{m['name']}`", _n(x["model_cycles"]), _n(x["llvm_mca_cycles"]),
                          f"{x['difference_pct']:+.2f} %", _n(x["instructions"]), _n(x["muls"]),
                          _n(x["mispredicts"]), _n(x["stall_cycles"])])
    xhead = ["drop (`ecb_encrypt`, 64 blocks)", "E31 model", "llvm-mca-19 sifive-e31", "difference",
             "instructions", "MULs", "mispredicts", "stall cycles"]
    peers = []
    for name, cipher, silicon, mca in PEERS:
        mine = [m for m in ms if m["cipher"] == cipher and m["mode"] == "gcm"]
        peers.append([name, cipher.upper().replace("AES", "AES-"), f"{silicon:g}", f"{mca:.2f}",
                      f"`{mine[0]['name']}`: {_n(_ecb(mine[0]))}" if mine else "—"])
    phead = ["published (ECB)", "cipher", "HiFive1 c/B", "llvm-mca-19 c/B (issue 36)", "ours, E31 model c/B"]
    return ["", "RV32IMAC on the SiFive E31 model (emu/bench/rv32_cycles.py; AES in the GCM drops and the SPEEDY and "
            "Rijndael-256 block functions in generated RV32 assembly, `metrics.kernel_cycles`; everything else C compiled "
            "by the drop's `metrics.compiler`): ECB over "
            "64 blocks per byte, against issue 36's targets:", "",
            _table(head, rows), "", "The E31 model against llvm-mca-19 -mcpu=sifive-e31 over the same executed "
            "stream (`metrics.llvm_mca_cross_check`; control transfers as 1-cycle nops on llvm-mca's side):", "",
            _table(xhead, xrows), "", "Published E31 figures (aadomn/aes, RV32I assembly) beside ours:", "",
            _table(phead, peers)]
