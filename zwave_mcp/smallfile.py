"""Reading a small file a person named in a setting (a password, alias or policy file, a TLS file).

Only a regular file is read, and never more than its limit: a path that leads to /dev/zero (directly or
through a symlink) would be read forever, and a named pipe (FIFO) would block the open until something
writes to it, so the server would hang at start instead of saying what is wrong.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


def check_regular_file(path: str | Path) -> None:
    """Raise `OSError` (its `strerror` says why, for a person) unless `path` is a regular file."""
    mode = os.stat(path).st_mode  # follows symlinks: what the link leads to is what would be read
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "it is a pipe, socket or device, not a regular file", str(path))


def read_small_file(path: str | Path, limit: int) -> bytes:
    """The file's bytes, at most `limit + 1` of them (a caller that gets more knows it is too large)."""
    check_regular_file(path)
    with open(path, "rb") as file:
        return file.read(limit + 1)
