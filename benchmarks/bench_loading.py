"""Reading fresh JSONL responses: per-line validation against the loader's batch call.

On the fresh responses of the end-to-end benchmark (:func:`bench_end_to_end.responses_file`),
with the command's garbage-collection settings, CPU time (``time.process_time``) of:

* ``model_validate_json`` per line (the reference: what the loader's line-by-line path does);
* the loader's batch call (``list[Json[Response]]``: each line parsed on its own, one call a
  batch of about a megabyte of lines), checked to give equal responses;
* ``read_responses`` whole: reading the file, validating, the duplicate check and chunking.

``python -m benchmarks loading``; ``TRUSTPROBE_BENCH_SIZES`` as for ``end_to_end`` (the first
size is used).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from benchmarks.bench_end_to_end import responses_file
from trustprobe.cli.collection import bulk_collection
from trustprobe.formats import JsonlFile
from trustprobe.responses import Response, read_responses
from trustprobe.responses.loader import BATCH_BYTES, _line_batch

ROUNDS = 3


def _best(work: Callable[[], object]) -> float:
    """The lowest CPU seconds of :data:`ROUNDS` runs of ``work``."""
    times = []
    for _ in range(ROUNDS):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    count = int(os.environ.get("TRUSTPROBE_BENCH_SIZES", "200000").split(",")[0])
    path = responses_file(count)
    batches = [lines for _, _, lines in JsonlFile(path).batches(BATCH_BYTES)]
    validate = _line_batch()
    with bulk_collection():
        per_line = _best(lambda: [[Response.model_validate_json(r) for r in b] for b in batches])
        batched = _best(lambda: [validate(b) for b in batches])
        whole = _best(lambda: sum(len(c.responses) for c in read_responses([path])))
    same = all(validate(b) == [Response.model_validate_json(r) for r in b] for b in batches[:20])
    micro = 1e6 / count
    print(f"  {count:,} fresh lines, best of {ROUNDS}, CPU µs a line:")
    print(f"    model_validate_json per line {per_line * micro:5.2f}")
    print(f"    batch call (list[Json[Response]]) {batched * micro:5.2f}  equal: {same}")
    print(f"    read_responses, whole     {whole * micro:5.2f}  ({whole:.2f} CPU s)")


if __name__ == "__main__":
    main()
