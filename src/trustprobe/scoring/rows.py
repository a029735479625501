"""A chunk's cases as columns: a verdict per group of cases, and each case's own values.

Most cases of a run share their verdict with many others (a few shapes of answer recur), and
what the metrics and the observability sample read of a case is its verdict's part and its
sample. :class:`ScoredCases` keeps the cases that way: a representative case per group (the
cases given one verdict, or a case on its own), the group and the sample of each case, and
enough of each case to build it when asked. Building a case (a dictionary of its fields and
a pydantic model) costs more than reading its verdict's part once per group
(docs/benchmarks.md, "End to end").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol, overload

import msgspec

from trustprobe.scoring.models import CaseScore


class OwnValues(msgspec.Struct, gc=False):
    """A case's own values: those it takes from its response, in :class:`CaseScore`'s order.

    A struct rather than a dictionary: made for every case and written as JSON for most, it
    costs less to make and to write (docs/benchmarks.md, "End to end"). Not tracked by the
    garbage collector: a validated response's text, flag and numbers refer to nothing, so it
    is never part of a reference cycle.
    """

    response: str
    response_truncated: bool
    latency_ms: float | None
    input_tokens: int | None
    output_tokens: int | None


class SharedVerdict(Protocol):
    """A verdict reached once and shared by the cases given it (hashed by its identity)."""

    @property
    def case(self) -> CaseScore | None:
        """A case given this verdict: every field but the case's own is the group's."""

    @property
    def memo(self) -> dict[str, Any]:
        """What readers of the cases worked out from :attr:`case`, kept for the run."""

    def case_of(self, sample: int, own: OwnValues) -> CaseScore:
        """The case given this verdict with ``sample`` and the case's ``own`` values."""


class LightCase(msgspec.Struct, eq=False, gc=False):
    """A case not built yet: its verdict, its sample and its own values (:meth:`case` builds it).

    A struct for its constructor in C: one is made for most cases of a run. Compared by
    identity, as a plain object. Not tracked by the garbage collector: its sample and own
    values refer to nothing, and a shared verdict never refers to the light cases made from
    it, so it is never part of a reference cycle.
    """

    verdict: SharedVerdict
    sample: int
    own: OwnValues

    def case(self) -> CaseScore:
        """The case, built now (equal to the one the scorer would have built)."""
        return self.verdict.case_of(self.sample, self.own)


def built(item: Any) -> Any:
    """``item``'s case if it is a :class:`LightCase`, else ``item`` itself."""
    return item.case() if type(item) is LightCase else item


_built_case: Callable[[CaseScore | LightCase], CaseScore] = built
""":func:`built` typed for what :class:`ScoredCases` holds: cases and light cases."""


class ScoredCases(Sequence[CaseScore]):
    """A chunk's cases in order, most kept as their verdict's group and their own values.

    As a sequence it yields :class:`CaseScore` objects, each built when read. Readers of
    many cases read the columns instead: :attr:`groups` (a representative case per group,
    whose fields other than ``sample`` and the response's own are every member's),
    :attr:`group_of` and :attr:`samples` (per case).
    """

    __slots__ = ("_entries", "_index", "group_of", "groups", "memos", "samples")

    def __init__(self) -> None:
        self.groups: list[CaseScore] = []
        """A representative case per group, in the order of each group's first case."""
        self.memos: list[dict[str, Any] | None] = []
        """Per group, where readers keep what they read of its representative, shared by
        every chunk's group of the same verdict (``None`` for a case on its own): the same
        verdict's fields are read once a run, not once a chunk."""
        self.group_of: list[int] = []
        """Per case, its group's index in :attr:`groups`."""
        self.samples: list[int] = []
        """Per case, its ``sample``."""
        self._entries: list[CaseScore | LightCase] = []
        # Group index by shared verdict: hashed by identity, in C (an id() costs an integer).
        self._index: dict[SharedVerdict, int] = {}

    @classmethod
    def of(cls, cases: Sequence[CaseScore]) -> ScoredCases:
        """``cases`` as columns: each case a group of its own."""
        if isinstance(cases, ScoredCases):
            return cases
        rows = cls()
        rows.groups = list(cases)
        rows.group_of = list(range(len(rows.groups)))
        rows.samples = [case.sample for case in rows.groups]
        rows.memos = [None] * len(rows.groups)
        rows._entries = list(rows.groups)
        return rows

    @classmethod
    def of_items(cls, items: Iterable[CaseScore | LightCase]) -> ScoredCases:
        """Cases and light cases (what :meth:`items` holds) as columns, nothing built.

        The light cases of one verdict are one group, whose representative is the verdict's
        case; each case built whole is a group of its own. Readers of a case's verdict, probe
        and sample (a sample of a run's cases, say) read the columns and build no case.

        Raises:
            TypeError: an item is neither a case nor a light case.
        """
        rows = cls()
        for item in items:
            if type(item) is LightCase:
                rows.add_light(item.verdict, item.sample, item.own)
            elif isinstance(item, CaseScore):
                rows.add(item)
            else:
                raise TypeError(f"a case or a light case is needed, got {type(item).__name__}")
        return rows

    def add(self, case: CaseScore) -> None:
        """Append a case built whole: a group of its own."""
        self.group_of.append(len(self.groups))
        self.groups.append(case)
        self.memos.append(None)
        self.samples.append(case.sample)
        self._entries.append(case)

    def add_light(self, verdict: SharedVerdict, sample: int, own: OwnValues) -> None:
        """Append a case given ``verdict`` (whose :attr:`~SharedVerdict.case` is set)."""
        group = self._index.get(verdict)
        if group is None:
            group = self._shared_group(verdict)
        self.group_of.append(group)
        self.samples.append(sample)
        self._entries.append(LightCase(verdict, sample, own))

    def add_shared(self, verdict: SharedVerdict, case: CaseScore) -> None:
        """Append a case built whole that was given ``verdict`` (its first, say), in its group.

        ``case`` differs from the verdict's :attr:`~SharedVerdict.case` only in its sample
        and own values, as a light case does: it joins the verdict's group, and the group's
        readers read it once with the rest.
        """
        group = self._index.get(verdict)
        if group is None:
            group = self._shared_group(verdict)
        self.group_of.append(group)
        self.samples.append(case.sample)
        self._entries.append(case)

    def _shared_group(self, verdict: SharedVerdict) -> int:
        """A new group for the cases given ``verdict``, its case the representative."""
        representative = verdict.case
        if representative is None:
            raise ValueError("a shared verdict needs a case before cases share it")
        group = self._index[verdict] = len(self.groups)
        self.groups.append(representative)
        self.memos.append(verdict.memo)
        return group

    def items(self) -> Sequence[CaseScore | LightCase]:
        """Every case, or what builds it (:func:`built`), as a list: read by index, not copied."""
        return self._entries

    def __len__(self) -> int:
        return len(self._entries)

    @overload
    def __getitem__(self, at: int) -> CaseScore: ...

    @overload
    def __getitem__(self, at: slice) -> list[CaseScore]: ...

    def __getitem__(self, at: int | slice) -> CaseScore | list[CaseScore]:
        if isinstance(at, slice):
            return list(map(_built_case, self._entries[at]))
        return _built_case(self._entries[at])

    def __iter__(self) -> Iterator[CaseScore]:
        return map(_built_case, self._entries)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ScoredCases | list | tuple):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]
