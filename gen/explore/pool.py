"""Where `slicegen explore` scores its candidates: in this process, in a local process pool
(`--jobs N`), or on an existing Dask cluster (`--scheduler tcp://HOST:PORT`, dask.distributed's
Client; nothing of a cluster is started or managed here).

`ordered(fn, args, jobs, scheduler)` yields ``fn(*a)`` for every ``a`` of ``args`` in the order of
``args`` whichever way they ran, so the log of a search is the same whatever executed it.
"""
from __future__ import annotations

from contextlib import contextmanager

from gen.errors import ConfigError


def check_scheduler(address: str | None) -> None:
    if address is not None and "://" not in address:
        raise ConfigError(f"--scheduler {address}: give a Dask scheduler address such as tcp://HOST:8786")


@contextmanager
def ordered(fn, args: list[tuple], jobs: int = 1, scheduler=None):
    """A context giving an iterator of results in ``args`` order. ``scheduler``: a Dask scheduler
    address, or a dask.distributed Client or LocalCluster (the tests use one)."""
    if scheduler is not None:
        with _dask(fn, args, scheduler) as results:
            yield results
    elif jobs == 1 or len(args) < 2:
        yield (fn(*a) for a in args)
    else:
        from concurrent.futures import ProcessPoolExecutor
        pool = ProcessPoolExecutor(max_workers=min(jobs, len(args)))
        try:
            yield pool.map(fn, *zip(*args))
        finally:
            pool.shutdown(cancel_futures=True)


#: how long a --scheduler address may take to answer before it is bad input
CONNECT_TIMEOUT = "10s"


@contextmanager
def _dask(fn, args, scheduler):
    try:
        from distributed import Client
    except ImportError as exc:                       # pragma: no cover - the explore extra is pinned
        raise ConfigError("--scheduler needs dask.distributed: pip install 'slicegen[explore]'") from exc
    own = not isinstance(scheduler, Client)
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT) if own else scheduler
    except OSError as exc:
        raise ConfigError(f"--scheduler {scheduler}: no Dask scheduler answers there ({exc})") from exc
    futures = []
    try:
        # pure=False: a candidate is scored even if an identical call ran before (its time is logged)
        futures = client.map(fn, *zip(*args), pure=False) if args else []
        yield (f.result() for f in futures)
    finally:
        for f in futures:
            f.cancel()
        if own:
            client.close()
