"""What a process keeps of each agent's evidence between rescorings: it only ever grows.

An entry says "this agent's evidence up to sequence number S is this". Rows are never changed or
removed and every row of an agent is appended under its organisation's lock, so a later
rescoring only needs the rows after S. ``db verify`` reads the database itself, never a cache.
Two kinds of entry: the parsed records (:class:`EvidenceCache`, for rescoring from the whole
history) and their item readings as columns (:class:`ItemCache`, for the decayed sums).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sized
from typing import Generic, TypeVar

from trustprobe.store.item_readings import AgentItems
from trustprobe.trust import Evidence

DEFAULT_MAX_RECORDS = 1_000_000
DEFAULT_MAX_ITEMS = 10_000_000
"""Item readings take 25 bytes each (250 MB at most); a parsed record takes far more."""

V = TypeVar("V", bound=Sized)


class AgentCache(Generic[V]):
    """A bounded, thread-safe map from agent key to (last sequence number, value).

    The bound is on the values' total length (records or items), least-recently-used first out.
    """

    def __init__(self, max_records: int) -> None:
        self.max_records = max_records
        self._entries: OrderedDict[int, tuple[int, V]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, agent_pk: int) -> tuple[int, V] | None:
        """Return the agent's entry, marking it recently used; ``None`` when absent."""
        with self._lock:
            entry = self._entries.get(agent_pk)
            if entry is not None:
                self._entries.move_to_end(agent_pk)
            return entry

    def update(self, entries: Mapping[int, tuple[int, V]]) -> None:
        """Store entries (call only after their transaction committed); evict the least used."""
        with self._lock:
            for agent_pk, (seq, value) in entries.items():
                old = self._entries.get(agent_pk)
                if old is not None:
                    if old[0] >= seq:
                        continue
                    self._size -= len(old[1])
                self._entries[agent_pk] = (seq, value)
                self._entries.move_to_end(agent_pk)
                self._size += len(value)
            while self._size > self.max_records and self._entries:
                _, (_, evicted) = self._entries.popitem(last=False)
                self._size -= len(evicted)

    def clear(self) -> None:
        """Forget everything (e.g. after restoring the database from a backup)."""
        with self._lock:
            self._entries.clear()
            self._size = 0


class EvidenceCache(AgentCache[tuple[Evidence, ...]]):
    """Each agent's parsed records, in sequence order."""

    def __init__(self, max_records: int = DEFAULT_MAX_RECORDS) -> None:
        super().__init__(max_records)


class ItemCache(AgentCache[AgentItems]):
    """Each agent's item readings as columns, in sequence order."""

    def __init__(self, max_items: int = DEFAULT_MAX_ITEMS) -> None:
        super().__init__(max_items)


class CacheUpdates:
    """Entries an ingestion made, handed to the caches only once its transaction committed."""

    def __init__(self) -> None:
        self.evidence: dict[int, tuple[int, tuple[Evidence, ...]]] = {}
        self.items: dict[int, tuple[int, AgentItems]] = {}

    def apply(self, evidence_cache: EvidenceCache, item_cache: ItemCache) -> None:
        """Store the entries in the caches."""
        evidence_cache.update(self.evidence)
        item_cache.update(self.items)
