from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from trustprobe.formats import canonical_json, sha256_hex
from trustprobe.store.chains import (
    GENESIS,
    chain_evidence_links,
    evidence_envelope,
    evidence_link_head,
    evidence_link_tail,
    link_hash,
    timestamp_text,
)


def test_link_hash_is_sha256_of_previous_hash_newline_and_canonical_envelope() -> None:
    envelope = {"b": 1, "a": "ü"}
    assert canonical_json(envelope) == '{"a":"ü","b":1}'
    assert link_hash(GENESIS, envelope) == sha256_hex(GENESIS + "\n" + '{"a":"ü","b":1}')


def test_timestamps_are_spelled_in_utc_with_microseconds() -> None:
    moment = datetime(2026, 3, 2, 13, 0, tzinfo=UTC) + timedelta(microseconds=5)
    assert timestamp_text(moment) == "2026-03-02T13:00:00.000005Z"
    local = moment.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Berlin"))
    assert timestamp_text(local) == "2026-03-02T13:00:00.000005Z"


@given(
    contents=st.lists(st.text(), min_size=1, max_size=5),
    run=st.one_of(st.none(), st.integers(1, 10**9)),
    source=st.sampled_from(["api", "cli", "report"]),
)
def test_the_batch_hasher_equals_the_generic_one(
    contents: list[str], run: int | None, source: str
) -> None:
    received = datetime(2026, 3, 2, tzinfo=UTC)
    fast = chain_evidence_links(
        GENESIS,
        [evidence_link_head(content) for content in contents],
        evidence_link_tail(source=source, received_at=received, probe_run_id=run),
    )
    prev, slow = GENESIS, []
    for content in contents:
        prev = link_hash(
            prev,
            evidence_envelope(
                content=content, source=source, received_at=received, probe_run_id=run
            ),
        )
        slow.append(prev)
    assert fast == slow
