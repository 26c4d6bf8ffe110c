"""The schedule explorer (`slicegen explore`): search a kernel's schedule space, validate every
candidate in emulation, keep the fastest.

  search   seeds: the driver, scoring, logs, the winner table (the other spaces plug in here)
  orders   evaluation orders of a kernel segment (annealing, --write-orders with its guard)
  circuit  the S-box circuit choice;  alloc  the allocator's policy;  cpsat  CP-SAT over one segment
  pool     the local process pool and Dask distributed;  view  the explore log as a table
A new search space is a new module here and one branch in gen/cli/commands.py.
May import gen (config, kernels, sched, ir, circuits) and emu (to run candidates).
"""
