"""From a kernel set to files: the header text and writing a drop.

  render      config -> the header's text (frame + mode API + glue + kernels); pure, deterministic
  write       out/<name>/ written atomically (temporary folder, then rename), manifest included
May import config, targets, modes and version; never emu.
"""
