"""The vendoring matrix: a drop built as a user's tree would (gcc and clang, C and C++, -O0..-Oz,
with and without -ffreestanding, no libc), called by the caller/round-trip programs beside it.
  flagsets  the flag sets;  matrix  build, link, run and compare
May import emu.checks, emu.machines, emu.platforms.
"""
