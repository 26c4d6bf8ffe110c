"""explore's progress bar (terminal only) and its plot of best cycles over candidates."""
import io
import re

from gen.explore.view import Bar, best_so_far, svg


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_the_bar_draws_on_a_terminal_only_and_tracks_the_best():
    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        bar = Bar("x", stream)
        for i, c in enumerate([30, 20, 25, None], 1):
            bar(i, 4, {"cycles": c})
        bar.close()
        assert bar.best == 20
    assert pipe.getvalue() == ""
    text = tty.getvalue()
    assert text.endswith("\n") and text.count("\r") == 4
    assert "x [" + "#" * 30 + "] 4/4 best 20 cycles" in text


def test_the_plot_is_the_best_so_far_and_deterministic():
    cycles = [2524, 2530, 2518, 2522, 2512]
    assert best_so_far(cycles) == [2524, 2524, 2518, 2518, 2512]
    a, b = svg(cycles, "t <1>"), svg(list(cycles), "t <1>")
    assert a == b and a.startswith("<svg") and a.count("<circle") == 5 and "t &lt;1>" in a
    ys = [float(v) for v in re.findall(r"V([\d.]+)", a)]
    assert ys == sorted(ys) and len(set(ys)) == 3        # the step line only goes down (to fewer cycles)
    assert ">2530<" in a and ">2512<" in a
