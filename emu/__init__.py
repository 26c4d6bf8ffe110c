"""slicegen's emulation side: everything that runs generated code, and nothing that generates it.

Rooms, by job (dependencies point down this list, never up):
  vendoring/  the vendoring matrix: every drop under every flag set of a user's tree
  checks/     what every drop must pass: NIST/known answers, differential, scenarios per mode
  ct/         the constant-time checker (trace recorder in C, classifiers, cached FACE sequences)
  bench/      the cycle model and the benchmarks (M-class cycles, llvm-mca for A-class, GHASH)
  machines/   Unicorn machines, memory layout, toolchain and firmware linking, the watchdog
  platforms/  per-ISA facts: compilers and flags, Unicorn arch/model, calling convention, classifiers
emu reads drops (header + manifest) and may import gen's config, errors, ciphers, cores and isa
(shared facts: timing tables, instruction classes); it never imports gen's kernels.
"""
