"""slicegen explore --space orders: annealing chains over one segment's evaluation order, each
checked in Unicorn; --write-orders gives the same file for the same command; the seed search
covers the other scheduled kernels (SPEEDY, Rijndael-256, FACE) through their own figures."""
import dataclasses
import json

import pytest

from gen import presets

from gen.explore import search as explore

from gen.explore import orders as EO
from gen.cli.commands import main
from gen.errors import ConfigError
from gen.kernels.aes import ecb_thumb2 as aes_ecb_thumb2, thumb2 as aes_thumb2
from gen.isa import thumb2 as t2

PRESET = "aes128gcm-m4-ffs"
KIND = "lin:0:-"          # the last round's linear layer: 16 ops, quick chains


def load(path):
    space = {}
    exec(path.read_text(), space)
    return space


def test_write_orders_is_the_same_file_for_the_same_command(tmp_path):
    config = presets.preset(PRESET)
    command = f"slicegen explore {PRESET} --budget 2 --seed 3 --space orders --kind {KIND} --iters 12"
    files = []
    for n in (1, 2):
        lines = EO.search(config, KIND, 12, "segment", 2, 3, jobs=n)
        assert [line["candidate"] for line in lines] == [EO.BASELINE, 3, 4]
        assert all(line["valid"] for line in lines)
        winner = EO.best(lines)
        files.append(EO.write_orders(EO.AES, KIND, winner["order"], command, "test", tmp_path / f"orders{n}.py"))
    assert files[0].read_bytes() == files[1].read_bytes()
    assert load(files[0])["HISTORY"] == (f"{command}  # test",)
    EO.write_orders(EO.AES, KIND, winner["order"], "second", "again", files[1])    # a later run adds its line
    assert load(files[1])["HISTORY"] == (f"{command}  # test", "second  # again")
    written = load(files[0])["ORDERS"]
    assert written[KIND] == tuple(winner["order"])
    assert {k: v for k, v in written.items() if k != KIND} == {k: v for k, v in aes_thumb2.ORDERS.items() if k != KIND}
    # every order a chain returns is a permutation of the segment's ops, topological (it compiled and ran)
    n_ops = len(aes_thumb2.segment_program(KIND).ops) - 16
    assert all(sorted(line["order"]) == list(range(n_ops)) for line in lines)
    assert lines[0]["order"] == list(EO.stored(KIND))
    # a variant kind ('fpu:', 'loop:') whose winner is the order it already reads gets no entry
    variant = aes_thumb2.FPU_PREFIX + KIND
    assert variant not in aes_thumb2.ORDERS
    same = EO.write_orders(EO.AES, variant, EO.stored(variant), "third", "no change", tmp_path / "orders3.py")
    assert variant not in load(same)["ORDERS"] and load(same)["HISTORY"] == ("third  # no change",)
    other = tuple(reversed(EO.stored(variant)))       # any other order (not topological: only the file)
    assert load(EO.write_orders(EO.AES, variant, other, "fourth", "x", same))["ORDERS"][variant] == other


def test_a_kernel_that_computes_something_else_is_caught_in_unicorn():
    config = presets.preset(PRESET)
    good = EO.compiled(config, KIND, EO.stored(KIND))
    assert EO.runs_like_the_ir(config, good)
    k = next(k for k, i in enumerate(good.insns) if i.mnem == "eor")
    broken = dataclasses.replace(good, insns=list(good.insns))
    i = broken.insns[k]
    broken.insns[k] = t2.Insn("orr", dst=i.dst, srcs=i.srcs, shift=i.shift)
    assert not EO.runs_like_the_ir(config, broken)
    lines = [{"candidate": EO.BASELINE, "cycles": 10, "valid": True}, {"candidate": 1, "cycles": 5, "valid": False}]
    assert EO.best(lines)["candidate"] == EO.BASELINE


def test_orders_explore_builds_the_winner_and_writes_the_orders_file(tmp_path, capsys, monkeypatch):
    config = presets.preset(PRESET)
    orders = tmp_path / "thumb2_orders.py"
    # the guard over every preset's kernels has its own test (below); here its own kernel is enough
    guard = EO.effect
    monkeypatch.setattr(EO, "effect", lambda fam, kind, order, configs=None: guard(fam, kind, order, [config]))
    lines, result = EO.explore(config, "slicegen explore test", KIND, 8, "kernel", 1, 0, tmp_path, write=orders)
    manifest = json.loads((result.path / "manifest.json").read_text())
    assert manifest["validation"]["nist_vectors"]["failed"] == 0
    assert manifest["validation"]["constant_time_check"] == "verified"
    winner = EO.best(lines)
    assert manifest["metrics"]["kernel_cycles"]["aes_encrypt_pairs_per_pair"] == winner["cycles"] <= lines[0]["cycles"]
    assert load(orders)["ORDERS"][KIND] == tuple(winner["order"])
    assert "slicegen explore test" in orders.read_text()
    assert aes_thumb2.ORDERS[KIND] == EO.stored(KIND)          # the build's order was not left behind
    logged = [json.loads(t) for t in (tmp_path / f"explore-{PRESET}-orders.jsonl").read_text().splitlines()]
    assert [explore.reproducible(line) for line in logged] == [explore.reproducible(line) for line in lines]
    # a resumed log of another search is refused
    with pytest.raises(ConfigError, match="another|not 'orders"):
        EO.search(config, KIND, 9, "kernel", 1, 0, log=tmp_path / f"explore-{PRESET}-orders.jsonl", resume=True)


def test_orders_refuses_kernels_without_stored_orders_and_unknown_kinds(tmp_path, capsys):
    assert main(["explore", "speedy5ecb-m4", "--space", "orders", "-o", str(tmp_path)]) == 2
    assert "has none (use --space seeds)" in capsys.readouterr().err
    assert main(["explore", PRESET, "--space", "orders", "--kind", "lin:9:9", "-o", str(tmp_path)]) == 2
    assert "--kind lin:9:9" in capsys.readouterr().err
    assert main(["explore", PRESET, "--write-orders", "-o", str(tmp_path)]) == 2
    assert list(tmp_path.iterdir()) == []


def test_rijndael256_orders_are_searched_and_written_to_its_own_file(tmp_path):
    from gen.kernels.rijndael256 import thumb2 as r256
    from gen.targets import cortex_m
    config = presets.preset("rijndael256ecb-m4")
    kind = EO.default_kind(config)
    assert EO.family(config) is EO.RIJNDAEL256 and kind in r256.OWN_ORDERS and r256.sbox_kind() in EO.kinds(config)
    assert EO.default_kind(config) != r256.sbox_kind()
    lines = EO.search(config, kind, 4, "segment", 1, 0)
    assert all(line["valid"] for line in lines)
    assert lines[0]["cycles"] == cortex_m.kernels(config).kernel_cycles["encrypt_blocks_n_per_step"]
    path = EO.write_orders(EO.RIJNDAEL256, kind, EO.best(lines)["order"], "cmd", "test", tmp_path / "o.py")
    written = load(path)["ORDERS"]
    assert set(written) == set(r256.OWN_ORDERS) and written[kind] == tuple(EO.best(lines)["order"])
    assert load(EO.RIJNDAEL256.path)["ORDERS"] == r256.OWN_ORDERS


@pytest.mark.parametrize("preset, figure", [("speedy5ecb-m4", "encrypt_blocks_n_per_step"),
                                            ("speedy5ctr-m3", "ctr_blocks_per_step"),
                                            ("aes128gcm-m4-ffs-face-r2", "face_encrypt2_per_pair")])
def test_the_seed_search_scores_every_scheduled_kernel_by_its_own_figure(preset, figure):
    from gen.targets import cortex_m
    config = presets.preset(preset)
    assert explore.objective(config) == figure
    lines = explore.search(config, 1, 5)
    assert [line["candidate"] for line in lines] == [config.seed, 5]
    for line in lines:
        want = cortex_m.kernels(dataclasses.replace(config, seed=line["candidate"])).kernel_cycles
        assert line["cycles"] == want[figure] and line["figures"] == want


def test_alloc_policies_start_from_the_kernel_policy_and_run_on_the_m3():
    import inspect
    from gen.explore import alloc as EA
    from gen.sched import regalloc
    defaults = {k: p.default for k, p in inspect.signature(regalloc.allocate).parameters.items()
                if k in ("clean_bonus", "pick")}
    kernel = dict(aes_thumb2.ALLOC_POLICY)
    assert EA.POLICIES[0] == dict(defaults, **kernel) and len({str(p) for p in EA.POLICIES}) == len(EA.POLICIES)
    assert {"recompute": False}.items() <= EA.POLICIES[-1].items()      # the allocator without it, too
    config = presets.preset("aes128gcm-m3-ffs")
    lines = EA.search(config, 1)
    assert [line["candidate"] for line in lines] == [0, 1] and all(line["valid"] for line in lines)
    assert lines[0]["cycles"] == aes_ecb_thumb2.compile_loop(128, "ffs", "cortex-m3").cycles
    assert lines[1]["policy"] != EA.POLICIES[0] and aes_thumb2.ALLOC_POLICY == kernel
    assert EA.best(lines)["cycles"] == min(line["cycles"] for line in lines)
    with pytest.raises(ConfigError, match="--space alloc"):
        EA.search(presets.preset("speedy5ecb-m4"), 1)


def test_cpsat_finds_the_least_register_pressure_order_and_it_is_a_candidate():
    from gen.explore.cpsat import maxlive, maxlive_order
    prog = aes_thumb2.segment_program(KIND)
    order, live, bound, status = maxlive_order(prog, 5)
    assert status == "OPTIMAL" and live == bound == maxlive(prog, order)
    assert live <= maxlive(prog, EO.stored(KIND))                 # never worse than the stored order
    assert maxlive_order(prog, 5) == (order, live, bound, status)  # deterministic time: reproducible
    # no topological order has fewer live values (random ones, by Kahn's algorithm with random picks)
    import random
    from gen.sched import listsched
    preds = listsched.dependences(prog)
    m, rng = len(prog.ops) - 16, random.Random(5)
    for _ in range(30):
        done, rand = set(), []
        while len(rand) < m:
            ready = [g for g in range(m) if g not in done and all(p - 8 in done for p in preds[8 + g] if 8 <= p < 8 + m)]
            g = rng.choice(ready)
            done.add(g)
            rand.append(g)
        assert maxlive(prog, rand) >= live
    # explore's candidate starts from the stored order (a hint) with the proven floor as a constraint
    # (gen/explore/pressure.py): the same optimum, a bound never below the floor
    from gen.explore.pressure import certain_live
    floor = certain_live(prog).bound
    hinted = maxlive_order(prog, 5, hint=EO.stored(KIND), floor=floor)
    assert hinted[1] == live and hinted[2] >= floor and hinted[3] == "OPTIMAL"
    assert maxlive(prog, hinted[0]) == live
    lines = EO.search(presets.preset(PRESET), KIND, 1, "segment", 0, 0, cpsat=5)
    assert [line["candidate"] for line in lines] == [EO.BASELINE, EO.CPSAT]
    assert lines[1]["order"] == list(hinted[0]) and lines[1]["maxlive"] == live and lines[1]["valid"]
    assert lines[1]["stored_maxlive"] == maxlive(prog, EO.stored(KIND))


def test_live_cost_searches_the_peak_and_the_kernel_cycles_together(monkeypatch):
    """--cost live: a chain prices an order by the kernel's cycles plus the segment's live-value
    peak above the registers; the log's cycles (what wins) stay the kernel's own."""
    from gen.explore.cpsat import REGISTERS, maxlive
    assert EO.live_cost(2400, REGISTERS + 3) == 2403 and EO.live_cost(2400, REGISTERS - 2) == 2400
    seen = []
    real = EO.live_cost
    monkeypatch.setattr(EO, "live_cost", lambda c, live: seen.append((c, live)) or real(c, live))
    config = presets.preset(PRESET)
    lines = EO.search(config, KIND, 3, "live", 1, 0)
    assert [line["candidate"] for line in lines] == [EO.BASELINE, 0] and all(line["valid"] for line in lines)
    prog = aes_thumb2.segment_program(KIND)
    assert seen and seen[0] == (lines[0]["cycles"], maxlive(prog, EO.stored(KIND)))
    assert lines[1]["cycles"] == EO.compiled(config, KIND, lines[1]["order"]).cycles
    with pytest.raises(ConfigError, match="--cost"):
        EO.check(config, KIND, 3, "peak")


def test_write_orders_guard_sees_every_kernel_that_reads_the_aes_orders(monkeypatch):
    """--write-orders refuses an order that makes any reader slower: besides the AES kernels (a speed
    drop's ECB loop and its counter-mode ctr_pairs), the size objective's looped kernel, the FACE
    functions and Rijndael-256 (whose ark+sbox is AES's unless its own orders file keeps one)."""
    from gen.kernels.rijndael256 import thumb2 as r256
    configs = [presets.preset(n) for n in ("aes128gcm-m4-ffs", "aes128gcm-m4-size", "aes128gcm-m4-ffs-face-r2",
                                           "rijndael256ecb-m4")]
    stored = EO.effect(EO.AES, "ark+sbox", aes_thumb2.ORDERS["ark+sbox"], configs=configs)
    names = [name for name, _, _ in stored]
    r256_reads_aes = "ark+sbox" not in r256.OWN_ORDERS
    assert names == ["aes128gcm-m4-ffs", "aes128gcm-m4-ffs ctr_pairs", "aes128gcm-m4-size looped pair segments",
                     "aes128gcm-m4-ffs-face-r2 face_fill", "aes128gcm-m4-ffs-face-r2 face_encrypt2",
                     "aes128gcm-m4-ffs-face-r2 face_encrypt2c", "aes128gcm-m4-ffs-face-r2 face_sv"] + \
        ["rijndael256ecb-m4 (AES's ark+sbox)"] * r256_reads_aes
    assert all(old == new for _, old, new in stored)
    # another valid ark+sbox order (the FACE fill's own): it moves the kernels that read 'ark+sbox'
    # (the old --write-orders guard saw only the first), not the fill, which keeps 'fill:ark+sbox',
    # nor the looped kernel, which keeps 'loop:ark+sbox'; that kind moves the looped kernel only
    fill = aes_thumb2.ORDERS["fill:ark+sbox"]
    other = dict((name, (old, new)) for name, old, new in EO.effect(EO.AES, "ark+sbox", fill, configs=configs))
    for name in ["aes128gcm-m4-ffs", "aes128gcm-m4-ffs ctr_pairs"] + ["rijndael256ecb-m4 (AES's ark+sbox)"] * r256_reads_aes:
        assert other[name][0] != other[name][1], name
    for name in ("aes128gcm-m4-ffs-face-r2 face_fill", "aes128gcm-m4-size looped pair segments"):
        assert other[name][0] == other[name][1], name
    # Rijndael-256 reads the S-box order of AES's circuit choice unless it keeps its own: a write of
    # that kind is guarded for it then, and not when it keeps one
    mine = aes_thumb2.sbox_kind(aes_thumb2.CIRCUIT)
    readers = lambda: [n for n, _, _ in EO.effect(EO.AES, mine, aes_thumb2.ORDERS[mine], configs=configs[-1:])]
    assert readers() == ([] if mine in r256.OWN_ORDERS else [f"rijndael256ecb-m4 (AES's {mine})"])
    monkeypatch.setattr(r256, "OWN_ORDERS", {k: v for k, v in r256.OWN_ORDERS.items() if k != mine})
    assert readers() == [f"rijndael256ecb-m4 (AES's {mine})"]
    looped = dict((name, (old, new)) for name, old, new in EO.effect(EO.AES, "loop:ark+sbox", fill, configs=configs))
    assert looped["aes128gcm-m4-size looped pair segments"][0] != looped["aes128gcm-m4-size looped pair segments"][1]
    assert "aes128gcm-m4-ffs" not in looped and all(old == new for name, (old, new) in looped.items()
                                                    if "face" in name)


def test_orders_and_alloc_spaces_score_the_kernel_the_configuration_builds():
    """A size configuration's candidates are its looped kernel (pair segments), a balanced one's
    the XOR-fused encrypt2 its ctr_pairs runs; each runs in Unicorn against its own IR, and a
    broken looped kernel is caught there."""
    from gen.explore import alloc as EA
    from gen.kernels.aes import compact_thumb2 as CT
    size = presets.preset("aes128gcm-m4-size")
    looped = CT.thumb2(size.prefix, 128, "ffs", "cortex-m4", size.seed)
    line = EO.score(size, KIND, 1, "segment", None, EO.BASELINE)
    assert line["cycles"] == looped.pair_segment_cycles and line["valid"] and line["spills"] == looped.spills
    assert EA.score(size, 0)["cycles"] == looped.pair_segment_cycles
    assert line["cycles"] != EO.score(presets.preset(PRESET), KIND, 1, "segment", None, EO.BASELINE)["cycles"]
    k = next(j for j, text in enumerate(looped.lines) if text.strip().startswith("eor"))
    broken = EO.Looped(looped.pair_segment_cycles, 0, 0, looped.lines[:k] + looped.lines[k + 1:])
    assert not EO.runs_like_the_ir(size, broken)
    balanced = presets.preset("aes128gcm-m3-balanced")
    fused = aes_thumb2.compile_encrypt2(128, "ffs", "cortex-m3", balanced.seed, xor=True)
    line = EO.score(balanced, KIND, 1, "segment", None, EO.BASELINE)
    assert line["cycles"] == fused.cycles and line["valid"]


def test_the_looped_kernel_reads_its_own_ark_sbox_order():
    """'loop:ark+sbox' is the size configurations' S-box kind: the looped kernel reads it (and the
    unrolled kernels' 'ark+sbox' no longer moves it), the unrolled kernels do not."""
    from gen.kernels.aes import compact_thumb2 as CT
    size, speed = presets.preset("aes128gcm-m4-size"), presets.preset(PRESET)
    assert "loop:ark+sbox" in EO.kinds(size) and "ark+sbox" not in EO.kinds(size)
    assert EO.default_kind(size) == "loop:ark+sbox"
    assert EO.default_kind(speed) == aes_thumb2.sbox_kind(aes_thumb2.CIRCUIT)   # the chosen circuit's
    stored = EO.stored("ark+sbox")                   # another topological order: any move away from it
    other = aes_thumb2.search_order("ark+sbox", 20, seed=2, start=stored,
                                    cost=lambda prog, order: 0 if tuple(order) == stored else -1)
    assert tuple(other) != stored

    def looped():
        return CT.thumb2(size.prefix, 128, "ffs", "cortex-m4", size.seed).pair_segment_cycles
    base = looped()
    with EO.using(EO.AES, "loop:ark+sbox", EO.stored("loop:ark+sbox")):
        with EO.using(EO.AES, "ark+sbox", other):
            assert looped() == base
        with EO.using(EO.AES, "loop:ark+sbox", other):
            assert looped() != base
    unrolled = aes_thumb2.compile_encrypt2(128, "ffs", "cortex-m4").cycles
    with EO.using(EO.AES, "loop:ark+sbox", other):
        assert aes_thumb2.compile_encrypt2(128, "ffs", "cortex-m4").cycles == unrolled


def test_the_fpu_kernels_read_their_own_orders(monkeypatch):
    """A spill = "fpu" configuration's kinds are 'fpu:KIND': its kernels (ECB loop and XOR-fused)
    read that order where the orders file has one, KIND's until then; the stack kernels never
    read it, and the --write-orders guard prices each kind on the kernels that read it."""
    m4f, m4 = presets.preset("aes128gcm-m4f-ffs"), presets.preset(PRESET)
    mine = aes_thumb2.sbox_kind(aes_thumb2.CIRCUIT)
    fpu = aes_thumb2.FPU_PREFIX + mine
    assert all(k.startswith(aes_thumb2.FPU_PREFIX) for k in EO.kinds(m4f)) and fpu in EO.kinds(m4f)
    assert EO.default_kind(m4f) == fpu and fpu not in EO.kinds(m4)
    assert EO.stored(fpu) == tuple(aes_thumb2.ORDERS.get(fpu, EO.stored(mine)))
    stored = EO.stored(fpu)
    other = tuple(range(len(stored)))               # program order: topological, far from the stored one
    assert other != stored

    def code(spill, xor=False):
        return [i.text() for i in aes_thumb2.compile_encrypt2(128, "ffs", "cortex-m4", m4f.seed, spill=spill,
                                                              xor=xor, fpu_homes=spill == "fpu").insns]
    base = {(s, x): code(s, x) for s in ("stack", "fpu") for x in (False, True)}
    with EO.using(EO.AES, fpu, stored):             # the fpu kernels' own order from now on
        with EO.using(EO.AES, fpu, other):
            assert code("fpu") != base["fpu", False] and code("fpu", True) != base["fpu", True]
            assert code("stack") == base["stack", False] and code("stack", True) == base["stack", True]
        with EO.using(EO.AES, mine, other):
            assert code("fpu") == base["fpu", False]
        guarded = [n for n, _, _ in EO.effect(EO.AES, mine, other, configs=[m4, m4f])]
        assert guarded == [PRESET, PRESET + " ctr_pairs"]
    assert [n for n, _, _ in EO.effect(EO.AES, fpu, other, configs=[m4, m4f])] == \
        ["aes128gcm-m4f-ffs", "aes128gcm-m4f-ffs ctr_pairs"]
    # without an order of their own, the fpu kernels read (and guard) the stack kernels' order
    monkeypatch.setattr(aes_thumb2, "ORDERS", {k: v for k, v in aes_thumb2.ORDERS.items() if k != fpu})
    assert EO.stored(fpu) == EO.stored(mine)
    assert [n for n, _, _ in EO.effect(EO.AES, mine, other, configs=[m4, m4f])] == \
        [PRESET, PRESET + " ctr_pairs", "aes128gcm-m4f-ffs", "aes128gcm-m4f-ffs ctr_pairs"]
