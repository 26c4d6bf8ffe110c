"""Shared fixtures: the default drops built once per session into a temporary folder."""
from __future__ import annotations

from pathlib import Path

import pytest

from gen import presets
from gen.build import build

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def built_defaults(tmp_path_factory):
    """Every default preset built (generated, compiled, validated) into a fresh folder."""
    out = tmp_path_factory.mktemp("drops")
    return {name: build(presets.preset(name), f"slicegen build {name}", out) for name in presets.DEFAULTS}
