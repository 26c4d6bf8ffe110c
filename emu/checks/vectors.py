"""GCM cases: the NIST CAVP files, the McGrew-Viega cases, and their batch encoding.

A Case says what to run and what must come out; `encode` packs cases in the layout that
emu/machines/driver.c reads, `decode` splits the driver's results again.
"""
from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path

from gen.errors import ConfigError

DATA = Path(__file__).resolve().parent / "data"
NIST_FILES = {bits: (f"gcmEncryptExtIV{bits}.rsp", f"gcmDecrypt{bits}.rsp") for bits in (128, 192, 256)}

OP_ENCRYPT, OP_DECRYPT, OP_STREAM_ENCRYPT, OP_STREAM_DECRYPT = 0, 1, 2, 3
OP_ECB, OP_GHASH = 4, 5     # emu/machines/driver.c: ecb_encrypt; ghash from y = iv (16 bytes), y as the tag


@dataclass
class Case:
    op: int
    key: bytes
    iv: bytes
    aad: bytes
    data: bytes            # plaintext for encrypting ops, ciphertext for decrypting ops
    taglen: int
    tag: bytes = b""       # the tag to verify (decrypting ops)
    expect_out: bytes = b""
    expect_tag: bytes = b""
    expect_rc: int = 0
    flags: int = 0
    label: str = ""

    @property
    def decrypt(self) -> bool:
        return self.op in (OP_DECRYPT, OP_STREAM_DECRYPT)


def _pad4(n: int) -> int:
    return (n + 3) & ~3


def encode(cases: list[Case]) -> bytes:
    out = bytearray()
    for c in cases:
        body = struct.pack("<7I", c.op, len(c.key), len(c.iv), len(c.aad), len(c.data), c.taglen, c.flags)
        body += c.key + c.iv + c.aad + c.data + (c.tag[:c.taglen] if c.decrypt else b"")
        out += body + bytes(_pad4(len(body)) - len(body))
    return bytes(out)


def result_size(cases: list[Case]) -> int:
    return sum(4 + _pad4(len(c.data) + (0 if c.decrypt else c.taglen)) for c in cases)


def decode(cases: list[Case], blob: bytes) -> list[tuple[int, bytes, bytes]]:
    """-> [(rc, out, tag)] in case order."""
    results, pos = [], 0
    for c in cases:
        rc = struct.unpack_from("<i", blob, pos)[0]
        pos += 4
        n = len(c.data) + (0 if c.decrypt else c.taglen)
        body = blob[pos:pos + n]
        results.append((rc, body[:len(c.data)], body[len(c.data):]))
        pos += _pad4(n)
    return results


def check(case: Case, rc: int, out: bytes, tag: bytes) -> str | None:
    """None when the result is right, else what is wrong."""
    if rc != case.expect_rc:
        return f"returned {rc}, expected {case.expect_rc}"
    if out != case.expect_out:
        return f"output {out.hex()} != expected {case.expect_out.hex()}"
    if not case.decrypt and tag != case.expect_tag[:case.taglen]:
        return f"tag {tag.hex()} != expected {case.expect_tag[:case.taglen].hex()}"
    return None


def nist_dir() -> Path:
    try:
        import cryptography_vectors
    except ImportError:
        raise ConfigError("the NIST GCM vectors come from the PyPI package cryptography-vectors; "
                          "run `make` (it installs it into .venv)") from None
    return Path(cryptography_vectors.__file__).resolve().parent / "ciphers" / "AES" / "GCM"


def parse_rsp(path: Path) -> list[dict]:
    """Entries of a CAVP .rsp file as dicts of lower-case keys; 'fail' marks FAIL entries."""
    entries, cur = [], None
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if line.startswith("Count"):
            cur = {"count": int(line.split("=")[1])}
            entries.append(cur)
        elif cur is not None and line == "FAIL":
            cur["fail"] = True
        elif cur is not None and "=" in line and not line.startswith("["):
            key, _, value = line.partition("=")
            cur[key.strip().lower()] = bytes.fromhex(value.strip())
    return entries


def nist_cases(keybits: int, flags_for=lambda i: 0) -> dict[str, list[Case]]:
    """All cases of the two NIST files for a key size: file name -> cases.

    Encrypt entries are run as encryption; decrypt entries as decryption, FAIL entries
    expecting -1 and an all-zero output. `flags_for(i)` varies alignment and in-place use.
    """
    base = nist_dir()
    enc_name, dec_name = NIST_FILES[keybits]
    files: dict[str, list[Case]] = {}
    cases = []
    for i, e in enumerate(parse_rsp(base / enc_name)):
        cases.append(Case(OP_ENCRYPT, e["key"], e["iv"], e["aad"], e["pt"], len(e["tag"]),
                          expect_out=e["ct"], expect_tag=e["tag"], flags=flags_for(i),
                          label=f"{enc_name} Count={e['count']} ivlen={len(e['iv'])}"))
    files[enc_name] = cases
    cases = []
    for i, e in enumerate(parse_rsp(base / dec_name)):
        fail = e.get("fail", False)
        cases.append(Case(OP_DECRYPT, e["key"], e["iv"], e["aad"], e["ct"], len(e["tag"]), tag=e["tag"],
                          expect_out=bytes(len(e["ct"])) if fail else e["pt"], expect_rc=-1 if fail else 0,
                          flags=flags_for(i), label=f"{dec_name} Count={e['count']}{' FAIL' if fail else ''}"))
    files[dec_name] = cases
    return files


def spec_cases(keybits: int) -> list[Case]:
    """McGrew-Viega cases for a key size, each as encryption and as decryption."""
    data = json.loads((DATA / "gcm_spec_cases.json").read_text())
    cases = []
    for v in data["vectors"]:
        key = bytes.fromhex(v["key"])
        if len(key) * 8 != keybits:
            continue
        iv, aad = bytes.fromhex(v["iv"]), bytes.fromhex(v["aad"])
        pt, ct, tag = bytes.fromhex(v["plaintext"]), bytes.fromhex(v["ciphertext"]), bytes.fromhex(v["tag"])
        label = f"McGrew-Viega case {v['case']}"
        cases.append(Case(OP_ENCRYPT, key, iv, aad, pt, 16, expect_out=ct, expect_tag=tag, label=label))
        cases.append(Case(OP_DECRYPT, key, iv, aad, ct, 16, tag=tag, expect_out=pt, label=label + " (decrypt)"))
    return cases
