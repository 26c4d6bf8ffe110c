"""slicegen explore: tries schedule seeds, builds the fastest through every check."""
import json

import pytest

from gen import presets
from gen.cli import main
from gen.errors import ConfigError
from gen.explore import search, schedule_cycles


def test_search_ranks_seeds_by_modelled_cycles():
    config = presets.preset("aes128gcm-m4-ffs")
    ranked = search(config, 4, 10)
    assert sorted(seed for _, seed in ranked) == [10, 11, 12, 13]
    assert ranked == sorted(ranked)
    assert ranked[0][0] == schedule_cycles(config, ranked[0][1])


def test_explore_refuses_an_unscheduled_target_and_bad_budgets(capsys, tmp_path):
    assert main(["explore", "aes128gcm-portable", "--budget", "2", "-o", str(tmp_path)]) == 2
    assert "explore needs a scheduled target" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="budget"):
        search(presets.preset("aes128gcm-m4-ffs"), 0, 0)


def test_explore_writes_the_fastest_schedule_as_a_validated_drop(tmp_path, capsys):
    assert main(["explore", "aes128gcm-m3-ffs", "--budget", "3", "--seed", "5", "-o", str(tmp_path)]) == 0
    config = presets.preset("aes128gcm-m3-ffs")
    best_cycles, best_seed = search(config, 3, 5)[0]
    manifest = json.loads((tmp_path / "aes128gcm-m3-ffs" / "manifest.json").read_text())
    assert manifest["options"]["seed"] == best_seed
    assert manifest["validation"]["nist_vectors"]["failed"] == 0
    assert manifest["validation"]["constant_time_check"] == "verified"
    header = (tmp_path / "aes128gcm-m3-ffs" / "aes128gcm-m3-ffs.h").read_text()
    assert "command: slicegen explore aes128gcm-m3-ffs --budget 3 --seed 5" in header
    assert f"best seed {best_seed}: {best_cycles} cycles" in capsys.readouterr().out
