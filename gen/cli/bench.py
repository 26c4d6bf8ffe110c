"""`slicegen bench DROP_DIR… [--plot FILE.png]`: cycle table per message size, sizes, RAM, stack.

The figures come from emu/bench/drop.py (the cycle model of emu/bench/cycles.py in Unicorn); they are
the same numbers the build writes into each manifest's `metrics`. Progress lines go to stderr
only when stderr is a terminal. With `--plot`, cycles/byte against message size (log x axis)
for every given drop is drawn into one PNG (matplotlib, Agg backend).
"""
from __future__ import annotations

import sys
from pathlib import Path

from gen.errors import ConfigError


def _progress(msg: str) -> None:
    if sys.stderr.isatty():
        print(f"  {msg}", file=sys.stderr, flush=True)


def format_table(manifest: dict, metrics: dict) -> str:
    """The text block printed for one drop."""
    lines = [f"{manifest['name']}  ({manifest['cipher']} {manifest.get('mode', 'gcm')} "
             f"{manifest['target']}, measured on {metrics['core']}, {metrics['compiler']})",
             f"  model: {metrics['model']}"]
    if metrics.get("cycles"):                 # ECB-only drops have no per-message figures
        lines.append(f"  {'message bytes':>13}  {'cycles':>10}  {'cycles/byte':>11}  {'decrypt c/B':>11}")
    dec = metrics.get("decrypt_cycles_per_byte") or {}
    for n, c in (metrics.get("cycles") or {}).items():
        d = f"{dec[n]:>11.2f}" if n in dec else f"{'':>11}"
        lines.append(f"  {n:>13}  {c:>10}  {metrics['cycles_per_byte'][n]:>11.2f}  {d}".rstrip())
    ecb = ", ".join(f"{v:.2f} ({k} blocks)" for k, v in metrics["ecb_cycles_per_block"].items())
    ghash = (f"; ghash {metrics['ghash_cycles_per_byte']:.2f} cycles/byte"
             if "ghash_cycles_per_byte" in metrics else "")
    lines.append(f"  key setup {metrics['key_setup_cycles']} cycles; ecb_encrypt {ecb} cycles/block{ghash}")
    lines.append(f"  code: .text {metrics['text_bytes']} B, .rodata {metrics['rodata_bytes']} B; "
                 f"RAM: ctx {metrics['ctx_bytes']} B, tables {metrics['table_bytes']} B, "
                 f"cache {metrics['cache_bytes']} B; stack {metrics['stack_bytes']} B")
    return "\n".join(lines)


def plot(results: list[tuple[str, dict]], path: Path) -> None:
    """cycles/byte against message size for each (name, metrics), log x axis, into a PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = [(n, m) for n, m in results if m.get("cycles_per_byte")]   # ECB-only drops have no curve
    fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
    for name, metrics in results:
        sizes = [int(n) for n in metrics["cycles_per_byte"]]
        cpb = [metrics["cycles_per_byte"][str(n)] for n in sizes]
        ax.plot(sizes, cpb, marker="o", label=name)
    ax.set_xscale("log", base=2)
    all_sizes = sorted({int(n) for _, m in results for n in m["cycles_per_byte"]})
    ax.set_xticks(all_sizes)
    ax.set_xticklabels([str(n) for n in all_sizes])
    ax.set_xlabel("message bytes (GCM encrypt, 96-bit IV, no AAD; CTR for block-cipher drops)")
    ax.set_ylabel("cycles / byte")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="both", alpha=0.3)
    cores = sorted({m["core"] for _, m in results})
    ax.set_title(f"slicegen cycle model ({', '.join(cores)}, zero wait states)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, format="png", metadata={"Software": None})
    plt.close(fig)


def cmd_bench(args) -> int:
    from gen.drop.write import read_drop
    import tempfile
    from emu.checks import scenarios
    from emu.bench.drop import BenchError
    from gen import ciphers
    from emu.machines.machine import EmulationError
    from emu.machines.toolchain import BuildError

    drops = [Path(d) for d in args.drops]
    if not drops:
        raise ConfigError("bench needs at least one DROP_DIR (e.g. out/aes128gcm-portable)")
    loaded = []
    for d in drops:                                   # all input is checked before any work
        if not (d / "manifest.json").is_file():
            raise ConfigError(f"{d}: not a drop (no manifest.json)")
        try:
            header, manifest = read_drop(d)
        except (OSError, ValueError, KeyError) as exc:
            raise ConfigError(f"{d}: unreadable drop ({exc})") from None
        ciphers.get(manifest.get("cipher"))          # ConfigError naming the ciphers
        try:
            scenarios.for_mode(manifest.get("mode", "gcm"))
        except KeyError:
            raise ConfigError(f"{d}: mode {manifest.get('mode')!r} has no benchmark; "
                              f"modes: {', '.join(scenarios.SCENARIOS)}") from None
        loaded.append((d, header, manifest))
    plot_path = Path(args.plot) if getattr(args, "plot", None) else None
    if plot_path is not None:
        if plot_path.suffix.lower() != ".png":
            raise ConfigError(f"--plot {plot_path}: the plot is a PNG; give a FILE.png")
        if not plot_path.parent.is_dir():
            raise ConfigError(f"--plot {plot_path}: folder {plot_path.parent} does not exist")

    results, status = [], 0
    for d, header, manifest in loaded:
        _progress(f"{manifest['name']}: benchmarking")
        try:
            with tempfile.TemporaryDirectory(prefix="slicegen-bench-") as tmp:
                hpath = Path(tmp) / f"{manifest['name']}.h"
                hpath.write_text(header)
                drop = scenarios.drop_from_manifest(hpath, manifest)
                scenario = scenarios.for_mode(drop.mode)
                metrics = scenario.bench(drop, Path(tmp), scenario.firmware(drop, Path(tmp)),
                                         cache_bytes=manifest.get("metrics", {}).get("cache_bytes", 0))
        except (BenchError, BuildError, EmulationError) as exc:
            print(f"slicegen: {d}: FAILED: {exc}", file=sys.stderr)
            status = 1
            continue
        if results:
            print()
        print(format_table(manifest, metrics))
        old = manifest.get("metrics", {}).get("cycles")
        if old and any(str(k) in metrics.get("cycles", {}) and metrics["cycles"][str(k)] != v for k, v in old.items()):
            print(f"slicegen: {d}: note: the manifest's cycle figures differ from this run "
                  "(drop built with another model or compiler)", file=sys.stderr)
        results.append((manifest["name"], metrics))
    if plot_path is not None and results:
        plot(results, plot_path)
        _progress(f"plot written to {plot_path}")
    return status
