"""What `slicegen explore` shows: a progress bar on a terminal (nothing otherwise, so logs and
pipes stay clean) and a plot of the best modelled cycles over the candidates tried, as an SVG
written by hand (deterministic text: the same log gives the same file byte for byte)."""
from __future__ import annotations

import sys

WIDTH = 30


class Bar:
    """``bar(done, total, line)`` redraws one stderr line, ``[#####.....] 5/16 best 2524 cycles``,
    when stderr is a terminal; ``close()`` ends the line."""

    def __init__(self, label: str, stream=None):
        self.label, self.stream, self.best, self.drawn = label, stream or sys.stderr, None, False

    def __call__(self, done: int, total: int, line: dict) -> None:
        if line.get("cycles") is not None and (self.best is None or line["cycles"] < self.best):
            self.best = line["cycles"]
        if not self.stream.isatty():
            return
        fill = WIDTH * done // max(total, 1)
        self.stream.write(f"\r{self.label} [{'#' * fill}{'.' * (WIDTH - fill)}] {done}/{total}"
                          f" best {self.best} cycles")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def best_so_far(cycles: list[int]) -> list[int]:
    out, low = [], None
    for c in cycles:
        low = c if low is None else min(low, c)
        out.append(low)
    return out


def svg(cycles: list[int], title: str) -> str:
    """Best cycles after each candidate (in log order, the baseline first) as a step line, with
    every candidate as a dot."""
    if not cycles:
        raise ValueError("no candidates to plot")
    w, h, left, right, top, bottom = 640, 360, 70, 20, 40, 50
    lo, hi = min(cycles), max(cycles)
    if hi == lo:
        hi = lo + 1
    n = len(cycles)

    def x(i: float) -> float:
        return left + (w - left - right) * (i / max(n - 1, 1))

    def y(c: float) -> float:
        return top + (h - top - bottom) * (1 - (c - lo) / (hi - lo))

    steps = best_so_far(cycles)
    path = [f"M{x(0):.1f},{y(steps[0]):.1f}"]
    for i in range(1, n):
        path.append(f"H{x(i):.1f}V{y(steps[i]):.1f}")
    dots = "".join(f'<circle cx="{x(i):.1f}" cy="{y(c):.1f}" r="2.5" fill="#999"/>' for i, c in enumerate(cycles))
    esc = title.replace("&", "&amp;").replace("<", "&lt;")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">'
            f'<rect width="{w}" height="{h}" fill="white"/>'
            f'<text x="{w / 2}" y="22" text-anchor="middle" font-size="14">{esc}</text>'
            f'<line x1="{left}" y1="{h - bottom}" x2="{w - right}" y2="{h - bottom}" stroke="black"/>'
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{h - bottom}" stroke="black"/>'
            f'<text x="{left - 6}" y="{y(hi) + 4:.1f}" text-anchor="end">{hi}</text>'
            f'<text x="{left - 6}" y="{y(lo) + 4:.1f}" text-anchor="end">{lo}</text>'
            f'<text x="{left}" y="{h - bottom + 18}" text-anchor="middle">1</text>'
            f'<text x="{w - right}" y="{h - bottom + 18}" text-anchor="middle">{n}</text>'
            f'<text x="{(left + w - right) / 2}" y="{h - 12}" text-anchor="middle">candidates tried</text>'
            f'<text x="16" y="{(top + h - bottom) / 2}" text-anchor="middle" '
            f'transform="rotate(-90 16 {(top + h - bottom) / 2})">modelled cycles</text>'
            f'{dots}<path d="{"".join(path)}" fill="none" stroke="#c00" stroke-width="2"/></svg>\n')
