"""The emulated memory map, shared by the linker script, the machine and the tools on top.

    FLASH  0x00000000  1 MiB   read + execute   code and constants (writes fault)
    STACK  0x20000000  64 KiB  read + write     painted before each call to measure depth
    WORK   0x20010000  3 MiB   read + write     .bss of the driver, contexts, outputs
    INPUT  0x20400000  4 MiB   read only        test cases and messages (writes fault)

RISC-V's small-data sections (.srodata, .sdata, .sbss) go with their big siblings.
Anything else is unmapped: an access there stops the run with an error naming the address.
"""
FLASH_BASE, FLASH_SIZE = 0x00000000, 0x00100000
STACK_BASE, STACK_SIZE = 0x20000000, 0x00010000
WORK_BASE, WORK_SIZE = 0x20010000, 0x00300000
INPUT_BASE, INPUT_SIZE = 0x20400000, 0x00400000
RETURN_ADDRESS = FLASH_BASE + FLASH_SIZE - 0x100   # LR of every call; reaching it ends the run
STACK_PAINT = 0xA5

LINKER_SCRIPT = f"""
ENTRY(sg_run_batch)
MEMORY {{
  FLASH (rx) : ORIGIN = {FLASH_BASE:#x}, LENGTH = {FLASH_SIZE - 0x1000:#x}
  WORK (rw)  : ORIGIN = {WORK_BASE:#x}, LENGTH = {WORK_SIZE:#x}
}}
SECTIONS {{
  .text : {{ *(.text*) }} > FLASH
  .rodata : {{ *(.rodata*) *(.srodata*) }} > FLASH
  .data : {{ *(.data*) *(.sdata*) }} > WORK
  .bss (NOLOAD) : {{ *(.bss*) *(.sbss*) *(COMMON) }} > WORK
  /DISCARD/ : {{ *(.ARM.exidx*) *(.comment) }}
}}
"""
