"""slicegen explore --scheduler: candidates scored on a Dask cluster (here a 2-worker LocalCluster)
give the same log as the local pool, and a bad address is refused as bad input."""
import json

import pytest
from distributed import LocalCluster

from gen import presets
from gen.cli.commands import main
from gen.explore import pool as explore_pool
from gen.errors import ConfigError
from gen.explore.search import reproducible, search

PRESET = "aes128gcm-m4-ffs"


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c


def test_a_dask_cluster_gives_the_same_log_as_one_process(cluster, tmp_path):
    config = presets.preset(PRESET)
    local = search(config, 3, 7, jobs=1)
    remote = search(config, 3, 7, log=tmp_path / "dask.jsonl", scheduler=cluster.scheduler_address)
    assert [reproducible(line) for line in remote] == [reproducible(line) for line in local]
    workers = {line["worker"] for line in remote}
    assert workers <= set(cluster.scheduler_info["workers"]) and len(workers) == 2
    logged = [json.loads(t) for t in (tmp_path / "dask.jsonl").read_text().splitlines()]
    assert logged == remote


def test_explore_cli_on_a_cluster_writes_the_fastest_drop(cluster, tmp_path, capsys):
    assert main(["explore", PRESET, "--budget", "2", "--seed", "100", "--scheduler", cluster.scheduler_address,
                 "-o", str(tmp_path)]) == 0
    lines = [json.loads(t) for t in (tmp_path / f"explore-{PRESET}.jsonl").read_text().splitlines()]
    manifest = json.loads((tmp_path / PRESET / "manifest.json").read_text())
    assert lines[0]["candidate"] == 0 and manifest["options"]["seed"] == min(lines, key=lambda l: l["cycles"])["candidate"]
    assert all(line["worker"].startswith("tcp://") for line in lines)
    svg = (tmp_path / f"explore-{PRESET}.svg").read_text()
    assert svg.startswith("<svg") and svg.count("<circle") == len(lines)


def test_a_bad_scheduler_address_is_bad_input(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(explore_pool, "CONNECT_TIMEOUT", "2s")     # nothing listens: no need to wait 10 s
    assert main(["explore", PRESET, "--budget", "1", "--scheduler", "localhost", "-o", str(tmp_path)]) == 2
    assert "--scheduler localhost" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="no Dask scheduler answers"):
        search(presets.preset(PRESET), 1, 5, scheduler="tcp://127.0.0.1:9", log=tmp_path / "logs" / "x.jsonl")
    assert list(tmp_path.iterdir()) == []       # nothing half-written: not even an empty log
