"""Writing a drop: out/<name>/<name>.h and manifest.json, atomically.

The drop is assembled in a temporary sibling folder and renamed into place, so a failed or
interrupted build never leaves a partial drop, and an old drop is replaced in one step.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path


def manifest_text(manifest: dict) -> str:
    return json.dumps(manifest, indent=2, sort_keys=False) + "\n"


def write_drop(out_dir: Path, name: str, header: str, manifest: dict) -> Path:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    final = out_dir / name
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=out_dir))
    try:
        (tmp / f"{name}.h").write_text(header)
        (tmp / "manifest.json").write_text(manifest_text(manifest))
        os.chmod(tmp, 0o755)
        if final.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{name}.old.", dir=out_dir))
            os.rename(final, old / name)
            os.rename(tmp, final)
            shutil.rmtree(old)
        else:
            os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def read_drop(drop_dir: Path) -> tuple[str, dict]:
    drop_dir = Path(drop_dir)
    manifest = json.loads((drop_dir / "manifest.json").read_text())
    header = (drop_dir / f"{manifest['name']}.h").read_text()
    return header, manifest
