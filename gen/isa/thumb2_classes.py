"""Which timing class (gen/cores/timing.py) a Thumb-2 mnemonic belongs to.

The ISA side of the one timing table: ``gen/isa/thumb2.py`` classes the instructions it
builds with ``class_of_mnemonic``, and the emulator's capstone bridge
(``emu/platforms/thumb2_classify.py``) classes the instructions it decodes with the same function, so
the generator and the cycle model cannot disagree on a class.  Mnemonics are in capstone's
spelling after ``base_mnemonic`` (no ``.w``/``.n``, no condition suffix); a trailing S (flag
setting) is tried both ways.
"""
from __future__ import annotations

import re

_LOADS = {"ldr", "ldrb", "ldrh", "ldrsb", "ldrsh", "ldrt", "ldrbt", "ldrht", "ldrsbt", "ldrsht",
          "ldrex", "ldrexb", "ldrexh", "pld", "pldw"}
_STORES = {"str", "strb", "strh", "strt", "strbt", "strht", "strex", "strexb", "strexh"}
_LDM = {"ldm", "ldmia", "ldmfd", "ldmdb", "ldmea", "pop",
        "vldm", "vldmia", "vldmdb", "vpop"}          # FPU multiple loads: 1 + N (TRM Table 7-1, single precision)
_STM = {"stm", "stmia", "stmea", "stmdb", "stmfd", "push",
        "vstm", "vstmia", "vstmdb", "vpush"}
_DSP = {"umaal", "smmul", "smmulr", "smmla", "smmlar", "smmls", "smmlsr", "smuad", "smuadx",
        "smusd", "smusdx", "smlad", "smladx", "smlsd", "smlsdx", "smlald", "smlaldx", "smlsld",
        "smlsldx", "smulbb", "smulbt", "smultb", "smultt", "smulwb", "smulwt", "smlabb",
        "smlabt", "smlatb", "smlatt", "smlawb", "smlawt", "smlalbb", "smlalbt", "smlaltb",
        "smlaltt", "qadd", "qsub", "qdadd", "qdsub", "sel", "usad8", "usada8", "pkhbt", "pkhtb",
        "sxtab", "sxtah", "sxtab16", "sxtb16", "uxtab", "uxtah", "uxtab16", "uxtb16", "ssat16",
        "usat16"}
_DSP_RE = re.compile(r"^(s|q|sh|u|uq|uh)(add8|add16|sub8|sub16|asx|sax)$")
_SIMPLE = {
    "mul": "mul", "mla": "mla", "mls": "mla", "umull": "umull", "smull": "umull",
    "umlal": "umlal", "smlal": "smlal", "sdiv": "div", "udiv": "div",
    "ldrd": "ldrd", "strd": "strd", "ldrexd": "ldrd", "strexd": "strd", "tbb": "tbb", "tbh": "tbb", "it": "it", "nop": "nop",
    "vmov": "vmov", "dmb": "barrier", "dsb": "barrier", "isb": "isb", "cbz": "bcond", "cbnz": "bcond",
}
_CC_SUFFIXES = ("eq", "ne", "hs", "cs", "lo", "cc", "mi", "pl", "vs", "vc", "hi", "ls",
                "ge", "lt", "gt", "le", "al")


def base_mnemonic(mnemonic: str, conditional: bool = False) -> str:
    """'ldr.w' -> 'ldr', 'addseq' (conditional) -> 'adds' -> handled by class_of_mnemonic."""
    m = mnemonic.lower().split(".")[0]
    if conditional and len(m) > 2 and m[-2:] in _CC_SUFFIXES:
        m = m[:-2]
    return m


def class_of_mnemonic(m: str, writes_pc: bool = False, n_regs: int = 0) -> str:
    """Class of a base mnemonic (already stripped with ``base_mnemonic``)."""
    for cand in (m, m[:-1] if m.endswith("s") else None):
        if not cand:
            continue
        if cand in _SIMPLE:
            return _SIMPLE[cand]
        if cand in _LOADS:
            return "ldr_pc" if writes_pc else "ldr"
        if cand in _STORES:
            return "str"
        if cand in _LDM:
            return "ldm_pc" if writes_pc else "ldm"
        if cand in _STM:
            return "stm"
        if cand in _DSP or _DSP_RE.match(cand):
            return "dsp"
        if cand in ("b", "bl", "bx", "blx"):
            return "branch"
    if writes_pc:
        return "alu_pc"
    return "alu"
