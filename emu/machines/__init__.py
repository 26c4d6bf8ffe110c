"""Running code: Unicorn machines (memory map, calls, the watchdog), the toolchain that compiles
a drop and links it into firmware with the batch driver (driver.c), and the memory layout.
Imports only emu.platforms and gen.errors.
"""
