"""FACE across messages: the caller-owned cache (PREFIX_face_cache, *_cached calls) of FACE drops,
in the emulator on the drop's own core (M4 and M3 models): NIST files and pyca/cryptography
through the cached calls, consecutive IVs crossing changes of IV byte 10 and byte 5 (rebuilds),
cached and uncached calls interleaved, streaming, a second key (rebuild for another ctx, refusal
for a ctx given another key), wipe, and the constant-time check of a cached sequence."""
from __future__ import annotations

import random
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gen.drop import render as generate                                    # noqa: E402
from gen.config import from_dict                            # noqa: E402
from gen.kernels.face import aes_face                       # noqa: E402
from emu.ct import face_cache as ct_face_cache
from emu.bench import face_cache
from emu.checks import vectors          # noqa: E402
from emu.bench.face_cache import CachedDrop, consecutive_ivs      # noqa: E402

ECACHE = -3


@lru_cache(maxsize=None)
def _header(keybits: int, face: str, target: str, spill: str = "stack") -> tuple[Path, str]:
    cfg = from_dict({"name": f"fc{keybits}{face}{target[-2:]}{spill[0]}", "cipher": f"aes{keybits}", "mode": "gcm",
                     "target": target, "ctr": {"face": face}, "schedule": {"spill": spill}})
    work = Path(tempfile.mkdtemp(prefix="facecache-"))
    hp = work / f"{cfg.name}.h"
    hp.write_text(generate.header(cfg, "tests/test_face_cache.py")[0])
    return hp, cfg.prefix


def _drop(keybits: int = 128, face: str = "r2", target: str = "cortex-m4", spill: str = "stack") -> CachedDrop:
    hp, prefix = _header(keybits, face, target, spill)
    return CachedDrop(hp, prefix, target, Path(tempfile.mkdtemp(prefix="facecache-fw-")))


def _cache_ivb(d: CachedDrop) -> bytes:
    """The cache's ivb[4] (after the ctx pointer and the groups word): IV bytes 0, 5, 10, built."""
    return d.cache_bytes(12)[8:12]


def _groups(d: CachedDrop) -> int:
    return int.from_bytes(d.cache_bytes(8)[4:8], "little")


# ---------------------------------------------------------------------------------------------
# NIST files through the cached calls
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("keybits,target,face,spill", [
    (128, "cortex-m4", "r2", "stack"), (256, "cortex-m4", "r2", "stack"), (128, "cortex-m3", "r2", "stack"),
    (128, "portable", "r2", "stack"), (128, "cortex-m4", "r1", "stack"), (256, "cortex-m4", "r2", "fpu")])
def test_nist_files_through_cached_calls(keybits, target, face, spill):
    """Every entry of both NIST files (every IV length: only 96-bit IVs use the cache) with one
    cache for the whole file; it is wiped when the key changes, as the header asks. spill = fpu:
    the Cortex-M4F FACE kernels (issue 34), built with the FPU flags the header names."""
    d = _drop(keybits, face, target, spill)
    files = vectors.nist_cases(keybits)
    ran = 0
    for cases in files.values():
        key = None
        d.cache_init()
        for c in cases[::3] if target != "cortex-m4" or keybits != 128 else cases:
            if c.key != key:
                assert d.init(c.key) == 0
                d.cache_wipe()
                key = c.key
            if c.decrypt:
                rc, out = d.decrypt(c.iv, c.aad, c.data, c.tag)
                assert (rc, out) == (c.expect_rc, c.expect_out), c.label
            else:
                rc, out, tag = d.encrypt(c.iv, c.aad, c.data, taglen=c.taglen)
                assert (rc, out, tag) == (0, c.expect_out, c.expect_tag), c.label
            ran += 1
    assert ran > 1000


# ---------------------------------------------------------------------------------------------
# consecutive IVs, rebuilds, against pyca
# ---------------------------------------------------------------------------------------------

def _sequence_against_pyca(d: CachedDrop, key: bytes, ivs, rng, sizes=(0, 1, 16, 17, 64, 100, 256, 700, 4100)):
    g = AESGCM(key)
    for iv in ivs:
        n = rng.choice(sizes)
        msg, aad = rng.randbytes(n), rng.randbytes(rng.choice((0, 13, 32)))
        rc, ct, tag = d.encrypt(iv, aad, msg)
        assert rc == 0 and ct + tag == g.encrypt(iv, msg, aad), (iv.hex(), n)
        rc, back = d.decrypt(iv, aad, ct, tag)
        assert rc == 0 and back == msg
        assert _cache_ivb(d) == bytes((iv[0], iv[5], iv[10], 1))


@pytest.mark.parametrize("keybits,target,spill", [(128, "cortex-m4", "stack"), (192, "cortex-m4", "stack"),
                                                  (128, "cortex-m3", "stack"), (128, "cortex-m4", "fpu")])
def test_consecutive_ivs_cross_byte_10_and_byte_5(keybits, target, spill):
    d = _drop(keybits, "r2", target, spill)
    rng = random.Random(keybits)
    key = rng.randbytes(keybits // 8)
    assert d.init(key) == 0
    d.cache_init()
    # IV byte 10 changes at the counter's 0x..ff -> 0x..100; IV byte 5 at 2^48 (bytes 4..11 count)
    _sequence_against_pyca(d, key, consecutive_ivs(b"\x01\x02\x03\x04", 0x3FD, 6), rng)
    _sequence_against_pyca(d, key, consecutive_ivs(b"\xfe\xdc\xba\x98", (1 << 48) - 3, 6), rng)


def test_each_iv_byte_changed_alone_against_pyca():
    """Each cached part has its own IV bytes: the table D bytes 0, 5, 10; the C2 table bytes 1, 6
    (indexed by 11); kc bytes 1..4, 6..9; d1 bytes 3, 4, 9. A walk that changes one random IV
    byte (0..11) at a time, with lengths on both sides of the carry pair, must match pyca at every
    step: a part kept when one of its bytes changed gives a wrong ciphertext here."""
    d = _drop()
    rng = random.Random(1120)
    key = rng.randbytes(16)
    assert d.init(key) == 0
    d.cache_init()
    iv = bytearray(rng.randbytes(12))
    ivs = []
    for step in range(36):
        iv[step % 12 if step < 12 else rng.randrange(12)] ^= 1 << rng.randrange(8)
        ivs.append(bytes(iv))
    _sequence_against_pyca(d, key, ivs, rng, sizes=(0, 33, 64, 4100))


def test_rebuild_exactly_when_iv_byte_0_5_or_10_changes():
    """The table is kept while IV bytes 0, 5, 10 stay (the filled groups survive the message),
    and rebuilt (groups cleared, then refilled) when one of them changes."""
    d = _drop()
    key = bytes(range(16))
    d.init(key)
    d.cache_init()
    assert _groups(d) == 0 and _cache_ivb(d) == bytes(4)
    ivs = consecutive_ivs(b"abcd", 0x7FE, 3)             # 0x7fe, 0x7ff | 0x800: byte 10 changes
    d.encrypt(ivs[0], b"", bytes(64))
    assert _groups(d) == 1                               # pairs (1,2), (3,4), (5,6): group 0
    d.encrypt(ivs[1], b"", bytes(4000))      # counters up to 251: every group
    assert _groups(d) == 0xFF                            # the same table, now every group
    d.encrypt(ivs[2], b"", bytes(64))
    assert _groups(d) == 1 and _cache_ivb(d)[2] == 0x08  # rebuilt for the new byte 10
    for i, other in ((0, b"Xbcd" + ivs[2][4:]), (5, ivs[2][:5] + b"\x77" + ivs[2][6:])):
        d.encrypt(other, b"", bytes(64))
        assert _cache_ivb(d)[0 if i == 0 else 1] == other[i] and _groups(d) == 1


def test_interleaved_cached_and_uncached_calls_and_streams():
    d = _drop()
    rng = random.Random(7)
    key = rng.randbytes(16)
    d.init(key)
    d.cache_init()
    g = AESGCM(key)
    for j, iv in enumerate(consecutive_ivs(b"\x00\x11\x22\x33", 0xFC, 10)):
        n = rng.choice((5, 32, 64, 333, 1024, 4096 + 80))
        msg, aad = rng.randbytes(n), rng.randbytes(9)
        ref = g.encrypt(iv, msg, aad)
        kind = j % 3
        if kind == 0:
            rc, ct, tag = d.encrypt(iv, aad, msg, cached=False)
        elif kind == 1:
            rc, ct, tag = d.encrypt(iv, aad, msg)
        else:
            rc, ct, tag = d.stream_run(iv, aad, msg, chunk=rng.choice((1, 31, 33, 100)))
        assert rc == 0 and ct + tag == ref, (j, n)
        # decrypt the other way round; a wrong tag gives -1 and a zeroed output
        rc, back = d.decrypt(iv, aad, ct, tag, cached=kind == 0)
        assert rc == 0 and back == msg
        rc, back = d.decrypt(iv, aad, ct, bytes(16), cached=True)
        assert rc == -1 and back == bytes(n)
        rc, back, _ = d.stream_run(iv, aad, ct, chunk=45, decrypt=True, tag=tag)
        assert rc == 0 and back == msg


def test_a_cached_stream_stops_when_its_cache_is_rebuilt_or_wiped():
    """A start_cached stream reads the caller's table at every update. A one-shot call that keeps
    the table (consecutive IV, same bytes 0, 5, 10) lets it go on, and its output is right; one that
    rebuilds the table (IV byte 10 changes), or a wipe, stops it: the next update returns ECACHE and
    writes nothing, and the stream is unusable (finish fails) instead of reading another table."""
    d = _drop()
    key = bytes(range(7, 23))
    d.init(key)
    d.cache_init()
    g = AESGCM(key)
    m = d.m
    stream, iv, inp, out, tag = m.alloc(8192), m.alloc(16), m.alloc(4096), m.alloc(4096), m.alloc(16)
    msg = bytes((5 * i + 1) & 0xFF for i in range(600))
    m.write(inp, msg)

    def start(v: bytes) -> None:
        m.write(iv, v)
        assert d.call("start_cached", stream, d.ctx, d.cache, iv, 12, 0) == 0

    ivs = consecutive_ivs(b"\x00\x11\x22\x33", 0x5FE, 3)     # 0x5fe, 0x5ff | 0x600: byte 10 changes
    start(ivs[0])
    assert d.call("update", stream, inp, 200, out) == 0
    rc, _, _ = d.encrypt(ivs[1], b"", bytes(300))               # same bytes 0, 5, 10: no rebuild
    assert rc == 0
    assert d.call("update", stream, inp + 200, 400, out + 200) == 0
    assert d.call("finish", stream, tag, 16) == 0
    assert m.read(out, 600) + m.read(tag, 16) == g.encrypt(ivs[0], msg, b"")

    for upset in ("rebuild", "wipe"):
        start(ivs[0])
        m.write(out, bytes(600))
        assert d.call("update", stream, inp, 200, out) == 0
        if upset == "rebuild":
            assert d.encrypt(ivs[2], b"", bytes(300))[0] == 0   # IV byte 10 differs: the table is rebuilt
        else:
            d.cache_wipe()
        m.write(out + 200, b"\xa5" * 400)
        assert d.call("update", stream, inp + 200, 400, out + 200) == ECACHE, upset
        assert m.read(out + 200, 400) == b"\xa5" * 400              # nothing written
        assert d.call("update", stream, inp + 200, 16, out + 200) != 0
        assert d.call("finish", stream, tag, 16) != 0
        d.cache_init()


def test_in_place_and_unaligned():
    d = _drop()
    key = bytes(range(100, 116))
    d.init(key)
    d.cache_init()
    g = AESGCM(key)
    for j, iv in enumerate(consecutive_ivs(b"\x10\x20\x30\x40", 77, 6)):
        msg = bytes((i * 7 + j) & 0xFF for i in range(97 + 300 * j))
        rc, ct, tag = d.encrypt(iv, b"hdr", msg, inplace=j % 2 == 0, skew=j % 4)
        assert rc == 0 and ct + tag == g.encrypt(iv, msg, b"hdr"), j


def test_long_iv_does_not_touch_the_cache():
    d = _drop()
    key = bytes(16)
    d.init(key)
    d.cache_init()
    iv = bytes(range(20))
    rc, ct, tag = d.encrypt(iv, b"", bytes(300))
    assert rc == 0 and ct + tag == AESGCM(key).encrypt(iv, bytes(300), b"")
    size = aes_face.face_cache_bytes("r2")
    assert d.cache_bytes(size) == bytes(size)


# ---------------------------------------------------------------------------------------------
# a second key, wipe
# ---------------------------------------------------------------------------------------------

def test_second_ctx_rebuilds_and_reinit_with_another_key_is_refused():
    d = _drop()
    k1, k2 = b"\x01" * 16, b"\x02" * 16
    d.init(k1)
    d.init(k2, second=True)
    d.cache_init()
    ivs = consecutive_ivs(b"wxyz", 40, 4)
    msg = bytes(range(200))
    for iv, second, key in ((ivs[0], False, k1), (ivs[1], True, k2), (ivs[2], False, k1)):
        rc, ct, tag = d.encrypt(iv, b"", msg, second=second)   # another ctx: the cache is rebuilt
        assert rc == 0 and ct + tag == AESGCM(key).encrypt(iv, msg, b"")
    # the same ctx given another key: the table no longer fits, the call is refused, writes nothing
    d.init(k2)
    d.m.write(d.out, b"\xaa" * 200)
    d.m.write(d.tag, b"\xbb" * 16)
    rc, ct, tag = d.encrypt(ivs[3], b"", msg)
    assert rc == ECACHE and ct == b"\xaa" * 200 and tag == b"\xbb" * 16
    rc, _ = d.decrypt(ivs[3], b"", msg, bytes(16))
    assert rc == ECACHE
    rc, _, _ = d.stream_run(ivs[3], b"", msg, chunk=64)
    assert rc == ECACHE
    d.cache_wipe()                                        # the documented way on
    rc, ct, tag = d.encrypt(ivs[3], b"", msg)
    assert rc == 0 and ct + tag == AESGCM(k2).encrypt(ivs[3], msg, b"")


def test_the_emulator_leaves_room_for_the_cache():
    assert aes_face.face_cache_bytes("r2") <= face_cache.CACHE_SYMBOL_BYTES


def test_wipe_clears_the_cache():
    d = _drop()
    d.init(bytes(range(1, 17)))
    size = aes_face.face_cache_bytes("r2")
    d.cache_init()
    d.encrypt(consecutive_ivs(b"abcd", 1, 1)[0], b"", bytes(4096))
    before = d.cache_bytes(size)
    assert sum(b != 0 for b in before[-4096:]) > 3000    # the table is there (8 groups)
    d.cache_wipe()
    after = d.cache_bytes(size)
    gen = 4 * 3                                          # ctx, groups, ivb, then gen
    assert after[:gen] + after[gen + 4:] == bytes(size - 4)   # everything but the public rebuild count
    assert int.from_bytes(after[gen:gen + 4], "little") == int.from_bytes(before[gen:gen + 4], "little") + 1


def test_bad_arguments():
    d = _drop()
    d.init(bytes(16))
    iv = bytes(12)
    assert d.call("encrypt_cached", d.ctx, 0, d.iv, 12, 0, 0, d.inp, 0, d.out, d.tag, 16) == -2
    assert d.call("decrypt_cached", d.ctx, 0, d.iv, 12, 0, 0, d.inp, 0, d.tag, 16, d.out) == -2
    assert d.call("start_cached", d.stream, d.ctx, 0, d.iv, 12, 0) == -2
    assert d.call("start_cached", d.stream, d.ctx, d.cache, d.iv, 0, 0) == -2
    d.call("face_cache_init", 0)                          # NULL: nothing happens
    assert d.encrypt(iv, b"", b"", taglen=3)[0] == -2


def test_r1_cached_calls_equal_the_plain_ones():
    d = _drop(128, "r1")
    key = bytes(range(16))
    d.init(key)
    d.cache_init()
    g = AESGCM(key)
    for iv in consecutive_ivs(b"r1r1", 250, 8):
        msg = bytes(range(256)) * 3
        rc, ct, tag = d.encrypt(iv, b"ad", msg)
        assert rc == 0 and ct + tag == g.encrypt(iv, msg, b"ad")
        rc, back, _ = d.stream_run(iv, b"ad", ct, chunk=50, decrypt=True, tag=tag)
        assert rc == 0 and back == msg
    assert d.cache_bytes(4) == bytes(4)                   # r1 keeps nothing per IV


def test_api_only_in_face_drops():
    off, _ = _header(128, "off", "cortex-m4")
    assert "_face_cache_init" not in off.read_text() and "_encrypt_cached" not in off.read_text()
    r2, _ = _header(128, "r2", "cortex-m4")
    assert r2.read_text().count("_face_encrypt2c(") >= 3


# ---------------------------------------------------------------------------------------------
# constant time
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("keybits,target", [(128, "cortex-m4"), (128, "cortex-m3")])
def test_constant_time_across_a_rebuild(keybits, target):
    hp, prefix = _header(keybits, "r2", target)
    r = ct_face_cache.check(hp, prefix, target, keybits, Path(tempfile.mkdtemp(prefix="facecache-ct-")))
    assert r.status == "verified", r


def test_constant_time_check_catches_a_key_dependent_rebuild():
    """Mutation: the reuse decided by a key bit as well as the IV bytes must be caught."""
    hp, prefix = _header(128, "r2", "cortex-m4")
    text = hp.read_text()
    needle = "if (!(c->ctx == ctx && c->ivb[3] &&"
    assert text.count(needle) == 1
    bad = hp.parent / "mutant.h"
    bad.write_text(text.replace(needle, "if (!(c->ctx == ctx && (ctx->rk[0] & 1u) && c->ivb[3] &&"))
    r = ct_face_cache.check(bad, prefix, "cortex-m4", 128, Path(tempfile.mkdtemp(prefix="facecache-ct-")))
    assert r.status == "not-constant-time"


def test_bench_method_is_consistent():
    """bench_cached's figures: hits cost the same whatever IV byte 11 (asserted inside; C2 comes
    from the cache's table by byte 11, no face_c2 call); the rebuild (D's set-up and fills, etab's
    8 fills, kc from face_c2) costs more than 8 fills over a hit; the mean amortises it over
    256 messages; a cached 4 KiB message is cheaper than today's one-shot FACE r2 call by about
    its 8 table fills."""
    d = _drop()
    r = face_cache.bench_cached(d, 128, sizes=(64, 4096))
    for n in ("64", "4096"):
        first, second = r["hit_cycles"][n]
        assert first == second and r["rebuild_cycles"][n] > first + 8 * 2000
        assert r["cycles"][n] == round((r["rebuild_cycles"][n] + 128 * first + 127 * second) / 256, 1)
    d.counter.reset()
    rc, _, _ = d.encrypt(consecutive_ivs(b"zzzz", 9, 1)[0], b"", bytes(4096), cached=False)
    assert rc == 0 and d.counter.cycles > r["hit_cycles"]["4096"][1] + 8 * 2000


# ---------------------------------------------------------------------------------------------
# IR level: the cached kernel and face_c2 against the per-message programs
# ---------------------------------------------------------------------------------------------

def _w(bs: bytes) -> list[int]:
    return [int.from_bytes(bs[4 * i:4 * i + 4], "little") for i in range(len(bs) // 4)]


@pytest.mark.parametrize("keybits,slicing", [(128, "ffs"), (192, "sfs"), (256, "ffs")])
def test_ir_c2_of_two_blocks_and_cached_encrypt2(keybits, slicing):
    """face_c2 gives each block's C2 (the setup's fs[32..39]) in its bits; the cached encrypt2 on
    a table filled with C2 = 0, given C2, equals the plain FACE encrypt2 on the per-run table."""
    from gen.ir import run
    from gen.kernels.aes.keyschedule import keyschedule_ir
    rng = random.Random(keybits)
    rk = run(keyschedule_ir(keybits, slicing), {"key": _w(rng.randbytes(keybits // 8))})["rk"]
    ctr0, ctr1 = rng.randbytes(12) + b"\0\0\0\x01", rng.randbytes(12) + b"\0\0\x01\x01"
    setup = aes_face.face_setup_ir(keybits, slicing, "r2")
    fs0, fs1 = (run(setup, {"ctr": _w(c), "rk": rk})["fs"] for c in (ctr0, ctr1))
    c2 = run(aes_face.face_c2_ir(keybits, slicing), {"ctr": _w(ctr0) + _w(ctr1), "rk": rk})["c2"]
    even = 0x55555555
    assert [w & even for w in c2] == [w & even for w in fs0[32:40]]
    assert [w & ~even & 0xFFFFFFFF for w in c2] == [w & ~even & 0xFFFFFFFF for w in fs1[32:40]]
    fill = aes_face.face_fill_ir(keybits, slicing, "r2")
    sv = aes_face.sv_words(aes_face.model_sv(keybits, slicing, rk), 0, 1)
    d_tab = run(fill, {"fs": fs0[:32] + [0] * 8, "sv": sv})["tab"]
    full = run(fill, {"fs": fs0, "sv": sv})["tab"]
    msg = _w(rng.randbytes(32))
    plain = aes_face.face_encrypt2_ir(keybits, slicing, "r2")
    cached = aes_face.face_encrypt2_ir(keybits, slicing, "r2", cached=True)
    for j in (0, 7, 15):
        e = full[8 * j:8 * j + 8]
        want = run(plain, {"e": e, "rk": rk, "in": msg})["out"]
        got = run(cached, {"e": d_tab[8 * j:8 * j + 8], "c2": fs0[32:40], "rk": rk, "in": msg})["out"]
        assert got == want
    with pytest.raises(ValueError):
        aes_face.face_encrypt2_ir(keybits, slicing, "r1", cached=True)


def test_report_table_of_the_cached_figures():
    """gen/report/tables.py's "FACE across messages" table: GCTR and GCM savings at 64 B and 4 KiB of the
    cached calls against the face-off twin, the cache's RAM; no table without cached figures."""
    from gen.report import tables as report

    def manifest(name, face, gctr, gcm, fc=None):
        met = {"cycles": dict(gcm), "cycles_per_byte": {n: round(c / int(n), 2) for n, c in gcm.items()},
               "gctr_cycles": dict(gctr), "gctr_cycles_per_byte": {n: round(c / int(n), 2) for n, c in gctr.items()}}
        if fc:
            met["face_cache"], met["face_cache_bytes"] = fc, aes_face.face_cache_bytes(face)
        return {"name": name, "cipher": "aes128", "target": "cortex-m4", "mode": "gcm",
                "options": {"slicing": "ffs", "ghash": "ctmul", "face": face}, "metrics": met}
    off = manifest("x-off", "off", {"64": 8800, "4096": 330000},
                   {"16": 5000, "64": 12000, "256": 33000, "4096": 460000})
    fc = {"gctr_cycles": {"64": 7920.0, "4096": 264000.0}, "cycles": {"64": 10800.0, "4096": 394000.0},
          "stack_bytes": 5000}
    fc["gctr_cycles_per_byte"] = {n: round(c / int(n), 2) for n, c in fc["gctr_cycles"].items()}
    fc["cycles_per_byte"] = {n: round(c / int(n), 2) for n, c in fc["cycles"].items()}
    face = manifest("x-r2", "r2", {"64": 9000, "4096": 285000},
                    {"16": 5200, "64": 12500, "256": 33100, "4096": 418000}, fc)
    table = report.face_cache_table([off, face])
    assert "`x-r2`" in table and "`x-off`" not in table
    for n in ("64", "4096"):
        assert f"{100 * (1 - fc['gctr_cycles'][n] / off['metrics']['gctr_cycles'][n]):.1f}%" in table
        assert f"{100 * (1 - fc['cycles'][n] / off['metrics']['cycles'][n]):.1f}%" in table
    assert str(aes_face.face_cache_bytes("r2")) in table
    assert "FACE across messages" in report.perf_table([off, face])
    del face["metrics"]["face_cache"]
    assert report.face_cache_table([off, face]) is None


# ---------------------------------------------------------------------------------------------
# the lean one-shot path (96-bit IV, len <= FACE_LEAN_MAX: no stream)
# ---------------------------------------------------------------------------------------------

#: and 8145, the shortest message that takes the stream again (it would reach run 2)
LEAN_LENGTHS = (0, 1, 15, 16, 17, 31, 32, 33, 48, 64, 65, 4048, 4049, 4064, 4065, 4096, 4111, 8144, 8145)


@pytest.mark.parametrize("keybits,target", [(128, "cortex-m4"), (256, "cortex-m4"), (128, "cortex-m3")])
def test_lean_path_lengths_and_odd_aad_against_pyca(keybits, target):
    """Every length class of the lean path (first block only, pairs, a partial last pair, the pair
    (255, 256) that carries into counter byte 14 as a whole or a partial pair, run 1, the longest
    lean message), AAD of odd lengths, in place or not, against pyca; decrypt back; a bad tag gives
    -1 and zeros only, whatever out held."""
    d = _drop(keybits, "r2", target)
    rng = random.Random(100 + keybits)
    key = rng.randbytes(keybits // 8)
    assert d.init(key) == 0
    d.cache_init()
    g = AESGCM(key)
    lengths = LEAN_LENGTHS if target == "cortex-m4" and keybits == 128 else LEAN_LENGTHS[::2]   # 8145 is in both
    ivs = consecutive_ivs(b"\x31\x41\x59\x26", 0x53A, len(lengths))
    for j, (iv, n) in enumerate(zip(ivs, lengths)):
        msg, aad = rng.randbytes(n), rng.randbytes((1, 13, 17, 31, 0)[j % 5])
        rc, ct, tag = d.encrypt(iv, aad, msg, inplace=j % 3 == 1, skew=j % 4)
        assert rc == 0 and ct + tag == g.encrypt(iv, msg, aad), (n, len(aad))
        rc, back = d.decrypt(iv, aad, ct, tag)
        assert rc == 0 and back == msg, n
        d.m.write(d.out, b"\x5c" * n)
        bad = bytes(t ^ (k == j % 16) for k, t in enumerate(tag))
        rc, back = d.decrypt(iv, aad, ct, bad)
        assert rc == -1 and back == bytes(n), n
        assert _cache_ivb(d) == bytes((iv[0], iv[5], iv[10], 1))


def test_lean_path_tags_shorter_than_16():
    d = _drop()
    key = bytes(range(50, 66))
    d.init(key)
    d.cache_init()
    g = AESGCM(key)
    for iv, taglen in zip(consecutive_ivs(b"tags", 3, 7), (4, 8, 12, 13, 14, 15, 16)):
        msg = bytes(range(70))
        rc, ct, tag = d.encrypt(iv, b"a", msg, taglen=taglen)
        assert rc == 0 and ct + tag == g.encrypt(iv, msg, b"a")[:70 + taglen]
        rc, back = d.decrypt(iv, b"a", ct, tag)
        assert rc == 0 and back == msg


def test_lean_path_refuses_a_rekeyed_ctx_mutation():
    """The lean path checks the cache's key as start_cached does: a ctx given another key by init
    is refused (ECACHE, nothing written). Mutation: the same drop with the check's verdict ignored
    returns 0 and a wrong ciphertext, which this test's assertion would catch."""
    hp, prefix = _header(128, "r2", "cortex-m4")
    text = hp.read_text()
    needle = f"        if (diff) return {prefix.upper()}_ECACHE;\n"
    assert text.count(needle) == 1, needle
    mutant = hp.parent / "nokeycheck.h"
    mutant.write_text(text.replace(needle, "        (void)diff;\n"))
    results = []
    for header in (hp, mutant):
        d = CachedDrop(header, prefix, "cortex-m4", Path(tempfile.mkdtemp(prefix="facecache-fw-")))
        k1, k2 = b"\x01" * 16, b"\x02" * 16
        d.init(k1)
        d.cache_init()
        iv0, iv1 = consecutive_ivs(b"keys", 90, 2)
        assert d.encrypt(iv0, b"", bytes(64))[0] == 0
        d.init(k2)                                      # the same ctx, another key
        d.m.write(d.out, b"\xaa" * 64)
        rc, ct, tag = d.encrypt(iv1, b"", bytes(64))
        results.append((rc, ct == b"\xaa" * 64, ct + tag == AESGCM(k2).encrypt(iv1, bytes(64), b"")))
    assert results[0] == (ECACHE, True, False)
    assert results[1][0] == 0 and results[1][2] is False    # the mutant: accepted, and wrong


@pytest.mark.parametrize("keybits,slicing", [(128, "ffs"), (256, "ffs")])
def test_ir_c2_by_iv_byte_11_through_turned_columns(keybits, slicing):
    """The cache's etab: the D fill run on the counter block and round keys with the state's
    columns turned one to the right (rho: byte 11 sits where byte 15 does) gives, for every IV
    byte 11, the part of C2 that byte makes, up to a constant: C2 ^ rho^-1(entry) (the entry's
    block of b, spread over both blocks) is the same kc for every b."""
    from gen.ir import run
    from gen.kernels.aes.keyschedule import keyschedule_ir
    rng = random.Random(11 + keybits)
    rk = run(keyschedule_ir(keybits, slicing), {"key": _w(rng.randbytes(keybits // 8))})["rk"]
    rho = lambda w: ((w << 2) & 0xFCFCFCFC) | ((w >> 6) & 0x03030303)      # noqa: E731
    rhoinv = lambda w: ((w >> 2) & 0x3F3F3F3F) | ((w << 6) & 0xC0C0C0C0)   # noqa: E731
    rkr = [rho(w) for w in rk]
    iv = bytearray(rng.randbytes(12))
    ctr = bytes(iv) + b"\0\0\0\x01"
    fs = run(aes_face.face_setup_ir(keybits, slicing, "r2"), {"ctr": _w(ctr[12:] + ctr[:12]), "rk": rkr})["fs"]
    sv1 = aes_face.model_sv(keybits, slicing, rkr)
    fill = aes_face.face_fill_ir(keybits, slicing, "r2")
    c2p = aes_face.face_c2_ir(keybits, slicing)
    kcs = set()
    for b in (0, 1, 2, 77, 128, 200, 254, 255):
        v0 = b if b & 1 else (b - 1) % 256
        g, j = v0 // 32, (v0 % 32) // 2
        e = run(fill, {"fs": fs[:32] + [0] * 8, "sv": aes_face.sv_words(sv1, g, 1)})["tab"][8 * j:8 * j + 8]
        iv[11] = b
        blk = bytes(iv) + b"\0\0\0\x01"
        c2 = run(c2p, {"ctr": _w(blk) + _w(blk), "rk": rk})["c2"]
        sh = 1 - (b & 1)
        part = [rhoinv(((w >> sh) & 0x55555555) * 3) for w in e]
        kcs.add(tuple(x ^ y for x, y in zip(c2, part)))
        assert part != [0] * 8
    assert len(kcs) == 1


def test_a_byte_10_rebuild_keeps_the_c2_table():
    """C2 has no part of IV bytes 0, 5, 10: a rebuild for a new byte 10 under the same ctx refills
    D only and keeps etab, kc and d1 (about 8 fills cheaper than the first message of an empty
    cache), and its output is right; another ctx (another key) makes them again
    (test_second_ctx_rebuilds_and_reinit_with_another_key_is_refused checks that output)."""
    d = _drop()
    key = bytes(range(3, 19))
    d.init(key)
    d.cache_init()
    counter = d.count_cycles()
    cycles = []
    for iv in consecutive_ivs(b"\x5a\x17\x00\x42", 0x10FE, 4):     # the third changes IV byte 10
        counter.reset()
        rc, ct, tag = d.encrypt(iv, b"", bytes(64))
        assert rc == 0 and ct + tag == AESGCM(key).encrypt(iv, bytes(64), b"")
        cycles.append(counter.cycles)
    first, hit, byte10, hit2 = cycles
    assert hit == hit2 and first > hit + 8 * 2000 + 2400      # D's group 0 and etab's 8 groups
    assert hit + 2400 < byte10 < hit + 2 * 2400                # D's group 0 again, etab kept
