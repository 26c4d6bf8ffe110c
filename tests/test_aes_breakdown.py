"""The cycle breakdown of the AES kernel (ALU, loads, spill stores, reloads, ...) adds up to the
modelled cycles, and each part counts the instructions it says it does."""
import pytest

from gen.kernels.aes import thumb2 as aes_thumb2
from gen.kernels.aes.breakdown import PARTS, breakdown, part


@pytest.mark.parametrize("bits, core", [(128, "cortex-m4"), (256, "cortex-m3")])
def test_parts_add_up_to_the_kernel_cycles(bits, core):
    c = aes_thumb2.compile_encrypt2(bits, "ffs", core)
    parts = breakdown(c.insns, core)
    assert parts["total"] == sum(parts[p] for p in PARTS) == c.cycles
    kinds = [part(i, k, len(c.insns)) for k, i in enumerate(c.insns)]
    # every spill store (an STRD writes two) and reload is counted as one, each costs at least a cycle
    assert sum(1 if i.mnem == "str" else 2 for i, p in zip(c.insns, kinds) if p == "spill_stores") == c.spills
    assert kinds.count("reloads") == c.reloads + c.remats + c.base_reloads
    assert parts["spill_stores"] >= c.spills - c.strd and parts["reloads"] >= kinds.count("reloads")
    assert parts["alu"] >= kinds.count("alu") and kinds.count("stores") == 8
    assert kinds[0] == kinds[-1] == "frame"
