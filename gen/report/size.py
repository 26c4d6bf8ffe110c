"""The size-speed trade of the Cortex-M AES-GCM drops (issue 19), from their manifests: a table
of docs/performance.md and a deterministic SVG plot, docs/size-speed.svg (no plotting library:
the text depends only on the manifests, so writing it twice changes nothing).

One point per constant-time ctmul ffs drop of a (cipher, core): each [schedule] objective
(speed, balanced, size) and each FACE depth of the speed drop.  x = .text of the whole drop
(``metrics.text_bytes``), y = GCM encrypt cycles per byte at 4 KiB and at 64 B.
"""
from __future__ import annotations

import math
from pathlib import Path

SVG_NAME = "size-speed.svg"
SIZES = ("4096", "64")
CORES = ("cortex-m4", "cortex-m3")
COLOURS = {("aes128", "cortex-m4"): "#1f77b4", ("aes256", "cortex-m4"): "#d62728",
           ("aes128", "cortex-m3"): "#2ca02c", ("aes256", "cortex-m3"): "#9467bd",
           ("aes192", "cortex-m4"): "#ff7f0e", ("aes192", "cortex-m3"): "#8c564b"}


def objective(m: dict) -> str:
    """A manifest's [schedule] objective ("speed" when the manifest predates the option)."""
    return m.get("options", {}).get("objective", "speed")


FPU_POINT = "speed, spills in FPU registers (M4F)"


def fpu_spill(m: dict) -> bool:
    """A manifest of a [schedule] spill = "fpu" drop (Cortex-M4F only)."""
    return m.get("options", {}).get("spill") == "fpu"


def _point(m: dict) -> str:
    opt = m["options"]
    if fpu_spill(m):
        return FPU_POINT
    return objective(m) if opt.get("face", "off") == "off" else f"speed, FACE {opt['face']}"


def points(manifests) -> dict:
    """(cipher, core) -> [manifest] of the trade, speed (face off) first, then spill = fpu,
    FACE r1, r2, balanced, size; only series with at least one non-speed objective."""
    series: dict = {}
    for m in manifests:
        opt = m.get("options", {})
        if (m.get("mode", "gcm") != "gcm" or m.get("target") not in CORES or not m.get("constant_time")
                or opt.get("ghash") != "ctmul" or opt.get("slicing") != "ffs"
                or (opt.get("face", "off") != "off" and objective(m) != "speed")):
            continue
        series.setdefault((m["cipher"], m["target"]), []).append(m)
    rank = {"speed": 0, FPU_POINT: 1, "speed, FACE r1": 2, "speed, FACE r2": 3, "balanced": 4, "size": 5}
    return {k: sorted(v, key=lambda m: (rank[_point(m)], m["name"])) for k, v in sorted(series.items())
            if any(objective(m) != "speed" for m in v)}


def _cpb(m: dict, size: str) -> float:
    return m["metrics"]["cycles_per_byte"][size]


def table(manifests, markdown) -> str | None:
    """Markdown rows: per series, every point with its .text, c/B at 4 KiB and 64 B, the
    ratio to the speed drop's cycles at 4 KiB, RAM (ctx + cache) and stack."""
    rows = []
    for (cipher, core), ms in points(manifests).items():
        base = next((m for m in ms if _point(m) == "speed"), None)
        for m in ms:
            met = m["metrics"]
            ratio = f"{met['cycles']['4096'] / base['metrics']['cycles']['4096']:.3f}×" if base else "—"
            rows.append([f"`{m['name']}`", cipher.upper().replace("AES", "AES-"), core, _point(m),
                         f"{met['text_bytes']:,}", f"{_cpb(m, '4096'):.2f}", f"{_cpb(m, '64'):.2f}", ratio,
                         f"{met['ctx_bytes'] + met.get('cache_bytes', 0):,}", f"{met['stack_bytes']:,}"])
    if not rows:
        return None
    head = ["drop", "cipher", "core", "objective", ".text B", "GCM c/B @4096", "GCM c/B @64",
            "cycles @4096 / speed", "RAM B (ctx + cache)", "stack B"]
    return markdown(head, rows, right_from=4)


# --------------------------------------------------------------------------- the plot

W, H, PAD_L, PAD_R, PAD_T, PAD_B, GAP = 900, 420, 60, 20, 40, 70, 60
MARKS = {"speed": "circle", FPU_POINT: "circle", "speed, FACE r1": "circle", "speed, FACE r2": "circle", "balanced": "square",
         "size": "diamond"}


def _ticks(lo: float, hi: float, n: int = 5) -> list:
    """Round tick values (1, 2 or 5 times a power of ten apart) inside [lo, hi]."""
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(k * mag for k in (1, 2, 5, 10) if k * mag >= raw)
    first = math.ceil(lo / step) * step
    return [first + k * step for k in range(int((hi - first) / step) + 1)]


def _mark(kind: str, x: float, y: float, colour: str) -> str:
    if kind == "square":
        return f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{colour}"/>'
    if kind == "diamond":
        return (f'<polygon points="{x:.1f},{y - 5:.1f} {x + 5:.1f},{y:.1f} {x:.1f},{y + 5:.1f} '
                f'{x - 5:.1f},{y:.1f}" fill="{colour}"/>')
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>'


def svg(manifests) -> str | None:
    """Two panels (GCM c/B at 4 KiB, at 64 B) against .text in KB; one colour per (cipher,
    core), one marker per objective (circle speed and FACE, square balanced, diamond size)."""
    series = points(manifests)
    if not series:
        return None
    all_m = [m for ms in series.values() for m in ms]
    kb = [m["metrics"]["text_bytes"] / 1024 for m in all_m]
    x_lo, x_hi = 0.0, max(kb) * 1.08
    pw = (W - PAD_L - PAD_R - GAP) / 2
    ph = H - PAD_T - PAD_B
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>']
    for p, size in enumerate(SIZES):
        ys = [_cpb(m, size) for m in all_m]
        y_lo, y_hi = min(ys) * 0.95, max(ys) * 1.05
        x0 = PAD_L + p * (pw + GAP)

        def sx(v):
            return x0 + (v - x_lo) / (x_hi - x_lo) * pw

        def sy(v):
            return PAD_T + ph - (v - y_lo) / (y_hi - y_lo) * ph
        out.append(f'<rect x="{x0}" y="{PAD_T}" width="{pw:.1f}" height="{ph}" fill="none" stroke="#888"/>')
        out.append(f'<text x="{x0 + pw / 2:.1f}" y="{PAD_T - 12}" text-anchor="middle" font-size="13">'
                   f'GCM encrypt c/B @{size} B against .text</text>')
        for t in _ticks(x_lo, x_hi):
            out.append(f'<text x="{sx(t):.1f}" y="{PAD_T + ph + 15}" text-anchor="middle">{t:g}</text>')
        out.append(f'<text x="{x0 + pw / 2:.1f}" y="{PAD_T + ph + 32}" text-anchor="middle">'
                   '.text of the whole drop (KB)</text>')
        for t in _ticks(y_lo, y_hi):
            out.append(f'<text x="{x0 - 6}" y="{sy(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
        for (cipher, core), ms in series.items():
            colour = COLOURS.get((cipher, core), "#444")
            pts = [(sx(m["metrics"]["text_bytes"] / 1024), sy(_cpb(m, size)), _point(m)) for m in ms]
            line = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in sorted(pts))
            out.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-opacity="0.4"/>')
            out += [_mark(MARKS[k], x, y, colour) for x, y, k in pts]
    legend_y = H - 22
    x = PAD_L
    for (cipher, core) in series:
        colour = COLOURS.get((cipher, core), "#444")
        out.append(f'<circle cx="{x}" cy="{legend_y - 4}" r="4" fill="{colour}"/>')
        out.append(f'<text x="{x + 8}" y="{legend_y}">{cipher.upper().replace("AES", "AES-")} {core}</text>')
        x += 150
    out.append(f'<text x="{PAD_L}" y="{H - 6}">● speed (and FACE r1, r2)   ■ balanced   ◆ size</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_svg(path: Path, manifests) -> bool:
    """Write the plot to ``path`` (nothing when there is no trade to plot); True when it changed."""
    text = svg(manifests)
    path = Path(path)
    if text is None or (path.exists() and path.read_text() == text):
        return False
    path.write_text(text)
    return True
