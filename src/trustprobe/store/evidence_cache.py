"""What a process keeps of each agent's evidence between rescorings: it only ever grows.

An entry says "this agent's evidence up to sequence number S is this". Rows are never changed or
removed and every row of an agent is appended under its organisation's lock, so a later
rescoring only needs the rows after S. ``db verify`` reads the database itself, never a cache.
Two kinds of entry: the parsed records (:class:`EvidenceCache`, for rescoring from the whole
history) and their item readings with the decay sums (:class:`ItemCache`, for the decayed sums).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence, Sized
from typing import Generic, TypeVar

from trustprobe.store.item_readings import AgentDecay
from trustprobe.trust import DecayLimits, Evidence, ItemReading

DEFAULT_MAX_RECORDS = 1_000_000
DEFAULT_MAX_ITEMS = 4_000_000
"""An item takes about 73 bytes (its three numbers in arrays and a queue entry; measured with
tracemalloc over 200,000 items of 400 days): about 290 MB at most; a parsed record takes far
more."""

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


class ItemCache:
    """Each agent's :class:`AgentDecay`, bounded by their total item count (least used out).

    Entries are changed in place under their own lock; the cache only counts and evicts them.
    """

    def __init__(self, max_items: int = DEFAULT_MAX_ITEMS) -> None:
        self.max_items = max_items
        self._entries: OrderedDict[int, AgentDecay] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, agent_pk: int) -> AgentDecay | None:
        """Return the agent's entry, marking it recently used; ``None`` when absent."""
        with self._lock:
            entry = self._entries.get(agent_pk)
            if entry is not None:
                self._entries.move_to_end(agent_pk)
            return entry

    def entry(self, agent_pk: int) -> AgentDecay:
        """The agent's entry, a new empty one if absent."""
        with self._lock:
            entry = self._entries.get(agent_pk)
            if entry is None:
                entry = self._entries[agent_pk] = AgentDecay()
            self._entries.move_to_end(agent_pk)
            return entry

    def account(self, agent_pk: int, entry: AgentDecay) -> None:
        """Count ``entry``'s items again after it grew; evict the least used beyond the bound."""
        with self._lock:
            if self._entries.get(agent_pk) is not entry:
                return
            size = len(entry)
            self._size += size - entry.accounted
            entry.accounted = size
            while self._size > self.max_items and self._entries:
                _, evicted = self._entries.popitem(last=False)
                self._size -= evicted.accounted
                evicted.accounted = 0

    def clear(self) -> None:
        """Forget everything (e.g. after restoring the database from a backup)."""
        with self._lock:
            self._entries.clear()
            self._size = 0


class CacheUpdates:
    """Entries an ingestion made, handed to the caches only once its transaction committed."""

    def __init__(self) -> None:
        self.evidence: dict[int, tuple[int, tuple[Evidence, ...]]] = {}
        self.items: dict[int, PendingItems] = {}

    def apply(self, evidence_cache: EvidenceCache, item_cache: ItemCache) -> None:
        """Store the entries in the caches."""
        evidence_cache.update(self.evidence)
        for agent_pk, pending in self.items.items():
            pending.apply()
            item_cache.account(agent_pk, pending.entry)


class PendingItems:
    """A batch's records for an agent's :class:`AgentDecay`, added once they are committed.

    Added only if the entry still holds exactly the rows before the batch (``after``); otherwise
    the next rescoring reads the rows it lacks from the database.
    """

    def __init__(
        self,
        entry: AgentDecay,
        *,
        after: int,
        seq: int,
        records: Sequence[Evidence],
        readings: Sequence[tuple[ItemReading, int]],
        limits: DecayLimits,
    ) -> None:
        self.entry, self.after, self.seq = entry, after, seq
        self.records, self.readings, self.limits = records, readings, limits

    def apply(self) -> None:
        """Add the records to the entry if it is where the batch left it."""
        with self.entry.lock:
            if self.entry.seq == self.after:
                self.entry.push(self.records, self.readings, self.limits)
                self.entry.seq = self.seq
