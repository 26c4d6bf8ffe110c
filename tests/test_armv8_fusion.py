"""AESE/AESMC fusion in the A-class benchmark (issue 35): the transform (gen/cores/aarch64.fuse_aes)
costs each adjacent fusible pair as its AESE alone and changes nothing else, on hand-made streams
and on the stream a drop's call really executed; the bench reports both figures."""
from __future__ import annotations

import pytest

from emu.bench import mca as bench_mca
from emu.checks import scenarios
from gen import presets
from gen.cores import aarch64
from gen.drop import render as generate
from gen.kernels.armv8 import choose


def _drop(config, work):
    text, ks = generate.header(config, "test")
    h = work / f"{config.name}.h"
    h.write_text(text)
    d = scenarios.Drop(h, config.prefix, config.target, config.spec, config.mode, config.sha256(),
                       ks.ct_extra_lengths, ks.rk_words + ks.ghash.words, ks.core)
    return d, scenarios.Gcm.firmware(d, work)


def _removed(before: list[str], after: list[str]) -> list[int]:
    """Indices of `before` that are not in `after`, given `after` is `before` with lines deleted."""
    gone, j = [], 0
    for i, line in enumerate(before):
        if j < len(after) and after[j] == line:
            j += 1
        else:
            gone.append(i)
    assert j == len(after), "the transform changed or reordered a line"
    return gone


def test_a_fused_pair_is_its_aese_alone_and_nothing_else_changes():
    s = ["aese v0.16b, v16.16b", "aesmc v0.16b, v0.16b",          # fuses
         "aese v1.16b, v17.16b", "eor v2.16b, v2.16b, v3.16b",    # not adjacent: stays
         "aesmc v1.16b, v1.16b",
         "aese v3.16b, v16.16b", "aesmc v4.16b, v3.16b",          # another destination: stays
         "aese v5.16b, v16.16b", "aesmc v5.16b, v6.16b",          # reads another register: stays
         "aesmc v7.16b, v7.16b",                                  # no AESE before it: stays
         "aese  v8.16b,v20.16b", "aesmc v8.16b, v8.16b",          # spacing as objdump may print it
         "pmull v9.1q, v10.1d, v11.1d"]
    f = aarch64.fuse_aes(s)
    assert _removed(s, f) == [1, 11]
    assert aarch64.fuse_aes(f) == f                               # nothing left to fuse
    assert aarch64.fuse_aes([]) == [] and aarch64.fuse_aes(s[:1]) == s[:1]


def test_fusion_lowers_the_cost_of_adjacent_pairs_only(tmp_path):
    """On the A72 model AESE and AESMC share one pipe: 8 independent blocks of 9 pairs cost
    about 2 x 72 cycles as modelled and about 72 fused; the same instructions with the pairs split
    (another block's AESE between) do not fuse and cost what they cost."""
    adjacent = [x for r in range(9) for b in range(8)
                for x in (f"aese v{b}.16b, v{16 + r}.16b", f"aesmc v{b}.16b, v{b}.16b")]
    split = [x for r in range(9) for x in ([f"aese v{b}.16b, v{16 + r}.16b" for b in range(8)]
                                            + [f"aesmc v{b}.16b, v{b}.16b" for b in range(8)])]
    plain = bench_mca.mca_cycles(adjacent, "cortex-a72", tmp_path)
    fused = bench_mca.mca_cycles(aarch64.fuse_aes(adjacent), "cortex-a72", tmp_path)
    assert plain >= 144 and fused < 0.6 * plain
    assert aarch64.fuse_aes(split) == split
    assert choose.loop_cycles(split, "cortex-a72", fused=True) == choose.loop_cycles(split, "cortex-a72")


@pytest.mark.parametrize("core", aarch64.CORES)
def test_every_modelled_core_costs_our_aes_and_pmull(tmp_path, core):
    """Each core's model takes the kernels' instructions (N2 with -mattr=+aes)."""
    body = choose.stitched_body(128, 8, "karatsuba", "early")
    assert choose.loop_cycles(body, core, fused=True) < choose.loop_cycles(body, core)


def test_the_executed_stream_loses_exactly_its_adjacent_aesmc(tmp_path):
    """On the stream of a real call (encrypt, 1 KiB) the transform removes AESMC lines only,
    each right after the AESE of its register, and every AESMC our kernels execute is such a
    one (they keep the pairs adjacent); the fused figure is lower on every core."""
    d, fw = _drop(presets.preset("aes128gcm-armv8a"), tmp_path)
    r = bench_mca.Recorder(fw, d.prefix, tmp_path)
    m = r.machine
    ctx = m.alloc(4096)
    r.stream("init", ctx, m.alloc(16, bytes(range(16)), readonly=True), 16)
    n = 1024
    iv, msg = m.alloc(12, bytes(12), readonly=True), m.alloc(n, bytes(n), readonly=True)
    s = r.stream("encrypt", ctx, iv, 12, 0, 0, msg, n, m.alloc(n), m.alloc(16), 16)
    f = aarch64.fuse_aes(s)
    gone = _removed(s, f)
    assert gone and all(s[i].startswith("aesmc") and aarch64.fused_pair(s[i - 1], s[i]) for i in gone)
    assert len(gone) == sum(x.startswith("aesmc") for x in s)
    for core in ("cortex-a72", "cortex-a55"):
        assert bench_mca.mca_cycles(f, core, tmp_path) < bench_mca.mca_cycles(s, core, tmp_path)


FIGURES = ("cycles_per_byte_by_core", "decrypt_cycles_per_byte_by_core", "ecb_cycles_per_byte_by_core",
           "ctr_cycles_per_byte_by_core", "gcm_kernel_cycles_per_byte_by_core", "gmac_cycles_per_byte_by_core",
           "ghash_cycles_per_byte_by_core", "key_setup_cycles_by_core")


def test_shipped_armv8_manifests_give_every_figure_twice():
    """Every per-core figure of every shipped ARMv8-A drop is there as modelled and fused, for the
    same cores (V1 and N2 for the EOR3 drop, all five otherwise); fused is never dearer (but by
    two cycles on a whole call), and the
    AES-bound ones (ECB, CTR, the GCM kernel) are cheaper by at least a quarter on the A72."""
    import json
    from pathlib import Path
    out = Path(__file__).resolve().parent.parent / "out"
    seen = 0
    for path in sorted(out.glob("*/manifest.json")):
        m = json.loads(path.read_text())
        if m["target"] != "armv8a":
            continue
        seen += 1
        met, fused = m["metrics"], m["metrics"]["fused"]
        cores = set(aarch64.SHA3_CORES if m["options"]["eor3"] == "on" else aarch64.CORES)
        for key in FIGURES:
            assert set(met[key]) == set(fused[key]) == cores, (path, key)
            for core in cores:
                a, b = met[key][core], fused[key][core]
                # per message size: fused may cost a cycle or two more on a short call, llvm-mca's
                # greedy issue of a few hundred instructions can shift when AESMCs go (seen: the
                # -1pass drop's 16-byte decrypt on the V1, 327 -> 328 cycles; aes192gcm-armv8a's
                # 64-byte decrypt on the N1, 848 -> 850, since issue 35's V1 work, which took both
                # figures down, from 860 and 855; the -a55 drop's GMAC over 4 KiB on the N1, 1546 ->
                # 1548: a per-byte figure, rounded to 3 decimals, may then move up by one step; the -1pass
                # drop's 64-byte decrypt through gcm96_open on the V1, 102 -> 104 cycles)
                for n, x, y in ([(int(k), a[k], b[k]) for k in a] if isinstance(a, dict) else [(0, a, b)]):
                    assert y <= x + (2.01 / n if n else 0.0011), (path, key, core)
        if "cortex-a72" in cores:
            for key in ("ecb_cycles_per_byte_by_core", "ctr_cycles_per_byte_by_core", "gcm_kernel_cycles_per_byte_by_core"):
                assert fused[key]["cortex-a72"] < 0.75 * met[key]["cortex-a72"], (path, key)
    assert seen >= 5
