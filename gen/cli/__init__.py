"""The command line, `slicegen` (or `python -m gen`): list, build, validate, bench, explore.

  commands  the parser and every command but bench;  bench  `slicegen bench` (tables, plot)
May import everything: it is where the generator and the emulator meet the user.
"""
from gen.cli.commands import main

__all__ = ["main"]
