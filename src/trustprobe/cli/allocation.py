"""The C allocator of a scoring command's process: what a chunk frees, the next one reuses.

Each chunk of a run allocates blocks of tens of megabytes (its responses' text, its rendered
report lines) and frees them before the next chunk. glibc's defaults hand such blocks back to
the kernel: one above its mmap threshold is unmapped when freed, and free memory at the top
of the heap above its trim threshold is given back. The next chunk's blocks then fault their
pages in afresh, zeroed by the kernel, and on a virtual machine that takes freed pages back
from its guest each such page costs several microseconds: a 200,000-case ``trustprobe score``
took 132,000 page faults, 27,000 of them this churn, and a
1,000,000-case one 202,000, 95,000 of them (docs/benchmarks.md, "Where a run's system time
goes").

Fixed thresholds keep it: blocks up to 32 MB (glibc's largest mmap threshold, where its
dynamic threshold ends anyway) come from the heap, and the heap keeps up to 64 MB of free
memory at its top. Peak memory stays where it was: the memory kept is what the next chunk
takes again. Only for a process that ends with its command: the service's workers run on
and give memory back as before.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Final

LARGE_BLOCK: Final = 32 << 20
"""Bytes from which a block is mapped on its own (``M_MMAP_THRESHOLD``)."""
KEPT_AT_TOP: Final = 64 << 20
"""Free bytes the heap keeps at its top rather than give back (``M_TRIM_THRESHOLD``)."""
_M_TRIM_THRESHOLD: Final = -1
_M_MMAP_THRESHOLD: Final = -3


def keep_freed_memory() -> bool:
    """Set glibc's thresholds (above) for the rest of the process; False where there is none.

    Other C libraries (musl, macOS) have no such thresholds, or none that ``mallopt`` sets:
    they are left as they are.
    """
    if not sys.platform.startswith("linux"):
        return False
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is None:
        return False
    # Set together: setting either one stops glibc moving both with the blocks freed.
    return bool(mallopt(_M_MMAP_THRESHOLD, LARGE_BLOCK)) and bool(
        mallopt(_M_TRIM_THRESHOLD, KEPT_AT_TOP)
    )
