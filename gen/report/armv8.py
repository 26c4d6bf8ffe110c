"""docs/performance.md's A-class section (issue 17), from the armv8a drops' manifests: llvm-mca-19 figures
per core beside the seed paper's and OpenSSL's. Called by gen/report/tables.py's perf_table."""
from __future__ import annotations

SIZES = ("16", "256", "1024", "4096")
CORE_NAMES = {"cortex-a72": "Cortex-A72", "neoverse-n1": "Neoverse N1", "neoverse-v1": "Neoverse V1",
              "cortex-a55": "Cortex-A55 (in order)"}

#: (implementation, what it measures, core (None: not one llvm-mca models), how, c/B, source), the figures
#: issue 17 quotes; the seed paper's is set beside our Cortex-A72 figure, Apple M1's beside none
PEERS = (
    ("Gouvêa & López, AES-128-GCM (seed paper)", "AES-GCM, whole", None, "their Cortex-A test core", 1.71,
     "Implementing GCM on ARMv8, CT-RSA 2015"),
    ("OpenSSL 3.0 aes-gcm-armv8_64, encrypt loop", "AES-GCM loop", "cortex-a72", "llvm-mca 14", 1.407, "issue 17"),
    ("OpenSSL 3.0 aes-gcm-armv8_64, encrypt loop", "AES-GCM loop", "neoverse-n1", "llvm-mca 19", 1.438, "issue 17"),
    ("OpenSSL 3.0, 4-block GHASH", "GHASH alone", "cortex-a72", "llvm-mca 14", 0.719, "issue 17"),
    ("OpenSSL 3.0, 4-block GHASH", "GHASH alone", "neoverse-n1", "llvm-mca 19", 0.422, "issue 17"),
    ("OpenSSL (non-stitched), published", "AES-GCM, whole", "neoverse-n1", "silicon", 1.2, "issue 17 (about)"),
    ("OpenSSL, Apple M1, published", "AES-GCM, whole", None, "Apple M1 silicon", 0.38, "issue 17 (about)"),
)


def _armv8(manifests) -> list[dict]:
    return sorted((m for m in manifests if m.get("target") == "armv8a"), key=lambda m: m["name"])


def _n(x, d=3) -> str:
    return "—" if x is None else (f"{x:.{d}f}" if isinstance(x, float) else str(x))


def drops_table(ms) -> str:
    head = (["drop", "core (llvm-mca-19)"] + [f"GCM c/B @{n}" for n in SIZES]
            + ["stitched loop c/B", "GHASH c/B", "key setup cycles", ".text B", "stack B"])
    rows = []
    for m in ms:
        met = m["metrics"]
        loop = (met.get("kernel_cycles") or {}).get("steady_state_cycles_per_byte", {}).get("ctr_ghash_pairs_loop", {})
        for core, per in met.get("cycles_per_byte_by_core", {}).items():
            rows.append([f"`{m['name']}`", CORE_NAMES.get(core, core)] + [_n(per.get(n)) for n in SIZES]
                        + [_n(loop.get(core)), _n(met.get("ghash_cycles_per_byte_by_core", {}).get(core)),
                           _n(met.get("key_setup_cycles_by_core", {}).get(core)), _n(met.get("text_bytes")),
                           _n(met.get("stack_bytes"))])
    return _table(head, rows, right_from=2)


def peers_table(ms) -> str:
    best = {}
    for m in ms:
        if m["cipher"] != "aes128":
            continue
        met = m["metrics"]
        loop = (met.get("kernel_cycles") or {}).get("steady_state_cycles_per_byte", {}).get("ctr_ghash_pairs_loop", {})
        for core, per in met.get("cycles_per_byte_by_core", {}).items():
            for what, v in (("AES-GCM, whole", per.get("4096")), ("AES-GCM loop", loop.get(core)),
                            ("GHASH alone", met.get("ghash_cycles_per_byte_by_core", {}).get(core))):
                if v is not None and ((what, core) not in best or v < best[(what, core)][1]):
                    best[(what, core)] = (m["name"], v)
    rows = []
    for name, what, core, how, cpb, source in PEERS:
        mine = best.get((what, core or "cortex-a72")) if "M1" not in how else None
        rows.append([name, what, CORE_NAMES.get(core, how) if core else how, how if core else "—", f"{cpb:g}", source,
                     f"`{mine[0]}` on {CORE_NAMES[core or 'cortex-a72']}" if mine else "—",
                     _n(mine[1]) if mine else "—"])
    head = ["published", "measures", "core", "how", "c/B", "source", "ours (4 KiB whole call, or the loop)", "our c/B"]
    return _table(head, rows, right_cols={4, 7})


def _table(head, rows, right_from=None, right_cols=frozenset()) -> str:
    def right(i):
        return (right_from is not None and i >= right_from) or i in right_cols
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" if right(i) else "---" for i in range(len(head))) + "|"]
    return "\n".join(out + ["| " + " | ".join(r) + " |" for r in rows])


def section(manifests) -> list[str]:
    ms = _armv8(manifests)
    if not ms:
        return []
    return ["", "ARMv8-A (AArch64, AESE/AESMC + PMULL): llvm-mca-19 over the instruction stream each call "
            "executed in Unicorn (emu/bench/mca.py), per core; GCM is `encrypt` with a 96-bit IV, no AAD, "
            "16-byte tag; the stitched loop is one step of `ctr_ghash_pairs` at steady state "
            "(`metrics.kernel_cycles`); the EOR3 drop is costed on Neoverse V1 only (the other models "
            "have no SHA-3):", "", drops_table(ms), "",
            "ARMv8-A beside the figures issue 17 quotes (AES-128; ours whole call at 4 KiB, or the loop "
            "where the peer is a loop):", "", peers_table(ms)]
