"""What the integration generators share (gen/integrations/mbedtls.py, psa_driver.py): a drop
config from a preset name or a TOML file, the drops' headers as `slicegen build` writes them,
writing a set of files only once every one of them has rendered, and the command line around
that (configs, -o DIR, exit status 2 with one line on a bad config).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional

from gen.config import Config, load_toml
from gen.drop import render as drop_render
from gen.errors import ConfigError
from gen.presets import preset


def load_config(arg: str) -> Config:
    """A preset name, or a path ending in .toml."""
    return load_toml(arg) if arg.endswith(".toml") else preset(arg)


def drop_headers(configs: List[Config]) -> Dict[str, str]:
    """{NAME.h: text} of each drop: the same bytes `slicegen build NAME` writes."""
    return {f"{c.name}.h": drop_render.header(c, f"slicegen build {c.name}")[0] for c in configs}


def write_files(out: Path, files: Dict[str, str]) -> List[Path]:
    """Write rendered files to out (created if missing); every text is rendered before the call,
    so a refused config leaves nothing half-written."""
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (out / name).write_text(text)
    return [out / n for n in files]


def cli(prog: str, doc: str, run: Callable[[List[Config], Path, argparse.Namespace], object],
        extra: Optional[Callable[[argparse.ArgumentParser], None]] = None,
        argv: Optional[List[str]] = None) -> int:
    """`prog PRESET|FILE.toml... -o DIR [extra options]`: run(configs, out, args); a ConfigError
    prints `error: ...` and gives exit status 2."""
    ap = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    ap.add_argument("configs", nargs="+", metavar="PRESET|FILE.toml")
    ap.add_argument("-o", "--out", required=True, type=Path)
    if extra:
        extra(ap)
    a = ap.parse_args(argv)
    try:
        run([load_config(x) for x in a.configs], a.out, a)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0
