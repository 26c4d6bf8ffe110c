"""The emulated cores: ISA enforced per core, guarded memory, AAPCS calls, stack measurement."""
import time

import pytest

from emu.machines import layout
from emu.machines.machine import Machine, EmulationError
from emu.machines.toolchain import assemble

# sum of six arguments (four in registers, two on the stack), with a push to use some stack
SUM6 = """
sum6:
    push {r4, r5, lr}
    ldr r4, [sp, #12]
    ldr r5, [sp, #16]
    add r0, r0, r1
    add r0, r0, r2
    add r0, r0, r3
    add r0, r0, r4
    add r0, r0, r5
    pop {r4, r5, pc}
"""


def test_aapcs_call_with_stack_arguments_and_stack_depth(tmp_path):
    m = Machine("cortex-m4", assemble(SUM6, "cortex-m4", tmp_path))
    assert m.call(0, 1, 2, 3, 4, 5, 6) == 21
    assert m.stack_used == 12          # r4, r5, lr


def test_dsp_instruction_runs_on_m4_and_faults_on_m3(tmp_path):
    code = assemble("uadd8 r0, r0, r1\nbx lr", "cortex-m4", tmp_path)
    assert Machine("cortex-m4", code).call(0, 0x01020304, 0x01010101) == 0x02030405
    with pytest.raises(EmulationError):
        Machine("cortex-m3", code).call(0, 1, 2)


def test_write_to_flash_or_unmapped_memory_names_the_address(tmp_path):
    code = assemble("str r1, [r0]\nbx lr", "cortex-m4", tmp_path)
    m = Machine("cortex-m4", code)
    with pytest.raises(EmulationError, match="0x00000400"):
        m.call(0, 0x400, 7)
    with pytest.raises(EmulationError, match="0x30000000"):
        m.call(0, 0x30000000, 7)
    ro = m.alloc(16, bytes(16), readonly=True)
    with pytest.raises(EmulationError, match=f"{ro:#010x}"):
        m.call(0, ro, 7)
    rw = m.alloc(16)
    m.call(0, rw, 7)
    assert m.read(rw, 4) == (7).to_bytes(4, "little")


def test_runaway_code_is_stopped(tmp_path):
    code = assemble("loop: b loop", "cortex-m4", tmp_path)
    with pytest.raises(EmulationError, match="did not return"):
        Machine("cortex-m4", code).call(0, max_instructions=1000)


def test_misaligned_buffers_are_where_asked():
    m = Machine("cortex-m4", b"\x70\x47")   # bx lr
    a = m.alloc(5, offset=3)
    assert a % 8 == 3 and layout.WORK_BASE <= a < layout.WORK_BASE + layout.WORK_SIZE


def test_runaway_code_is_stopped_by_the_wall_clock_limit(tmp_path):
    code = assemble("movs r0, #7\nbx lr\nloop: b loop", "cortex-m4", tmp_path)   # returns at 0, spins at 4
    m = Machine("cortex-m4", code)
    t0 = time.monotonic()
    with pytest.raises(EmulationError, match=r"did not return .*stopped after 0.3 s"):
        m.call(4, timeout_s=0.3)
    assert 0.3 <= time.monotonic() - t0 < 5
    time.sleep(0.5)                       # a stale stop must not reach the next call
    assert m.call(0, timeout_s=0.3) == 7


def test_stack_depth_is_the_lowest_byte_written(tmp_path):
    """The depth counts down to the lowest byte the call changed, across page boundaries."""
    for depth in (1, 12, 4095, 4096, 4097, 9000):
        code = assemble(f"""
    movw r1, #{depth & 0xFFFF}
    sub r1, sp, r1
    movs r2, #0
    strb r2, [r1]
    movs r0, #0
    bx lr""", "cortex-m4", tmp_path)
        m = Machine("cortex-m4", code)
        m.call(0)
        assert m.stack_used == depth
