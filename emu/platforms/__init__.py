"""The platforms drops run on (emu/platforms/base.py says what one is). Registering a platform
is one line in PLATFORMS; ``for_target`` says which one emulates a config target."""
from __future__ import annotations

from emu.platforms.aarch64 import AARCH64
from emu.platforms.armv7m import ARMV7M
from emu.platforms.base import Platform
from emu.platforms.host import HOST
from emu.platforms.rv32imac import RV32IMAC

PLATFORMS: dict[str, Platform] = {p.name: p for p in (ARMV7M, AARCH64, RV32IMAC)}


def for_target(target: str) -> Platform:
    for p in PLATFORMS.values():
        if target in p.targets:
            return p
    raise ValueError(f"no platform runs target {target!r}; platforms: "
                     + "; ".join(f"{p.name} ({', '.join(p.targets)})" for p in PLATFORMS.values()))


__all__ = ["ARMV7M", "HOST", "PLATFORMS", "Platform", "for_target"]
