"""Thumb-2 fixsliced AES drops on the emulated cores: FIPS-197 answers through ecb_encrypt,
random blocks against pyca/cryptography, ISA of the M3 code, the wrong-target #error."""
import random
import subprocess

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from gen.drop import render as generate
from gen.config import from_dict
from gen.isa import thumb2 as t2
from gen.kernels.aes import thumb2 as aes_thumb2
from gen.cores import timing as T
from emu.platforms import thumb2_classify
from emu.machines import toolchain
from emu.machines.machine import Machine

FIPS197 = {   # FIPS-197 appendix C (key 00 01 02 .., plaintext 00 11 22 ..)
    128: "69c4e0d86a7b0430d8cdb78070b4c55a",
    192: "dda97ca4864cdfe06eaf70a0ec0d7191",
    256: "8ea2b7ca516745bfeafc49904b496089",
}
APPENDIX_B = ("2b7e151628aed2a6abf7158809cf4f3c", "3243f6a8885a308d313198a2e0370734",
              "3925841d02dc09fbdc118597196a0b32")

DRIVER = r"""
#undef {P}_IMPLEMENTATION
#include "{header}"
static {p}_ctx t_ctx;
int t_ecb(const uint8_t *key, uint32_t keylen, uint8_t *out, const uint8_t *in, uint32_t n)
{{
    int rc = {p}_init(&t_ctx, key, keylen);
    if (rc) return rc;
    {p}_ecb_encrypt(&t_ctx, out, in, n);
    return 0;
}}
"""


def config(bits, slicing, core):
    name = f"t{bits}{slicing}{core[-2:]}"
    return from_dict({"name": name, "cipher": f"aes{bits}", "mode": "gcm", "target": core,
                      "aes": {"slicing": slicing}})


def firmware(cfg, tmp_path):
    text, _ = generate.header(cfg, "test")
    work = tmp_path / cfg.name
    work.mkdir()
    header = work / f"{cfg.name}.h"
    header.write_text(text)
    drv = work / "t_driver.c"
    drv.write_text(DRIVER.format(P=cfg.prefix.upper(), p=cfg.prefix, header=header))
    fw = toolchain.build_firmware(header, cfg.prefix, cfg.target, work, extra_sources=(drv,))
    return fw, header


def ecb(fw, m, key, data, misalign=0):
    m.reset_buffers()
    k = m.alloc(len(key), key, offset=misalign)
    src = m.alloc(len(data) + 4, data, offset=misalign)
    dst = m.alloc(len(data) + 4, offset=(3 * misalign) % 4)
    assert m.call(fw.addr("t_ecb"), k, len(key), dst, src, len(data) // 16) == 0
    return m.read(dst, len(data))


def reference(key, data):
    e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return e.update(data) + e.finalize()


@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m3"])
def test_fips197_known_answers_odd_even_unaligned(core, tmp_path):
    for bits in (128, 256) if core == "cortex-m3" else (128, 192, 256):
        fw, _ = firmware(config(bits, "ffs", core), tmp_path)
        m = Machine(core, fw.image)
        key = bytes(range(bits // 8))
        pt = bytes.fromhex("00112233445566778899aabbccddeeff")
        for nblocks in (1, 2, 3, 5):
            for mis in (0, 1, 3):
                out = ecb(fw, m, key, pt * nblocks, mis)
                assert out == bytes.fromhex(FIPS197[bits]) * nblocks, (bits, nblocks, mis)
        if bits == 128:
            k, p, c = (bytes.fromhex(x) for x in APPENDIX_B)
            assert ecb(fw, m, k, p) == c


@pytest.mark.parametrize("slicing", ["ffs", "sfs"])
@pytest.mark.parametrize("bits", [128, 192, 256])
def test_random_blocks_match_cryptography(bits, slicing, tmp_path):
    core = "cortex-m3" if (bits, slicing) in ((128, "sfs"), (192, "ffs")) else "cortex-m4"
    fw, _ = firmware(config(bits, slicing, core), tmp_path)
    m = Machine(core, fw.image)
    rng = random.Random(bits * 7 + len(slicing))
    for trial in range(6):
        key = rng.randbytes(bits // 8)
        data = rng.randbytes(16 * rng.choice([1, 2, 4, 7]))
        assert ecb(fw, m, key, data, trial % 4) == reference(key, data)
    key, data = rng.randbytes(bits // 8), rng.randbytes(16 * 7)     # in place: out == in, 3 pairs + 1
    m.reset_buffers()
    k, buf = m.alloc(len(key), key), m.alloc(len(data), data)
    assert m.call(fw.addr("t_ecb"), k, len(key), buf, buf, 7) == 0
    assert m.read(buf, len(data)) == reference(key, data)


def test_m3_code_has_no_m4_only_instruction(tmp_path):
    cfg = config(128, "ffs", "cortex-m3")
    fw, _ = firmware(cfg, tmp_path)
    addr, size = fw.symbols[f"{cfg.prefix}_aes_encrypt2"]
    assert size > 4000
    from emu.machines import layout
    code = fw.image[addr - layout.FLASH_BASE: addr - layout.FLASH_BASE + size]
    insns = thumb2_classify.classify_bytes(code, addr)
    assert sum(i.size for i in insns) == size
    assert not [i.mnemonic for i in insns if i.cls == "dsp"]
    classes = {i.cls for i in insns}
    assert classes <= {"alu", "ldr", "str", "strd", "stm", "ldm_pc", "bcond", "branch"}, classes
    assert "strd" in classes       # spill stores paired (gen/sched/strd_pairs.py)
    # the only branch is the pair loop's back edge (gen/kernels/aes/ecb_thumb2.py)
    assert [i.cls for i in insns if i.cls in ("bcond", "branch")] == ["bcond"]


def test_wrong_target_hits_the_error(tmp_path):
    for core in ("cortex-m4", "cortex-m3"):
        cfg = config(128, "ffs", core)
        text, _ = generate.header(cfg, "test")
        h = tmp_path / f"{cfg.name}.h"
        h.write_text(text)
        src = tmp_path / f"use_{cfg.name}.c"
        src.write_text(f'#define {cfg.prefix.upper()}_IMPLEMENTATION\n#include "{h}"\n')
        wrong = [["gcc", "-std=c99", "-c", str(src), "-o", "/dev/null"],
                 [toolchain.ARM_GCC, "-mcpu=cortex-m0", "-mthumb", "-std=c99", "-c", str(src), "-o", "/dev/null"]]
        if core == "cortex-m4":
            wrong.append([toolchain.ARM_GCC, "-mcpu=cortex-m3", "-mthumb", "-std=c99", "-c", str(src), "-o", "/dev/null"])
        for cmd in wrong:
            p = subprocess.run(cmd, capture_output=True, text=True)
            assert p.returncode != 0 and f"generated for {core}" in p.stderr, (cmd, p.stderr[-400:])
        ok = [toolchain.ARM_GCC, *toolchain.CORE_FLAGS[core], *toolchain.STRICT, "-c", str(src), "-o", "/dev/null"]
        p = subprocess.run(ok, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-2000:]
    # the M3 drop also builds for an M4 (ARMv7E-M includes ARMv7-M)
    src = tmp_path / "use_t128ffsm3.c"
    p = subprocess.run([toolchain.ARM_GCC, *toolchain.CORE_FLAGS["cortex-m4"], *toolchain.STRICT, "-c", str(src),
                        "-o", "/dev/null"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]


def test_ark_in_sbox_segmentation_and_the_default_one_face_reuses():
    """The kernel (compile_encrypt2) opens every S-box segment with the AddRoundKey before it;
    build()'s default keeps segment 2j-1 starting with round j's S-box (FACE's tails rely on
    it).  Same program either way; every stored order ranks its segment completely."""
    from gen.kernels.aes import thumb2 as A
    for bits, slicing in ((128, "ffs"), (192, "sfs"), (256, "ffs")):
        plain, ark = A.build(bits, slicing), A.build(bits, slicing, ark_in_sbox=True)
        assert [str(o) for o in plain.program.ops] == [str(o) for o in ark.program.ops]
        nr = len(A.segment_kinds(bits, slicing))
        for j in range(1, nr + 1):
            s0 = plain.segment.index(2 * j - 1)
            s1 = ark.segment.index(2 * j - 1)
            assert s0 - s1 == A.ARK_OPS
            assert plain.program.ops[s0 - 2].kind == "ld" and plain.program.ops[s0 - 2].mem == "rk"
            assert [o.kind for o in ark.program.ops[s1:s0]] == ["ld", "eor"] * 8
        for seg in (plain, ark):
            for s in set(seg.segment):
                ranks = [r for r, k in zip(seg.rank, seg.segment) if k == s]
                if ranks[0] is not None:
                    assert sorted(ranks) == list(range(len(ranks)))
    assert "ark+sbox" in A.ORDERS


def test_ctr_pairs_is_the_plain_path_of_thumb2_drops():
    """Thumb-2 drops run counter mode through {p}_ctr_pairs (XOR fused, looped); the per-pair
    keystream + xor32 route is gone, and the loop's only branch is its count."""
    from gen.drop import render as generate
    from gen.kernels.aes import ctr_thumb2 as aes_ctr_thumb2
    cfg = config(128, "ffs", "cortex-m4")
    text = generate.header(cfg, "test")[0]
    p = cfg.prefix
    assert f"{p}_ctr_pairs(s->ctx->rk, out, s->cb, in, npairs)" in text
    assert f"{p}_xor32" not in text
    ctr = aes_ctr_thumb2.thumb2(p, 128, "ffs", "cortex-m4")
    branches = [ln for ln in ctr.code.splitlines() if t2.parse_mnemonic(ln.strip(' "').replace("\\n", "")) in ("b", "bne", "beq")]
    assert len(branches) == 1 and "1b" in branches[0]
    plain = aes_thumb2.compile_encrypt2(128, "ffs", "cortex-m4")
    assert ctr.pair_cycles < plain.cycles + 60          # the XOR and the loop step, no call
