"""Multi-key drops (issue 32) in the tables: one manifest, figures per key size.

A multi-key drop's manifest keeps SPEC §4's single figures (its first key size's) and every key
size's under `metrics.keybits`. The tables read each key size as a drop of its own cipher:
`views` turns one manifest into one view per key size (name `aesgcm-m4-ffs (AES-128)`, cipher
aes128, that size's figures; sizes of the one header), so every table has a row per key size.
"""
from __future__ import annotations

import copy


def is_multikey(m: dict) -> bool:
    return bool(m.get("options", {}).get("keybits"))


def views(m: dict) -> list[dict]:
    """One manifest per key size for a multi-key drop; [m] for any other drop."""
    if not is_multikey(m):
        return [m]
    out = []
    for bits in m["options"]["keybits"]:
        v = copy.deepcopy(m)
        v["name"] = f"{m['name']} (AES-{bits})"
        v["cipher"] = f"aes{bits}"
        v["multikey_of"] = m["name"]
        v["metrics"].update(copy.deepcopy(m["metrics"]["keybits"][str(bits)]))
        out.append(v)
    return out


def expand(manifests) -> list[dict]:
    return [v for m in manifests for v in views(m)]


def headline(m: dict, cpb) -> str:
    """`a / b / c`: a multi-key drop's figure per key size (cpb: metrics -> number)."""
    return " / ".join(f"{cpb(m['metrics']['keybits'][str(b)]):.2f}" for b in m["options"]["keybits"])


def title(m: dict) -> str:
    return "AES-GCM, " + "/".join(map(str, m["options"]["keybits"])) + "-bit keys (one header)"
