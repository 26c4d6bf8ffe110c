"""Shared test constants."""
from __future__ import annotations

from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent


def pytest_addoption(parser):
    parser.addoption("--vendor-all", action="store_true",
                     help="tests/test_vendoring.py on every default drop (make vendor-check), "
                          "not only the representative set")
