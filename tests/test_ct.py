"""The constant-time checker (emu/ct/checker.py) must be able to fail: deliberately leaky kernels are
flagged at the right instruction, constant-time code is verified, the hooks see every
instruction, and whole drops come out right (portable aes128: verified; with a secret-indexed
table in GHASH or an early-exit tag compare: not-constant-time, naming the function)."""
from __future__ import annotations

from pathlib import Path

import pytest
from unicorn import UC_HOOK_CODE

from emu.ct import checker as ct
from emu.machines.machine import Machine
from gen import presets
from gen.drop import render as generate

SNIPPETS = r"""
.macro FUNC name
    .global \name
    .type \name, %function
    .thumb_func
\name:
.endm

@ r0 -> secret words, r1 -> output. Constant time: fixed loads, ALU only, public loop count.
FUNC ct_ok
    push {r4, lr}
    ldr r2, [r0]
    ldr r3, [r0, #4]
    eor r2, r2, r3
    ror r2, r2, #7
    and r3, r2, r3, lsl #3
    movs r4, #4
1:  ldr r12, [r0, #8]
    add r2, r2, r12
    eor r3, r3, r2, ror #11
    subs r4, #1
    bne 1b
    neg r12, r2                 @ mask select without a branch
    orr r12, r12, r2
    asr r12, r12, #31
    and r3, r3, r12
    orr r2, r2, #0x80000000     @ top bits set: UMULL always in its slowest class
    orr r12, r3, #0x80000000
    umull r2, r3, r2, r12
    strd r2, r3, [r1]
    pop {r4, pc}
.size ct_ok, .-ct_ok

@ (a) a branch on a key bit
FUNC leak_branch
    ldr r2, [r0]
    tst r2, #1
    beq 1f
    eor r2, r2, r2, lsl #3
1:  str r2, [r1]
    bx lr
.size leak_branch, .-leak_branch

@ (b) a load indexed by a plaintext byte
FUNC leak_index
    ldrb r2, [r0]
    adr r3, leak_table
    ldrb r2, [r3, r2]
    str r2, [r1]
    bx lr
.size leak_index, .-leak_index
    .align 2
leak_table:
    .rept 64
    .byte 1, 2, 3, 4
    .endr

@ (c) UMULL with secret operands (small ones end early on Cortex-M3)
FUNC leak_umull
    ldr r2, [r0]
    ldr r3, [r0, #4]
    umull r2, r3, r2, r3
    strd r2, r3, [r1]
    bx lr
.size leak_umull, .-leak_umull

@ (d) SDIV with secret operands
FUNC leak_sdiv
    ldr r2, [r0]
    ldr r3, [r0, #4]
    sdiv r2, r2, r3
    str r2, [r1]
    bx lr
.size leak_sdiv, .-leak_sdiv

@ an IT-predicated ALU instruction on a secret condition (no branch, no memory difference)
FUNC leak_it
    ldr r2, [r0]
    tst r2, #1
    it ne
    addne r2, r2, #5
    str r2, [r1]
    bx lr
.size leak_it, .-leak_it

@ a long constant-time prologue, then a branch on a secret bit: divergence far into the trace
FUNC leak_late
    ldr r3, =6000
1:  ldr r2, [r0, #4]
    subs r3, #1
    bne 1b
    ldr r2, [r0]
    cmp r2, #0
    bne 2f
    str r2, [r1]
2:  bx lr
    .ltorg
.size leak_late, .-leak_late

@ r0 = n, r1 -> word: n iterations of 4 instructions, one load each
FUNC count_loop
    movs r2, #0
1:  ldr r3, [r1]
    adds r2, r2, r3
    subs r0, r0, #1
    bne 1b
    mov r0, r2
    bx lr
.size count_loop, .-count_loop
"""


@pytest.fixture(scope="module")
def snippets(tmp_path_factory):
    fws = {}
    for core in ("cortex-m4", "cortex-m3"):
        fws[core] = ct.snippet_firmware(SNIPPETS, core, tmp_path_factory.mktemp(core))
    return fws


def words_args(machine, secret):
    blob = b"".join(w.to_bytes(4, "little") for w in secret)
    src = machine.alloc(len(blob), blob, readonly=True)
    out = machine.alloc(16)
    return src, out


def addr_of(fw, func, mnemonic_prefix):
    """Address of the first instruction of `func` whose mnemonic starts with `mnemonic_prefix`."""
    start, size = fw.symbols[func]
    md = ct.C.thumb_disassembler()
    for i in md.disasm(fw.image[start:start + size], start):
        if i.mnemonic.startswith(mnemonic_prefix):
            return i.address
    raise AssertionError(f"{mnemonic_prefix} not in {func}")


def check(fw, func, secrets):
    m = Machine(fw.core, fw.image)
    return ct.check_function(m, fw, func, words_args, secrets)


SECRETS = [(0x12345678, 0x9ABCDEF1, 0x0F0F0F0F), (0, 0, 0), (0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF),
           (0x13, 0x7, 0x20000), (0x80000001, 0x00010000, 0x5)]


# -- the recorder sees every instruction -------------------------------------------------------------
@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m3"])
def test_trace_length_equals_independent_count_even_after_blocks_were_cached(snippets, core):
    fw = snippets[core]
    m = Machine(core, fw.image)
    func = fw.addr("count_loop")
    word = m.alloc(4, (3).to_bytes(4, "little"), readonly=True)
    assert m.call(func, 10, word) == 30          # blocks translated BEFORE the tracer exists
    tracer = ct.Tracer.of(m)
    for n in (1, 7, 50):
        tracer.begin()
        with tracer.recording():
            assert m.call(func, n, word) == 3 * n
        t = tracer.end()
        assert t.n_insns == 1 + 4 * n + 2         # movs; n x (ldr, adds, subs, bne); mov; bx
        assert t.n_events == t.n_insns + n       # plus one 4-byte read per iteration


def test_hook_without_flush_misses_cached_blocks(snippets):
    """Why Tracer flushes: Unicorn does not run a new hook in blocks it translated before."""
    fw = snippets["cortex-m4"]
    m = Machine("cortex-m4", fw.image)
    word = m.alloc(4, bytes(4), readonly=True)
    m.call(fw.addr("count_loop"), 5, word)
    seen = []
    h = m.uc.hook_add(UC_HOOK_CODE, lambda uc, a, s, u: seen.append(a))
    m.call(fw.addr("count_loop"), 5, word)
    assert len(seen) < 1 + 4 * 5 + 2
    m.uc.ctl_flush_tb()
    seen.clear()
    m.call(fw.addr("count_loop"), 5, word)
    assert len(seen) == 1 + 4 * 5 + 2
    m.uc.hook_del(h)


def test_recorder_events_are_the_instructions_and_accesses_in_order(snippets):
    """The C recorder's events, read back from the captured chunk: each instruction's address,
    then its data access (address, size, read/write), in execution order; the chunk's digest
    is blake2b of exactly those events."""
    import hashlib
    from array import array
    fw = snippets["cortex-m4"]
    m = Machine("cortex-m4", fw.image)
    word = m.alloc(4, (3).to_bytes(4, "little"), readonly=True)
    tracer = ct.Tracer.of(m)
    tracer.begin(capture=0)
    with tracer.recording():
        m.call(fw.addr("count_loop"), 2, word)
    t = tracer.end()
    ev = t.captured
    insns = [e >> 8 for e in ev if e & 7 == ct.K_INSN]
    start = fw.addr("count_loop")
    assert insns[0] == start and len(insns) == t.n_insns == 1 + 4 * 2 + 2
    reads = [(i, e) for i, e in enumerate(ev) if e & 7 == ct.K_READ]
    assert [e >> 8 for _, e in reads] == [word, word] and all((e >> 3) & 31 == 4 for _, e in reads)
    for i, _ in reads:                     # each read follows its ldr
        assert ev[i - 1] & 7 == ct.K_INSN and ct.Disassembler(m.uc).text(ev[i - 1] >> 8).startswith("ldr")
    assert t.chunks == [hashlib.blake2b(array("Q", ev).tobytes(), digest_size=16).digest()]


def test_an_error_inside_the_recorder_is_raised_not_swallowed(snippets, monkeypatch):
    """A Python callback of the C hooks that fails stops the run and the failure surfaces (a
    swallowed exception would leave a silently wrong trace)."""
    fw = snippets["cortex-m3"]
    m = Machine("cortex-m3", fw.image)
    tracer = ct.Tracer.of(m)

    def broken(address, size):
        raise ValueError("classifier broke")
    monkeypatch.setattr(tracer, "_classify", broken)
    src, out = words_args(m, (1, 2, 3))
    tracer.begin()
    with pytest.raises(RuntimeError, match="trace recorder failed") as info:
        with tracer.recording():
            m.call(fw.addr("ct_ok"), src, out)
    assert isinstance(info.value.__cause__, ValueError)


def test_skipped_it_instruction_is_not_in_the_trace(snippets):
    fw = snippets["cortex-m4"]
    m = Machine("cortex-m4", fw.image)
    tracer = ct.Tracer.of(m)
    lengths = {}
    for secret in (0, 1):
        m.reset_buffers()
        src, out = words_args(m, (secret,))
        tracer.begin()
        with tracer.recording():
            m.call(fw.addr("leak_it"), src, out)
        lengths[secret] = tracer.end().n_insns
    assert lengths[1] == lengths[0] + 1


# -- constant-time code passes, leaky code is caught at the right instruction ----------------------------
@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m3"])
def test_constant_time_snippet_is_verified(snippets, core):
    res = check(snippets[core], "ct_ok", SECRETS)
    assert res.status == "verified", str(res)
    assert res.divergence is None and res.runs == len(SECRETS)


@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m3"])
def test_branch_on_key_bit_is_flagged_at_the_branch(snippets, core):
    fw = snippets[core]
    res = check(fw, "leak_branch", [(0x10,), (0x11,)])
    assert res.status == "not-constant-time"
    d = res.divergence
    assert d.what == "control flow"
    assert d.address == addr_of(fw, "leak_branch", "beq")
    assert d.symbol == "leak_branch" and d.disassembly.startswith("beq")
    assert f"{d.address:#010x}" in str(res) and "leak_branch" in str(res)


def test_load_indexed_by_plaintext_is_flagged_at_the_load(snippets):
    fw = snippets["cortex-m4"]
    res = check(fw, "leak_index", [(0x05,), (0x05,), (0x2A,)])     # same byte twice: no difference
    assert res.status == "not-constant-time"
    d = res.divergence
    assert d.what == "data address" and d.runs == (0, 2)
    start = fw.symbols["leak_index"][0]
    md = ct.C.thumb_disassembler()
    ldrbs = [i.address for i in md.disasm(fw.image[start:start + 12], start) if i.mnemonic.startswith("ldrb")]
    assert d.address == ldrbs[1]          # the table load, not the load of the plaintext byte
    assert d.symbol == "leak_index"


def test_umull_with_small_secret_operand_is_flagged_on_m3_only(snippets):
    secrets = [(0x12345678, 0x9ABCDEF1), (0x1234, 0x9ABCDEF1), (5, 7)]
    on_m4 = check(snippets["cortex-m4"], "leak_umull", secrets)
    assert on_m4.status == "verified", str(on_m4)      # single-cycle multiplier on the M4
    fw = snippets["cortex-m3"]
    on_m3 = check(fw, "leak_umull", secrets)
    assert on_m3.status == "not-constant-time"
    d = on_m3.divergence
    assert d.what == "timing class" and d.address == addr_of(fw, "leak_umull", "umull")
    assert "5 cycles" in d.detail and "4 cycles" in d.detail


@pytest.mark.parametrize("core", ["cortex-m4", "cortex-m3"])
def test_sdiv_with_secret_operands_is_flagged(snippets, core):
    fw = snippets[core]
    res = check(fw, "leak_sdiv", [(1000, 3), (1000, 7), (0x7FFFFFFF, 3)])
    assert res.status == "not-constant-time"
    assert res.divergence.what == "timing class"
    assert res.divergence.address == addr_of(fw, "leak_sdiv", "sdiv")


def test_it_predicated_instruction_on_secret_is_flagged(snippets):
    fw = snippets["cortex-m4"]
    res = check(fw, "leak_it", [(2,), (4,), (3,)])
    assert res.status == "not-constant-time" and res.divergence.runs == (0, 2)
    assert res.divergence.what == "control flow"
    assert res.divergence.address == addr_of(fw, "leak_it", "it")


def test_divergence_far_into_the_trace_is_located_exactly(snippets):
    fw = snippets["cortex-m4"]
    res = check(fw, "leak_late", [(0, 1), (0, 2), (9, 1)])
    assert res.status == "not-constant-time" and res.divergence.runs == (0, 2)
    d = res.divergence
    assert d.event_index > 2 * ct.CHUNK         # beyond the first hashed chunks
    assert d.disassembly.startswith("bne") and d.symbol == "leak_late"
    # the second bne (the secret one), not the loop's
    start, size = fw.symbols["leak_late"]
    md = ct.C.thumb_disassembler()
    bnes = [i.address for i in md.disasm(fw.image[start:start + size], start) if i.mnemonic.startswith("bne")]
    assert d.address == bnes[1]


# -- whole drops ---------------------------------------------------------------------------------
def _drop(tmp_path: Path, patch=None, name="aes128gcm-portable"):
    cfg = presets.preset(name)
    text, ks = generate.header(cfg, f"slicegen build {name}")
    if patch:
        text = patch(text, cfg.prefix)
    h = tmp_path / f"{cfg.name}.h"
    h.write_text(text)
    return h, cfg, ks


def test_portable_aes128_drop_is_verified(tmp_path):
    h, cfg, ks = _drop(tmp_path)
    rep = ct.check_drop(h, cfg.prefix, cfg.target, 8 * cfg.spec.key_bytes, ks.rk_words, ks.ghash.words, tmp_path)
    assert rep.status == "verified", str(rep)
    assert set(rep.checked) == {"init", "wipe", "encrypt", "decrypt", "start", "aad", "update", "finish",
                                "finish_verify", "ecb_encrypt", "ghash"}
    names = [c[0] for c in rep.checks]
    assert "decrypt wrong tag iv12 len33 aad20" in names and "encrypt iv60 len64 aad20" in names
    assert all(status == "verified" and insns > 500 for _, status, insns in rep.checks)
    assert "verified" in str(rep)


def _table_ghash(text: str, prefix: str) -> str:
    """GHASH with a secret-indexed table lookup per block (what table4/table8 do)."""
    anchor = "        in += 16;\n        /* Karatsuba operands"
    assert anchor in text
    table = f"static const uint32_t {prefix}_leak_tab[16] = {{" + ", ".join(
        str(0x01000193 * (k + 1) & 0xFFFFFFFF) + "u" for k in range(16)) + "};\n"
    text = text.replace(f"static void {prefix}_ghash_blocks(", table + f"static void {prefix}_ghash_blocks(", 1)
    return text.replace(anchor, f"        x[0] ^= {prefix}_leak_tab[x[3] & 15u];\n" + anchor, 1)


def test_table_ghash_drop_is_not_constant_time(tmp_path):
    h, cfg, ks = _drop(tmp_path, _table_ghash)
    rep = ct.check_drop(h, cfg.prefix, cfg.target, 8 * cfg.spec.key_bytes, ks.rk_words, ks.ghash.words, tmp_path,
                        runs=4, only=lambda n: n.startswith(("ghash", "init", "encrypt iv12 len16")))
    assert rep.status == "not-constant-time", str(rep)
    d = rep.divergence
    assert d.what == "data address"
    assert d.symbol == f"{cfg.prefix}_ghash_blocks" and "kernel: GHASH" in d.origin
    assert d.disassembly.startswith("ldr")
    assert f"{cfg.prefix}_ghash_blocks" in str(rep)


def _early_exit_tag_compare(text: str, prefix: str) -> str:
    loop = "for (i = 0; i + 4 <= taglen; i += 4) {"      # the word loop: bytes 0 and 15 are in words 0 and 3
    assert text.count(loop) == 1          # one compare (tag_diff) serves decrypt and finish_verify
    return text.replace(loop, "for (i = 0; i + 4 <= taglen && diff == 0; i += 4) {")


def test_wrong_tag_byte_0_and_15_must_trace_the_same(tmp_path):
    h, cfg, ks = _drop(tmp_path, _early_exit_tag_compare)
    rep = ct.check_drop(h, cfg.prefix, cfg.target, 8 * cfg.spec.key_bytes, ks.rk_words, ks.ghash.words, tmp_path,
                        runs=2, only=lambda n: n.startswith(("decrypt", "stream decrypt")))
    assert rep.status == "not-constant-time", str(rep)
    d = rep.divergence
    assert d.check.startswith("decrypt wrong tag") and d.call == "decrypt"
    # the compare is tag_diff's, which the compiler may inline into decrypt or not
    assert d.symbol in (f"{cfg.prefix}_decrypt", f"{cfg.prefix}_tag_diff") and "gcm_glue" in d.origin
    assert d.runs == (0, 1)       # run 0: wrong byte 0, run 1: wrong byte 15
