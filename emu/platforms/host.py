"""The host: `portable` drops are also compiled with the host's gcc into a shared library and
run through ctypes (a second place, beside the emulated Cortex-M4). Nothing is emulated and
nothing is timed here."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Host:
    name: str = "host"
    cc: str = "gcc"
    apt_packages: tuple[str, ...] = ("gcc",)
    flags: tuple[str, ...] = ("-shared", "-fPIC")


HOST = Host()
