"""slicegen's generator: config -> kernels -> scheduled assembly -> a header-only drop.

Rooms (each package's own top comment says what it owns and what it may import):
  config, presets, errors, version   one validated build config; the named presets
  ciphers/    per-family data and reference models (sizes, rounds, key schedules, known answers)
  circuits/   S-box circuits and linear layers as data, each proven against its cipher
  isa/        instruction models (operands, reads/writes, printing); cores/ a core's timing table
  ir, sched/  the kernel IR; list scheduling and register allocation over an ISA and a core
  kernels/    one package per family (aes, face, ghash, rijndael256, speedy, armv8) + shared pieces
  modes/, targets/, backends/   the C glue per mode, the kernel set per target, the C backend
  drop/       header text from templates, and writing a drop atomically
  build       the pipeline: generate, then run emu's checks and benchmark, then write
  explore/    the schedule explorer (search spaces, pool/Dask, views)
  report/     the README and docs/ tables made from out/*/manifest.json
  cli/        `slicegen` (python -m gen)
Only build, explore and cli import emu; nothing else here does.
"""
