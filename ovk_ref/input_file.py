"""Reading a file a user names (``--expectations``, ``--replay``, ``--instance @FILE``), within a size limit.

A path given for a small JSON file may name ``/dev/zero``, a FIFO that never ends or a huge file by mistake: read
without a limit, ``/dev/zero`` grew the process to 23.5 GB until the kernel killed it. At most ``limit`` bytes are
read; a longer input is a ValueError naming the option and the limit, before any work.
"""
from __future__ import annotations

from pathlib import Path

#: the largest file an option reads by default: a replayed case of the longest stored stream (140000 rounds of hex
#: floats, about 15 MB of JSON) fits 4 times; expectation files and instances are a few kilobytes
LIMIT_BYTES = 64 * 2**20


def read_text(path, option: str, limit: int | None = None) -> str:
    """The text (UTF-8) of the file ``path`` given to ``option``; ValueError when it holds more than ``limit``
    bytes (default ``LIMIT_BYTES``), OSError/UnicodeDecodeError as reading raises them."""
    limit = LIMIT_BYTES if limit is None else limit
    with Path(path).open("rb") as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{option} {path} holds more than {limit} bytes, the most it reads "
                         f"(not a file of this kind: /dev/zero, a stream that does not end?)")
    return data.decode("utf-8")
