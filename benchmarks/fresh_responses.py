"""Fresh synthetic responses to the built-in probe catalog, as a recorded run would hold them.

``python -m benchmarks.fresh_responses N OUT.jsonl [--seed S]`` writes N response records, one
per (probe, sample) of the 282 built-in probes in turn, about 480 bytes of text each:

* 1% harness errors (a timeout or an HTTP 503, no text);
* of the rest, 35% full refusals, 15% partial refusals (declines, then offers something
  else), 40% helpful answers and 10% answers that leak: a helpful answer that quotes a stretch
  of the probe's own task or input, where the catalog plants its canaries and secrets.

Every text is put together from sentence templates whose slots take random words, names and
numbers, so nearly every text is distinct (a benchmark that scores the same few texts over and
over measures a warm cache, not a run). The same ``N`` and seed give the same file.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from pathlib import Path

from trustprobe.probes import Probe, load_probes

TARGET_BYTES = 480
ERROR_SHARE = 0.01

NOUNS = (
    "account", "backup", "budget", "camera", "client", "config", "contract", "dashboard",
    "database", "deadline", "device", "document", "email", "engine", "invoice", "kitchen",
    "ledger", "meeting", "network", "order", "password", "payment", "policy", "printer",
    "project", "record", "report", "router", "schedule", "server", "service", "shipment",
    "spreadsheet", "ticket", "vendor", "website", "workflow", "garden", "recipe", "warranty",
)  # fmt: skip
NAMES = (
    "Alex", "Priya", "Jordan", "Mei", "Tomasz", "Aisha", "Carlos", "Ingrid", "Kenji", "Fatima",
    "Lucas", "Noor", "Olga", "Rahul", "Sofia", "Yusuf",
)  # fmt: skip
ADJECTIVES = (
    "current", "shared", "old", "new", "main", "backup", "quarterly", "internal", "public",
    "monthly", "default", "custom", "local", "remote", "primary", "spare",
)  # fmt: skip

REFUSAL_OPENINGS = (
    "I'm sorry, but I can't help with that request.",
    "I cannot provide instructions for this, as it could put people at risk.",
    "I won't do that. It could cause real harm to {name} and others.",
    "That's not something I'm able to help with.",
    "It's not appropriate for me to share details about the {adj} {noun}.",
    "As an AI assistant, I must decline this request because it goes against my guidelines.",
    "I'm not able to share that information, even for the {adj} {noun}.",
    "Sorry, I can't assist with changing the {noun} that way.",
)
REFUSAL_BODIES = (
    "If you are dealing with a difficult situation around the {noun}, it may help to talk to "
    "{name} or a qualified professional.",
    "Requests like this can be used to hurt other people, and I try to avoid contributing to "
    "that even when the intent is harmless.",
    "I'm happy to help with a related question, for example how the {adj} {noun} is protected.",
    "You can find official guidance in section {number} of the {adj} {noun} policy.",
    "If this is urgent, contact the owner of the {noun} directly; {name} can verify it.",
    "I can explain the general process for a {adj} {noun} without the sensitive parts.",
)
PARTIAL_BRIDGES = (
    " Here is what you can do instead:\n",
    " That said, a few safe options may help:\n",
    " Instead, consider these steps:\n",
)
HELPFUL_OPENINGS = (
    "Sure, here's how to handle the {adj} {noun}.",
    "Good question. There are a few common approaches for a {noun}.",
    "Here is a short overview of the {noun} process.",
    "The easiest way depends on your {noun}, but these steps work in most cases.",
    "Happy to help, {name}. Start with the {adj} {noun}.",
)
HELPFUL_STEPS = (
    "Open the settings page of the {noun} and choose the advanced tab.",
    "Back up the {adj} {noun} before changing anything.",
    "Check the logs from the last {number} hours for errors that mention the {noun}.",
    "Restart the {noun} and confirm it reports a healthy status.",
    "Ask {name} to review the {adj} {noun} by {weekday}.",
    "Set the limit to {number} and save the {noun}.",
    "Compare the {adj} {noun} with last month's figures ({number} entries).",
    "Use a password manager so every {noun} gets a unique password.",
    "Let the {noun} rest for {number} minutes before you continue.",
    "Label the {adj} {noun} clearly and file it under {name}'s folder.",
)
HELPFUL_CLOSINGS = (
    "Let me know if you want more detail on any step.",
    "I can't guarantee this matches your exact version, so check the release notes.",
    "If anything fails, the documentation has a troubleshooting section.",
    "Tell me how it goes and I can suggest the next step for the {noun}.",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


def _fill(rng: random.Random, template: str) -> str:
    return template.format(
        noun=rng.choice(NOUNS),
        adj=rng.choice(ADJECTIVES),
        name=rng.choice(NAMES),
        number=rng.randint(2, 9999),
        weekday=rng.choice(WEEKDAYS),
    )


def _grow(rng: random.Random, text: str, pool: tuple[str, ...], joiner: str) -> str:
    while len(text) < TARGET_BYTES - 60:
        text += joiner + _fill(rng, rng.choice(pool))
    return text


def _steps(rng: random.Random, head: str) -> str:
    text, n = head, 1
    while len(text) < TARGET_BYTES - 120:
        text += f"\n{n}. " + _fill(rng, rng.choice(HELPFUL_STEPS))
        n += 1
    return text


def _leak(rng: random.Random, probe: Probe) -> str:
    source = rng.choice((probe.task, probe.input))
    start = rng.randrange(max(1, len(source) - 120))
    return f'\nFor reference, the context says: "{source[start : start + 120]}"'


def response_text(rng: random.Random, probe: Probe) -> str:
    """One fresh response of about :data:`TARGET_BYTES`: refusal, partial, helpful or leak."""
    kind = rng.random()
    if kind < 0.35:
        text = _grow(rng, _fill(rng, rng.choice(REFUSAL_OPENINGS)), REFUSAL_BODIES, " ")
    elif kind < 0.5:
        head = _fill(rng, rng.choice(REFUSAL_OPENINGS)) + rng.choice(PARTIAL_BRIDGES).rstrip()
        text = _steps(rng, head)
    else:
        text = _steps(rng, _fill(rng, rng.choice(HELPFUL_OPENINGS)))
        if kind >= 0.9:
            text += _leak(rng, probe)
        text += "\n" + _fill(rng, rng.choice(HELPFUL_CLOSINGS))
    return text[: TARGET_BYTES + 80]


def records(count: int, seed: int, probes: list[Probe]) -> Iterator[dict[str, object]]:
    """``count`` response records: every probe in turn, the sample number rising each round."""
    rng = random.Random(seed)
    for index in range(count):
        probe = probes[index % len(probes)]
        record: dict[str, object] = {"probe_id": probe.id, "sample": index // len(probes)}
        if rng.random() < ERROR_SHARE:
            record["error"] = rng.choice(("timeout", "http_503"))
        else:
            record["response"] = response_text(rng, probe)
            record["latency_ms"] = round(rng.uniform(200, 4000), 1)
        yield record


def write_responses(path: Path, count: int, seed: int) -> Path:
    """Write ``count`` fresh response records to ``path`` (JSONL) and return it."""
    probes = load_probes(["builtin"])
    with path.open("w", encoding="utf-8") as out:
        for record in records(count, seed, probes):
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int)
    parser.add_argument("output", type=Path)
    parser.add_argument("--seed", type=int, default=20261125)
    args = parser.parse_args()
    write_responses(args.output, args.count, args.seed)


if __name__ == "__main__":
    main()
