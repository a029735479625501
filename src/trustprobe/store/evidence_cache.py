"""Parsed evidence per agent, kept between rescorings: evidence is append-only, so it only grows.

An entry says "this agent's evidence up to sequence number S is these records". Rows are never
changed or removed and every row of an agent is appended under its organisation's lock, so a
later rescoring only needs the rows after S. ``db verify`` reads the database itself, never this.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping

from trustprobe.trust import Evidence

DEFAULT_MAX_RECORDS = 1_000_000


class EvidenceCache:
    """A bounded, thread-safe map from agent key to (last sequence number, parsed records)."""

    def __init__(self, max_records: int = DEFAULT_MAX_RECORDS) -> None:
        self.max_records = max_records
        self._entries: OrderedDict[int, tuple[int, tuple[Evidence, ...]]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, agent_pk: int) -> tuple[int, tuple[Evidence, ...]] | None:
        """Return the agent's entry, marking it recently used; ``None`` when absent."""
        with self._lock:
            entry = self._entries.get(agent_pk)
            if entry is not None:
                self._entries.move_to_end(agent_pk)
            return entry

    def update(self, entries: Mapping[int, tuple[int, tuple[Evidence, ...]]]) -> None:
        """Store entries (call only after their transaction committed); evict the least used."""
        with self._lock:
            for agent_pk, (seq, records) in entries.items():
                old = self._entries.get(agent_pk)
                if old is not None:
                    if old[0] >= seq:
                        continue
                    self._size -= len(old[1])
                self._entries[agent_pk] = (seq, records)
                self._entries.move_to_end(agent_pk)
                self._size += len(records)
            while self._size > self.max_records and self._entries:
                _, (_, evicted) = self._entries.popitem(last=False)
                self._size -= len(evicted)

    def clear(self) -> None:
        """Forget everything (e.g. after restoring the database from a backup)."""
        with self._lock:
            self._entries.clear()
            self._size = 0
