"""Constant time of a block-cipher drop (ecb, ctr), by the trace equivalence of emu/ct/checker.py:
init and wipe across keys; ecb_encrypt of 1..3 blocks (and 33 for a drop with a 32-block kernel)
across keys and plaintexts; in ctr mode
the one-shot call and the stream in pieces, across keys and messages (the IV and the lengths
are public and stay the same from run to run)."""
from __future__ import annotations

from emu.ct.checker import CtReport, Session, _Drop, _secret, run_checks
from emu.machines.toolchain import Firmware


#: the multi-block kernel symbols whose drops get the long checks below (the RV32 SPEEDY drops'
#: 32-block bitsliced kernel, gen/kernels/speedy/rv32_bs32_asm.py), and the block counts they add
GROUP_KERNELS, GROUP_BLOCKS = ("encrypt32_rv32",), 33


def _checks(d: _Drop, block: int, mode: str, group: bool = False):
    """``group``: the drop has a multi-block kernel (GROUP_KERNELS): ECB over GROUP_BLOCKS blocks
    and counter mode over as many blocks and 5 bytes are checked too (its group, then the rest)."""
    checks = []

    def init_run(s: Session, i: int):
        c, kp = d.rw(d.ctx_bytes), d.ro(d.key(i))
        s.tcall("init", c, kp, d.kb)
        s.tcall("wipe", c)
    checks.append(("init+wipe", "key", init_run))

    for nb in (1, 2, 3) + ((GROUP_BLOCKS,) if group else ()):
        name = f"ecb_encrypt {nb} blocks"

        def ecb_run(s: Session, i: int, nb=nb, name=name):
            data = _secret(d.rng(name, i), i, block * nb)
            c = d.ctx(d.key(i))
            inp, out = d.ro(data), d.rw(block * nb)
            s.tcall("ecb_encrypt", c, out, inp, nb)
        checks.append((name, "key, input blocks", ecb_run))

    if mode == "ctr":
        iv = bytes(range(block - 4)) + b"\xff\xff\xff\xfe"      # public; wraps inside the message
        for n in (0, 1, block, 3 * block + 5) + ((GROUP_BLOCKS * block + 5,) if group else ()):
            name = f"ctr len{n}"

            def ctr_run(s: Session, i: int, n=n, name=name):
                msg = _secret(d.rng(name, i), i, n)
                c = d.ctx(d.key(i))
                ivp, inp, out = d.ro(iv), d.ro(msg), d.rw(n)
                s.tcall("ctr", c, ivp, block, inp, n, out)
            checks.append((name, "key, message", ctr_run))
        name = f"ctr stream len{2 * block + 9}"

        def stream_run(s: Session, i: int, name=name):
            n = 2 * block + 9
            msg = _secret(d.rng(name, i), i, n)
            c = d.ctx(d.key(i))
            st = d.rw(d.stream_bytes)
            ivp, inp, out = d.ro(iv), d.ro(msg), d.rw(n)
            s.tcall("ctr_start", st, c, ivp, block)
            done = 0
            for chunk in (7, block, 1, 64):
                k = min(chunk, n - done)
                s.tcall("ctr_update", st, inp + done, k, out + done)
                done += k
            s.tcall("ctr_wipe", st)
        checks.append((name, "key, message", stream_run))
    return checks


def check_block_drop(firmware: Firmware, prefix: str, spec, mode: str, runs: int = 8, seed: int = 0,
                     only=None) -> CtReport:
    def make(session: Session):
        ctx_bytes = firmware.symbols.get("sg_ctx", (0, 0))[1]
        stream_bytes = max(64, firmware.symbols.get("sg_stream", (0, 0))[1])
        if ctx_bytes == 0:
            raise RuntimeError(f"cannot find the size of {prefix}_ctx (no sg_ctx in the firmware)")
        group = any(f"{prefix}_{k}" in firmware.symbols for k in GROUP_KERNELS)
        return _checks(_Drop(session, spec.key_bytes, ctx_bytes, stream_bytes, seed), spec.block_bytes, mode, group)
    return run_checks(firmware, prefix, make, runs, only)
