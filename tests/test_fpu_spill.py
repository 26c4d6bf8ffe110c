"""[schedule] spill = "fpu" (issue 18): the Cortex-M4F AES kernels keep spilled values in s0-s15.

The kernels are the stack ones with each spill store and reload turned into a VMOV (the same
allocation, one for one), so they must compute the same thing: FIPS-197 and random blocks
against pyca/cryptography in Unicorn; they must be cheaper by the model; the drop must refuse a
build without the FPU and the option must be refused where there is no FPU kernel."""
import random
import subprocess

import pytest

from emu.machines import layout

from emu.platforms import thumb2_classify

from emu.machines import toolchain
from emu.machines.machine import Machine
from gen.drop import render as generate
from gen.config import from_dict
from gen.errors import ConfigError
from gen.isa import thumb2 as t2
from gen.kernels.aes import thumb2 as aes_thumb2
from gen.targets import cortex_m
from tests.test_aes_thumb2 import APPENDIX_B, FIPS197, ecb, firmware, reference


def config(bits, spill="fpu", **schedule):
    return from_dict({"name": f"f{bits}", "cipher": f"aes{bits}", "mode": "gcm", "target": "cortex-m4",
                      "schedule": {"spill": spill, **schedule}})


def test_fpu_slots_turns_slot_spill_code_into_vmov_and_nothing_else():
    body = [t2.Insn("eor", dst="r1", srcs=("r2", "r3")),
            t2.str_slot("r1", 3, note="spill v7"),
            t2.ldr_slot("r4", 3, note="reload v7"),
            t2.ldr("r5", "sp", 52, note="reload out"),          # a home in the push frame: stays
            t2.str_slot("r6", t2.FPU_SLOTS, note="spill v9")]   # past s15: stays on the stack
    out = t2.fpu_slots(body)
    assert [i.text() if i.slot is None else i.mnem for i in out] == [
        "eor    r1, r2, r3", "vmov   s3, r1    @ spill v7", "vmov   r4, s3    @ reload v7",
        "ldr    r5, [sp, #52]    @ reload out", "str"]
    regs, mem = {"r2": 5, "r3": 9, "sp": 0x100}, {}
    t2.execute(out[:3], regs, mem)
    assert regs["r4"] == 5 ^ 9 and regs["s3"] == 5 ^ 9 and mem == {}


@pytest.mark.parametrize("bits", [128, 256])
def test_fpu_kernel_is_the_stack_kernel_with_vmov_and_cheaper(bits):
    stack = aes_thumb2.compile_encrypt2(bits, "ffs", "cortex-m4")
    fpu = aes_thumb2.compile_encrypt2(bits, "ffs", "cortex-m4", spill="fpu")
    vmovs = [i for i in fpu.insns if i.mnem == "vmov"]
    assert len(vmovs) == fpu.spills + fpu.reloads > 0
    assert {s for i in vmovs for s in (i.dst, *i.srcs) if s.startswith("s")} <= {f"s{k}" for k in range(16)}
    assert not [i for i in fpu.body if i.base == "sp" and i.slot is not None and i.slot >= 0]
    assert fpu.stack_bytes < stack.stack_bytes and fpu.strd == 0
    assert (fpu.spills, fpu.reloads) == (stack.spills, stack.reloads)      # the same allocation
    assert fpu.cycles < stack.cycles - 100                                # 2,442 -> 2,333 (AES-128)


@pytest.mark.parametrize("bits", [128, 256])
def test_fpu_homes_turn_every_pointer_reload_into_vmov(bits):
    """The looped kernel of the FPU drops (gen/kernels/aes/ecb_thumb2.py) keeps rk, out, in and the
    input's end in s12-s15: its pointer reloads are VMOVs, the spill slots stay below s12, nothing
    but the callee-saved registers is pushed, and it is cheaper than with stack homes."""
    stack = aes_thumb2.compile_encrypt2(bits, "ffs", "cortex-m4", spill="fpu", count=True)
    fpu = aes_thumb2.compile_encrypt2(bits, "ffs", "cortex-m4", spill="fpu", count=True, fpu_homes=True)
    homes = {f"s{k}" for k in aes_thumb2.HOME_SREG.values()}
    reloads = [i for i in fpu.body if i.mnem == "vmov" and i.srcs[0] in homes]
    assert len(reloads) == fpu.base_reloads == stack.base_reloads > 0
    assert not [i for i in fpu.body if i.base == "sp"]
    spill_regs = {s for i in fpu.body if i.mnem == "vmov" for s in (i.dst, *i.srcs) if s.startswith("s")} - homes
    assert spill_regs <= {f"s{k}" for k in range(min(aes_thumb2.HOME_SREG.values()))}
    assert fpu.insns[0].regs == aes_thumb2.POPPED[:-1] + ("lr",)
    assert [i.text() for i in fpu.insns if i.note == "home"] == [
        "vmov   s12, r0    @ home", "vmov   s13, r1    @ home", "vmov   s14, r2    @ home", "vmov   s15, r3    @ home"]
    assert fpu.cycles < stack.cycles
    with pytest.raises(ValueError, match="fpu_homes needs spill = fpu"):
        aes_thumb2.compile_encrypt2(bits, "ffs", "cortex-m4", count=True, fpu_homes=True)
    with pytest.raises(ValueError, match="no count register"):
        aes_thumb2.compile_encrypt2(bits, "ffs", "cortex-m4", xor=True, count=True)


def test_no_fpu_kernel_for_a_core_without_fpu():
    with pytest.raises(ValueError, match="cortex-m3 has none"):
        aes_thumb2.compile_encrypt2(128, "ffs", "cortex-m3", spill="fpu")
    with pytest.raises(ValueError, match="spill must be one of"):
        aes_thumb2.compile_encrypt2(128, "ffs", "cortex-m4", spill="heap")


def test_fpu_drop_answers_fips197_and_cryptography_in_unicorn(tmp_path):
    for bits in (128, 256):
        cfg = config(bits)
        fw, _ = firmware(cfg, tmp_path)
        assert fw.extra_cflags == tuple(cortex_m.FPU_CFLAGS.split())
        m = Machine("cortex-m4", fw.image)
        key = bytes(range(bits // 8))
        pt = bytes.fromhex("00112233445566778899aabbccddeeff")
        for nblocks, mis in ((1, 0), (2, 1), (5, 3)):
            assert ecb(fw, m, key, pt * nblocks, mis) == bytes.fromhex(FIPS197[bits]) * nblocks
        if bits == 128:
            k, p, c = (bytes.fromhex(x) for x in APPENDIX_B)
            assert ecb(fw, m, k, p) == c
        rng = random.Random(bits)
        for trial in range(4):
            key, data = rng.randbytes(bits // 8), rng.randbytes(16 * rng.choice([1, 2, 3, 8]))
            assert ecb(fw, m, key, data, trial % 4) == reference(key, data)
        addr, size = fw.symbols[f"{cfg.prefix}_aes_encrypt2"]
        code = fw.image[addr - layout.FLASH_BASE: addr - layout.FLASH_BASE + size]
        insns = thumb2_classify.classify_bytes(code, addr)
        classes = [i.cls for i in insns]
        # spills and the pointer homes in FPU registers: no STRD, no load or store to the stack
        # but the frame's push and pop
        assert "vmov" in classes and "strd" not in classes
        assert not [i for i in insns if i.cls in ("ldr", "str") and "sp" in i.addr_regs]


def test_fpu_drop_refuses_a_build_without_the_fpu(tmp_path):
    cfg = config(128)
    text, _ = generate.header(cfg, "test")
    h = tmp_path / "f128.h"
    h.write_text(text)
    assert toolchain.header_cflags(h) == cortex_m.FPU_CFLAGS.split()
    src = tmp_path / "use.c"
    src.write_text(f'#define {cfg.prefix.upper()}_IMPLEMENTATION\n#include "{h}"\n')
    base = [toolchain.ARM_GCC, *toolchain.CORE_FLAGS["cortex-m4"], *toolchain.STRICT, "-c", str(src), "-o", "/dev/null"]
    p = subprocess.run(base, capture_output=True, text=True)
    assert p.returncode != 0 and "FPU registers" in p.stderr and cortex_m.FPU_CFLAGS in p.stderr
    for abi in ("softfp", "hard"):
        p = subprocess.run([*base, "-mfpu=fpv4-sp-d16", f"-mfloat-abi={abi}"], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-1500:]


def test_plain_m4_drop_has_no_fpu_instruction_and_no_requirement(tmp_path):
    cfg = from_dict({"name": "p128", "cipher": "aes128", "mode": "gcm", "target": "cortex-m4"})
    fw, header = firmware(cfg, tmp_path)
    assert toolchain.header_cflags(header) == [] and fw.extra_cflags == ()
    addr, size = fw.symbols[f"{cfg.prefix}_aes_encrypt2"]
    code = fw.image[addr - layout.FLASH_BASE: addr - layout.FLASH_BASE + size]
    assert "vmov" not in {i.cls for i in thumb2_classify.classify_bytes(code, addr)}


@pytest.mark.parametrize("schedule, target, message", [
    ({"spill": "fpu"}, "cortex-m3", "spill is not an option of aes128/gcm/cortex-m3"),
    ({"spill": "fpu", "objective": "size"}, "cortex-m4", 'spill = "fpu" is for the unrolled AES kernels'),
    ({"spill": "disk"}, "cortex-m4", "choose one of: stack, fpu"),
])
def test_spill_option_is_refused_where_there_is_no_fpu_kernel(schedule, target, message):
    with pytest.raises(ConfigError, match=message):
        from_dict({"name": "x", "cipher": "aes128", "mode": "gcm", "target": target, "schedule": schedule})
    with pytest.raises(ConfigError, match='spill = "fpu" is for the unrolled'):
        from_dict({"name": "x", "cipher": "aes128", "mode": "gcm", "target": "cortex-m4",
                   "ctr": {"face": "r1"}, "schedule": {"spill": "fpu", "objective": "balanced"}})
    # FACE has FPU kernels (issue 34): with objective speed it is a configuration
    assert from_dict({"name": "x", "cipher": "aes128", "mode": "gcm", "target": "cortex-m4",
                      "ctr": {"face": "r1"}, "schedule": {"spill": "fpu"}}).spill == "fpu"


def test_spill_option_round_trips_and_leaves_other_hashes_alone():
    cfg = config(128)
    assert cfg.options()["spill"] == "fpu" and 'spill = "fpu"' in cfg.toml()
    import tomllib
    assert from_dict(tomllib.loads(cfg.toml())) == cfg
    stack = config(128, spill="stack")
    assert "spill" not in stack.options() and "spill" not in stack.canonical()
    assert stack.sha256() != cfg.sha256()


def test_explore_scores_and_guards_the_fpu_kernel_as_built():
    """`slicegen explore` on a spill = fpu preset scores the FPU kernel, and the --write-orders
    guard prices it beside the stack kernel of the same cipher (not deduplicated away), under the
    S-box kind it reads (its own 'fpu:' order, or the stack kernels' before it has one)."""
    from gen import presets
    from gen.explore import search as explore
    from gen.explore import orders as EO
    from gen.kernels.aes import ecb_thumb2
    fpu, stack = presets.preset("aes128gcm-m4f-ffs"), presets.preset("aes128gcm-m4-ffs")
    line = explore.score(fpu, 0)
    assert line["parts"]["total"] == line["cycles"]          # the split of a loop step adds up
    assert line["cycles"] == ecb_thumb2.compile_loop(128, "ffs", "cortex-m4", spill="fpu").cycles
    assert line["parts"]["reloads"] < explore.score(stack, 0)["parts"]["reloads"]
    kind = aes_thumb2.sbox_kind(aes_thumb2.CIRCUIT)      # the stack kernel's S-box kind; the FPU
    own = EO.default_kind(fpu)                            # kernel's is its own 'fpu:' one
    assert own == aes_thumb2.FPU_PREFIX + kind
    rows = (EO.effect(EO.AES, kind, aes_thumb2.ORDERS[kind], configs=[stack, fpu])
            + EO.effect(EO.AES, own, EO.stored(own), configs=[stack, fpu]))
    names = {name: (old, new) for name, old, new in rows}
    assert names["aes128gcm-m4f-ffs"][0] == line["cycles"] and names["aes128gcm-m4-ffs"][0] > line["cycles"]
    assert all(old == new for old, new in names.values())     # the stored order against itself



def test_fpu_drop_loop_figures_match_emulation(tmp_path):
    """The FPU drop's loops (homes in s12-s15) cost in Unicorn's cycle model what the generator
    wrote in the manifest: a pair of ctr_pairs and of aes_encrypt_pairs ((n = 3) - (n = 1)) / 2,
    and a whole aes_encrypt2 call; and GCTR's keystream through aes_encrypt2 (start() and three
    keystream2 pairs, the loop's one-pair entry with its FPU homes) is pyca's."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from tests.test_kernel_cycles import Harness, _step
    cfg = config(256)
    header, ks = generate.header(cfg, "tests/test_fpu_spill.py")
    hp = tmp_path / f"{cfg.name}.h"
    hp.write_text(header)
    h = Harness(hp, cfg.prefix, "off", "cortex-m4", 256, cflags=tuple(cortex_m.FPU_CFLAGS.split()))
    m, k = h.m, ks.kernel_cycles
    assert _step(h, "ctr_pairs", "sg_ctr_n") == k["ctr_pairs_per_pair"]
    assert _step(h, "aes_encrypt_pairs", "sg_ecb_n") == k["aes_encrypt_pairs_per_pair"]
    m.reset_buffers()
    assert h.cycles_in("aes_encrypt2", "sg_aes", m.alloc(32), m.alloc(32)) == k["aes_encrypt2_call"]
    iv = bytes(range(12))
    _, stream = h.gctr(iv, 16 + 3 * 32)               # start(), then three keystream2 pairs
    enc = Cipher(algorithms.AES(h.key), modes.CTR(iv + (2).to_bytes(4, "big"))).encryptor()
    assert stream == enc.update(bytes(16 + 3 * 32))


def test_fpu_round_keys_are_vmovs_that_need_no_rk_pointer():
    """``fpu_rk`` (the M4F loops' rounds 1-2, aes_thumb2.FPU_RK_ROUNDS): the prologue saves s16-s31
    (VPUSH) and fills them from rk + 32 by one VLDM, the epilogue restores them (VPOP); no LDR in
    the body reads those 16 round-key words, each is a VMOV from its register, fewer rk pointer
    reloads are needed and the loop step is cheaper; the whole function, run on the instruction
    model, still gives the IR's output and leaves s16-s31 as it found them. Bad round lists are
    refused."""
    import random as _random
    from gen import ir
    from gen.kernels.aes import ecb_thumb2, fixsliced as AF
    from gen.kernels.thumb2_function import split_frame
    kw = dict(spill="fpu", count=True, fpu_homes=True)
    plain = aes_thumb2.compile_encrypt2(128, "ffs", "cortex-m4", **kw)
    c = aes_thumb2.compile_encrypt2(128, "ffs", "cortex-m4", fpu_rk=(1, 2), **kw)
    start, end, _ = split_frame(c.insns)
    assert [i.text().split("@")[0].strip() for i in c.insns[:2]] == ["push   {r4, r5, r6, r7, r8, r9, r10, r11, lr}",
                                                                     "vpush  {s16-s31}"]
    assert [i.text().split("@")[0].strip() for i in c.insns[start - 2:start]] == ["add    r12, r0, #32",
                                                                                 "vldm   r12, {s16-s31}"]
    assert [i.mnem for i in c.insns[end:]] == ["add", "vpop", "pop"] and c.stack_bytes == plain.stack_bytes + 64
    body = c.insns[start:end]
    pstart, pend, _ = split_frame(plain.insns)
    memory_loads = lambda insns: sum(1 for i in insns if i.mnem == "ldr" and i.base != "sp")
    assert plain.remats == 0 and memory_loads(body) == memory_loads(plain.insns[pstart:pend]) - 16
    fpu_reads = {i.srcs[0] for i in body if i.mnem == "vmov" and i.srcs[0] in {f"s{k}" for k in range(16, 32)}}
    assert fpu_reads == {f"s{k}" for k in range(16, 32)}
    assert not any(i.writes() & fpu_reads for i in body)
    assert c.base_reloads < plain.base_reloads
    step = lambda x: ecb_thumb2.figures(ecb_thumb2.compile_kernel(128, "ffs", "cortex-m4", 0, "fpu", fpu_rk=x), "cortex-m4")[0]
    assert step((1, 2)) < step(())
    rng = _random.Random(5)
    rk = [rng.getrandbits(32) for _ in range(88)]
    inw = [rng.getrandbits(32) for _ in range(8)]
    want = ir.run(AF.encrypt2_ir(128, "ffs"), {"in": inw, "rk": rk})["out"]
    RK, IN, OUT, SP = 0x1000, 0x3000, 0x4000, 0x8000
    mem = {RK + 4 * k: w for k, w in enumerate(rk)} | {IN + 4 * k: w for k, w in enumerate(inw)}
    saved = {f"s{k}": 0x5000 + k for k in range(16, 32)}
    regs = {f"r{k}": 0 for k in range(13)} | saved
    regs.update(r0=RK, r1=OUT, r2=IN, r3=IN + 32, sp=SP, lr=0, pc=0)
    t2.execute(c.insns, regs, mem)
    assert [mem[OUT + 4 * k] for k in range(8)] == want and regs["sp"] == SP
    assert {r: regs[r] for r in saved} == saved
    for bad in [(1, 3), (0, 1, 2), (10, 11), (-1, 0)]:
        with pytest.raises(ValueError, match="fpu_rk"):
            aes_thumb2.compile_encrypt2(128, "ffs", "cortex-m4", fpu_rk=bad, **kw)
    with pytest.raises(ValueError, match="fpu_rk needs fpu_homes"):
        aes_thumb2.compile_encrypt2(128, "ffs", "cortex-m4", spill="fpu", fpu_rk=(1, 2))
