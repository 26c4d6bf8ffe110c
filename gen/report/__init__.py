"""Tables made from out/*/manifest.json: the README's short drop table and the docs/ pages'
generated sections (`python -m gen.report`, run by `make`); the size/speed plot.

  tables  the tables and the writer of README.md and docs/*.md between their markers
  armv8   the ARMv8-A tables;  size  the size/speed plot
Reads manifests and presets only: never imports kernels or emu.
"""
