"""Certification tiers and the composite thresholds that award them."""

from __future__ import annotations

from enum import StrEnum


class Tier(StrEnum):
    """Certification tier, from best to none."""

    PLATINUM = "platinum"
    GOLD = "gold"
    SILVER = "silver"
    BRONZE = "bronze"
    UNRATED = "unrated"

    @property
    def rank(self) -> int:
        """Order of the tier: 0 for unrated up to 4 for platinum."""
        return _RANKS[self]


_RANKS = {
    Tier.UNRATED: 0,
    Tier.BRONZE: 1,
    Tier.SILVER: 2,
    Tier.GOLD: 3,
    Tier.PLATINUM: 4,
}
