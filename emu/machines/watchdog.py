"""The wall-clock limit of an emulated call, kept by one thread per process.

Unicorn's own ``emu_start(timeout=...)`` starts a timer thread for every call, which polls the
clock every few microseconds until the call ends: about 150 us of set-up per call (the
validation and constant-time checks make tens of thousands of calls) and a thread that competes
for the CPU while the emulation runs. Here one daemon thread wakes every ``POLL_S`` seconds and
stops (``uc.emu_stop()``, as Unicorn's timer does) each call that has run past its deadline;
arming and disarming a call is a dictionary update under a lock. The check and the stop happen
under that lock, and a call is disarmed under it before the next one can be armed, so a stop can
only reach the call it was meant for.
"""
from __future__ import annotations

import itertools
import threading
import time
from contextlib import contextmanager

POLL_S = 0.1

_lock = threading.Lock()
_jobs: dict[int, list] = {}          # id -> [uc, deadline, fired]
_ids = itertools.count()
_thread: threading.Thread | None = None


def _watch() -> None:
    while True:
        time.sleep(POLL_S)
        now = time.monotonic()
        with _lock:
            for job in _jobs.values():
                if not job[2] and now >= job[1]:
                    job[2] = True
                    job[0].emu_stop()


@contextmanager
def limit(uc, seconds: float):
    """Stop the emulation of `uc` if the block is still running after `seconds`; yields the
    job, whose ``[2]`` says whether it was stopped."""
    global _thread
    job = [uc, time.monotonic() + seconds, False]
    with _lock:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_watch, name="slicegen-watchdog", daemon=True)
            _thread.start()
        key = next(_ids)
        _jobs[key] = job
    try:
        yield job
    finally:
        with _lock:
            del _jobs[key]
