"""The second proven AES S-box circuit (Boyar-Peralta-Calik, 113 gates) and `slicegen explore
--space circuit`, which picks the encrypt2 kernel's circuit by modelled cycles after a run in
Unicorn, never a slower one than the stored choice."""
import json

import pytest

from gen import presets

from gen.explore import search as explore

from gen.explore import circuit as EC

from gen.explore import orders as EO
from gen.circuits import aes_sbox
from gen.cli.commands import main
from gen.errors import ConfigError
from gen.kernels.aes import thumb2 as aes_thumb2


def load(path):
    space = {}
    exec(path.read_text(), space)
    return space


def test_bpc113_is_proven_on_every_byte_and_shares_the_top_and_middle_of_bp115(monkeypatch):
    assert aes_sbox.check("bpc113") == [] and aes_sbox.check("bp115") == []
    assert aes_sbox.gate_counts("bpc113") == {"xor": 77, "xnor": 4, "and": 32}
    k = [g[0] for g in aes_sbox.GATES].index("t46")
    assert k == 85 and aes_sbox.GATES_BPC113[:k] == aes_sbox.GATES[:k]
    assert len(aes_sbox.GATES_BPC113) == 113 and set(aes_sbox.CIRCUITS) == set(aes_sbox.SOURCES)
    # every gate's result is read, or is an output; no name is written twice
    names = [g[0] for g in aes_sbox.GATES_BPC113]
    assert len(set(names)) == len(names)
    read = {x for g in aes_sbox.GATES_BPC113 for x in g[2:]}
    assert all(n in read or n in aes_sbox.OUTPUTS for n in names)
    # the check catches one wrong gate of the bottom layer
    bad = aes_sbox.GATES_BPC113[:-1] + (("s5", "xor", "u21", "u16"),)
    monkeypatch.setitem(aes_sbox.CIRCUITS, "bpc113", bad)
    assert len(aes_sbox.check("bpc113")) > 0
    with pytest.raises(ValueError, match="unknown AES S-box circuit"):
        aes_sbox.circuit_gates("bp999")


@pytest.mark.parametrize("preset", ["aes128gcm-m4-ffs", "aes256gcm-m3-sfs", "aes128gcm-m3-balanced"])
def test_the_kernel_with_either_circuit_runs_like_its_ir_on_its_core(preset):
    config = presets.preset(preset)
    bits = 8 * config.spec.key_bytes
    ops = {}
    for circuit in aes_sbox.CIRCUITS:
        with EC.using(circuit):
            c = EO.AES.compile(config, aes_thumb2.ORDERS)
            assert c.circuit == circuit
            assert EO.runs_like_the_ir(config, c)
            ops[circuit] = c.n_ops
    nr = {128: 10, 192: 12, 256: 14}[bits]
    assert ops["bp115"] - ops["bpc113"] == 2 * nr          # two XORs fewer per S-box
    # the kernel of one circuit is not the other's program: Unicorn tells them apart
    with EC.using("bpc113"):
        c113 = EO.AES.compile(config, aes_thumb2.ORDERS)
    assert EO.runs_like_the_ir(config, c113)


def test_circuit_explore_builds_the_winner_and_records_it_only_when_it_is_faster(tmp_path, capsys):
    config = presets.preset("aes128gcm-m4-ffs")
    orders = tmp_path / "thumb2_orders.py"
    budget = len(aes_sbox.CIRCUITS) - 1                           # every circuit beside the stored one
    lines, result = EC.explore(config, "slicegen explore test --space circuit", budget, tmp_path, write=orders)
    assert [line["candidate"] for line in lines] == EC.candidates() == [aes_thumb2.CIRCUIT] + [
        c for c in aes_sbox.CIRCUITS if c != aes_thumb2.CIRCUIT]
    assert all(line["valid"] for line in lines)
    winner = EC.best(lines)
    assert winner["cycles"] == min(line["cycles"] for line in lines) <= lines[0]["cycles"]
    manifest = json.loads((result.path / "manifest.json").read_text())
    assert manifest["metrics"]["kernel_cycles"]["aes_encrypt_pairs_per_pair"] == winner["cycles"]
    assert manifest["validation"]["nist_vectors"]["failed"] == 0
    assert manifest["validation"]["constant_time_check"] == "verified"
    header = next(result.path.glob("*.h")).read_text()
    assert f"{len(aes_sbox.CIRCUITS[winner['candidate']])} gates" in header
    assert aes_thumb2.CIRCUIT == lines[0]["candidate"]            # the build's choice was not left behind
    out = capsys.readouterr().out
    if winner is lines[0]:
        assert not orders.exists() and "the stored choice" in out
    else:
        assert load(orders)["CIRCUIT"] == winner["candidate"]
        assert load(orders)["ORDERS"] == aes_thumb2.ORDERS
    logged = [json.loads(t) for t in (tmp_path / "explore-aes128gcm-m4-ffs-circuit.jsonl").read_text().splitlines()]
    assert [explore.reproducible(line) for line in logged] == [explore.reproducible(line) for line in lines]


def test_a_faster_circuit_that_computes_something_else_cannot_win():
    lines = [{"candidate": aes_thumb2.CIRCUIT, "cycles": 10, "valid": True},
             {"candidate": "other", "cycles": 5, "valid": False}]
    assert EC.best(lines)["candidate"] == aes_thumb2.CIRCUIT
    lines[1]["valid"] = True
    assert EC.best(lines)["candidate"] == "other"
    lines[1]["cycles"] = 10                                       # a tie keeps the stored choice
    assert EC.best(lines)["candidate"] == aes_thumb2.CIRCUIT


def test_the_orders_file_keeps_its_circuit_when_an_order_is_written(tmp_path):
    path = EO.write_orders(EO.AES, None, None, "cmd", "what", tmp_path / "o.py", circuit="bpc113")
    assert load(path)["CIRCUIT"] == "bpc113"
    assert load(path)["ORDERS"] == aes_thumb2.ORDERS
    stored = EO.orders_text(EO.AES, {k: aes_thumb2.ORDERS[k] for k in EO.AES.own()}, EO.history(EO.AES.path))
    assert stored == EO.AES.path.read_text()                   # the shipped file is what the writer writes
    assert load(EO.AES.path)["CIRCUIT"] == aes_thumb2.CIRCUIT


@pytest.mark.parametrize("preset,why", [("aes128gcm-m4-size", "looped size kernel"),
                                        ("aes128gcm-m4-ffs-face-r1", "FACE kernels"),
                                        ("rijndael256ecb-m4", "not an AES-GCM Thumb-2"),
                                        ("aes128gcm-portable", "not an AES-GCM Thumb-2")])
def test_circuit_space_refuses_kernels_that_keep_the_reference_circuit(preset, why, tmp_path, capsys):
    with pytest.raises(ConfigError, match=why):
        EC.check(presets.preset(preset))
    assert main(["explore", preset, "--space", "circuit", "-o", str(tmp_path)]) != 0
    assert why in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_circuit_space_refuses_orders_options(tmp_path, capsys):
    assert main(["explore", "aes128gcm-m4-ffs", "--space", "circuit", "--kind", "ark+sbox", "-o", str(tmp_path)]) != 0
    assert "--kind, --cpsat and --from-op belong to --space orders" in capsys.readouterr().err


def _topological(prog, order):
    from gen.sched import listsched
    m = len(prog.ops) - 16
    preds = listsched.dependences(prog)
    where = {g: k for k, g in enumerate(order)}
    return sorted(order) == list(range(m)) and all(
        where[p - 8] < where[g] for g in range(m) for p in preds[8 + g] if 8 <= p < 8 + m)


def test_transplant_keeps_the_shared_gates_in_place_and_is_a_topological_order():
    ref = aes_thumb2.ORDERS["ark+sbox"]
    got = aes_thumb2.transplant(ref, "bpc113")
    prog = aes_thumb2.segment_program("ark+sbox@bpc113")
    assert _topological(prog, got)
    shared = 16 + 85                                   # the AddRoundKey ops, the top layer and the middle
    assert [g for g in got if g < shared] == [g for g in ref if g < shared]
    assert aes_thumb2.transplant(ref, "bpc113") == got   # deterministic
    assert aes_thumb2.transplant(ref, "bp115") == tuple(ref)


def test_another_circuits_order_is_searched_with_that_circuit_and_from_op_pins_the_rest():
    config = presets.preset("aes128gcm-m4-ffs")
    kind = aes_thumb2.sbox_kind("bpc113")
    assert kind == "ark+sbox@bpc113" and kind in EO.kinds(config)
    assert EO.default_kind(config) == aes_thumb2.sbox_kind(aes_thumb2.CIRCUIT)
    runs = [EO.search(config, kind, 6, "segment", 1, 2, first=80) for _ in range(2)]
    assert [line["order"] for line in runs[0]] == [line["order"] for line in runs[1]]     # reproducible
    lines = runs[0]
    assert all(line["valid"] for line in lines) and lines[0]["search"].endswith("from-op=80")
    assert lines[0]["cycles"] == EC.score(config, "bpc113")["cycles"]      # scored with that circuit
    prog = aes_thumb2.segment_program(kind)
    for line in lines:
        assert _topological(prog, line["order"])
        assert [g for g in line["order"] if g < 80] == [g for g in lines[0]["order"] if g < 80]
    with pytest.raises(ConfigError, match="--from-op 129"):
        EO.search(config, kind, 6, "segment", 1, 2, first=129)


def test_from_op_belongs_to_the_orders_space(tmp_path, capsys):
    assert main(["explore", "aes128gcm-m4-ffs", "--from-op", "3", "-o", str(tmp_path)]) != 0
    assert "--from-op belong to --space orders" in capsys.readouterr().err


def test_the_face_rounds_take_the_plain_kernels_circuit_and_the_guard_sees_them():
    from gen.kernels.face import thumb2 as face_thumb2
    n_ops = {}
    for circuit in aes_sbox.CIRCUITS:
        with EC.using(circuit):
            prog, seg, rank = face_thumb2.face_encrypt2_segments(128, "ffs", "r2", cached=True)
        assert seg is not None and rank is not None      # the tail is the plain kernel's, op for op
        n_ops[circuit] = len(prog.ops)
    assert n_ops["bp115"] - n_ops["bpc113"] == 2 * (10 - 2)   # rounds 3..10
    rows = EC.effect("bp115" if aes_thumb2.CIRCUIT != "bp115" else "bpc113",
                     [presets.preset("aes128gcm-m4-ffs-face-r2")])
    assert {name for name, _, _ in rows} == {"aes128gcm-m4-ffs-face-r2 face_encrypt2",
                                            "aes128gcm-m4-ffs-face-r2 face_encrypt2c"}
    assert all(old != new for _, old, new in rows)
