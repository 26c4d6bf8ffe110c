"""docs/performance.md's A-class section (issue 17), from the armv8a drops' manifests: llvm-mca-19 figures
per core beside the seed paper's and OpenSSL's. Called by gen/report/tables.py's perf_table."""
from __future__ import annotations

SIZES = ("16", "256", "1024", "4096")
CORE_NAMES = {"cortex-a72": "Cortex-A72", "neoverse-n1": "Neoverse N1", "neoverse-v1": "Neoverse V1",
              "cortex-a55": "Cortex-A55 (in order)", "neoverse-n2": "Neoverse N2"}
#: the two figures of every core: as llvm-mca's models are, and with fused AESE/AESMC pairs
#: (metrics.fused, gen/cores/aarch64.fuse_aes)
VARIANTS = (("", None), ("fused", "fused"))

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


#: AWS-LC's generated OpenSSL-lineage kernels (aws/aws-lc 3bda7bae9, generated-src/linux-aarch64), measured
#: the way ours are (issue 35): one encrypt kernel call over 4 KiB, its executed stream (qemu-aarch64
#: -singlestep -d exec) through llvm-mca-19, as modelled and with fused AESE/AESMC pairs
#: (gen/cores/aarch64.fuse_aes); (kernel, core, as modelled c/B, fused c/B). The unroll-8 kernel uses
#: EOR3 (SHA-3): V1 and N2 only. Set beside `metrics.gcm_kernel_cycles_per_byte_by_core` (our
#: stitched kernel alone over 4 KiB), not beside a whole call, which adds J0, the length block,
#: the tag and the glue (~420 cycles on the A72 model).
PEER_KERNELS = (
    ("aes_gcm_enc_kernel (4 blocks)", "cortex-a72", 1.455, 0.909),
    ("aes_gcm_enc_kernel (4 blocks)", "neoverse-n1", 1.495, 0.933),
    ("aes_gcm_enc_kernel (4 blocks)", "neoverse-v1", 0.571, 0.434),
    ("aes_gcm_enc_kernel (4 blocks)", "cortex-a55", 4.982, 2.778),
    ("aes_gcm_enc_kernel (4 blocks)", "neoverse-n2", 1.112, 0.830),
    ("aesv8_gcm_8x_enc_128 (8 blocks, EOR3)", "neoverse-v1", 0.503, 0.362),
    ("aesv8_gcm_8x_enc_128 (8 blocks, EOR3)", "neoverse-n2", 1.001, 0.719),
)


def _armv8(manifests) -> list[dict]:
    return sorted((m for m in manifests if m.get("target") == "armv8a"), key=lambda m: m["name"])


def _n(x, d=3) -> str:
    return "—" if x is None else (f"{x:.{d}f}" if isinstance(x, float) else str(x))


def drops_table(ms) -> str:
    head = (["drop", "core (llvm-mca-19)", "AESE/AESMC"] + [f"GCM c/B @{n}" for n in SIZES]
            + ["GCM kernel c/B @4096", "stitched loop c/B", "ECB c/B", "CTR c/B", "GHASH c/B", "GMAC c/B @4096", "key setup cycles", ".text B",
               "stack B"])
    rows = []
    for m in ms:
        met = m["metrics"]
        for core in met.get("cycles_per_byte_by_core", {}):
            for label, key in VARIANTS:
                f = met.get(key, {}) if key else met
                if core not in f.get("cycles_per_byte_by_core", {}):
                    continue
                steady = "steady_state_cycles_per_byte" + (f"_{key}" if key else "")
                loop = (met.get("kernel_cycles") or {}).get(steady, {}).get("ctr_ghash_pairs_loop", {})
                per = f["cycles_per_byte_by_core"][core]
                rows.append([f"`{m['name']}`", CORE_NAMES.get(core, core), label or "as modelled"]
                            + [_n(per.get(n)) for n in SIZES]
                            + [_n(f.get("gcm_kernel_cycles_per_byte_by_core", {}).get(core)),
                               _n(loop.get(core)), _n(f.get("ecb_cycles_per_byte_by_core", {}).get(core)),
                               _n(f.get("ctr_cycles_per_byte_by_core", {}).get(core)),
                               _n(f.get("ghash_cycles_per_byte_by_core", {}).get(core)),
                               _n(f.get("gmac_cycles_per_byte_by_core", {}).get(core)),
                               _n(f.get("key_setup_cycles_by_core", {}).get(core)), _n(met.get("text_bytes")),
                               _n(met.get("stack_bytes"))])
    return _table(head, rows, right_from=3)


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


def peer_kernels_table(ms) -> str:
    """AWS-LC's GCM encrypt kernels beside our best stitched kernel (AES-128) per core, as modelled
    and fused, both one kernel call over 4 KiB measured the same way."""
    best: dict = {}
    for m in ms:
        if m["cipher"] != "aes128":
            continue
        eor3 = m.get("options", {}).get("eor3") == "on"
        for v, f in ((0, m["metrics"]), (1, m["metrics"].get("fused", {}))):
            for core, x in f.get("gcm_kernel_cycles_per_byte_by_core", {}).items():
                if (core, v, eor3) not in best or x < best[(core, v, eor3)][1]:
                    best[(core, v, eor3)] = (m["name"], x)
    rows = []
    for kernel, core, plain, fused in PEER_KERNELS:
        for v, theirs in ((0, plain), (1, fused)):
            mine = best.get((core, v, "EOR3" in kernel))        # EOR3 beside EOR3, plain beside plain
            rows.append([f"AWS-LC `{kernel}`", CORE_NAMES.get(core, core), "fused" if v else "as modelled",
                         f"{theirs:.3f}", f"`{mine[0]}`" if mine else "—", _n(mine[1]) if mine else "—",
                         f"{theirs / mine[1]:.3f}" if mine else "—"])
    head = ["peer kernel (4 KiB, one call)", "core (llvm-mca-19)", "AESE/AESMC", "peer c/B", "our best kernel",
            "our c/B", "peer / ours"]
    return _table(head, rows, right_cols={3, 5, 6})


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
            "executed in Unicorn (emu/bench/mca.py), per core, twice: as the models are and with each adjacent "
            "AESE/AESMC pair costed as the AESE alone (every one of these cores fuses them, no model does; "
            "gen/cores/aarch64.py); GCM is `encrypt` with a 96-bit IV, no AAD, 16-byte tag; ECB 64 blocks; CTR one call of "
            "`ctr_pairs` over 64 blocks with the round-1 table; "
            "GMAC `encrypt` of 4 KiB of AAD and no message; the stitched loop is one step of `ctr_ghash_pairs` at steady state "
            "(`metrics.kernel_cycles`); the EOR3 drop is costed on Neoverse V1 and N2 only (the other models "
            "have no SHA-3):", "", drops_table(ms), "",
            "ARMv8-A beside the figures issue 17 quotes (AES-128; ours whole call at 4 KiB, or the loop "
            "where the peer is a loop):", "", peers_table(ms), "",
            "ARMv8-A beside AWS-LC's generated OpenSSL-lineage GCM kernels, measured the same way (issue 35): "
            "one encrypt kernel call over 4 KiB, its executed stream through llvm-mca-19, as modelled and with "
            "fused pairs; ours is the stitched kernel alone (`metrics.gcm_kernel_cycles_per_byte_by_core`):", "",
            peer_kernels_table(ms)]
