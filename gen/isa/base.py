"""The ISA interface of the generator's middle: what the scheduler, the register allocator, the
pairing passes and the function builder may know of an instruction set.

As SLOTHY separates ``arch_v7m`` (the ISA) from ``cortex_m4`` (a core's tables), an ISA here is
one ``Isa`` value (``gen/isa/thumb2.py``: ``THUMB2``) and timing tables live in ``gen/cores/``;
a new ISA is a new file that builds one ``Isa``.  Instructions are frozen dataclasses with
``reads``/``writes``/``timing``/``text``; ``isa.access(insn)`` is one of ``ACCESS``.  The instruction
contract and the access kinds: docs/internals/scheduler.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Protocol

from gen.cores import timing

ACCESS = ("none", "load", "store", "store_pair", "barrier")


class Instruction(Protocol):
    """What the passes read of one instruction (any ISA)."""
    mnem: str                  # base mnemonic (informational, printing)
    dst: Optional[str]         # written register
    dst2: Optional[str]        # second written register (long multiplies)
    srcs: tuple                # read registers, in operand order (data operands)
    base: Optional[str]        # address register of a memory operand
    offset: Optional[int]      # its byte offset (None while a stack slot is symbolic)
    slot: Optional[int]        # symbolic stack slot (>= 0: spill slots; < 0: the frame's homes)
    note: str                  # a comment printed after the instruction

    def reads(self) -> frozenset: ...          # every register read (operands, base, tied dst)
    def writes(self) -> frozenset: ...         # every register written
    def timing(self) -> timing.Insn: ...       # the record gen/cores/timing.py costs
    def text(self) -> str: ...                 # one line of assembly


@dataclass(frozen=True)
class Isa:
    """One instruction set, as the passes see it (see the module docstring)."""
    name: str
    # ---- registers and the calling convention
    allocatable: tuple          # registers that may hold values (allocator, renaming)
    sp: str                     # the stack pointer
    frame_regs: frozenset       # registers that never hold values (sp, pc): never renamed
    arg_regs: tuple             # the first pointer arguments, in order
    stack_arg_regs: tuple       # scratch registers a prologue loads stack arguments into
    callee_saved: tuple         # registers a function must preserve
    link: str                   # the return address register
    word_bytes: int             # bytes of one IR word in memory
    stack_align: int            # the stack pointer's alignment at calls
    # ---- immediates and lowering of the IR (gen/ir.py)
    is_imm: Callable[[int], bool]                 # can an ALU op take this immediate operand?
    lower: Callable                               # (op, reg(vreg), base(mem)) -> Instruction
    expand_constants: Callable[[list], list]      # a lowered ``movc`` placeholder -> its instructions
    # ---- instruction constructors the passes need
    load: Callable              # (dst, base, offset, note="") -> one-word load
    load_slot: Callable         # (dst, slot, note="") -> load from a symbolic stack slot
    store_slot: Callable        # (src, slot, note="") -> store to a symbolic stack slot
    store_pair: Optional[Callable]   # (src1, src2, slot, note="") -> two adjacent stack words, or None
    resolve: Callable           # (insn, slot_offset(slot) -> bytes) -> insn with its offset set
    access: Callable[[object], str]  # insn -> one of ACCESS
    # ---- function frames (gen/kernels/thumb2_function.py)
    save: Callable              # (regs) -> instructions leaving regs[i] at [sp + i * word_bytes]
    restore_and_return: Callable  # (regs) -> instructions reloading the saved regs, then returning
    add_sp: Callable            # (bytes) -> one instruction: sp += bytes (negative: allocate)
    check_core: Callable        # (insns, core) -> None, or ValueError if one is not on the core
    function_lines: Callable    # (symbol, body lines) -> assembly lines of a global function
    c_asm: Callable             # (prototype, lines, comment="") -> C text with an __asm__ block
