"""Organisations and API keys: keys are random, shown once, and stored only as SHA-256."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import Connection, Row, bindparam, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from trustprobe.errors import InputError
from trustprobe.store.database import read_statement, read_transaction, write_transaction
from trustprobe.store.errors import NotFoundError
from trustprobe.store.models import ApiKeyInfo, CreatedApiKey, Principal, Scope
from trustprobe.store.schema import ApiKeyRow, OrganisationRow
from trustprobe.store.store import TrustStore

KEY_PATTERN = re.compile(r"^tp_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
ORGANISATION_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def parse_scopes(text: str) -> frozenset[Scope]:
    """Parse ``read,write,review`` into scopes; an unknown or empty list is an input error."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise InputError("give at least one scope of read, write, review", field="scopes")
    scopes = set()
    for name in names:
        try:
            scopes.add(Scope(name))
        except ValueError:
            raise InputError(
                f"unknown scope {name!r}; choose from read, write, review", field="scopes"
            ) from None
    return frozenset(scopes)


def check_organisation_name(name: str) -> str:
    """Return ``name`` if it is a valid organisation name, else raise :class:`InputError`."""
    if not ORGANISATION_PATTERN.match(name):
        raise InputError(
            "organisation names are 1-100 letters, digits, '.', '_' or '-', starting with a "
            f"letter or digit; got {name!r}",
            field="org",
        )
    return name


def ensure_organisation(connection: Connection, name: str, *, now: datetime) -> int:
    """Return the id of organisation ``name``, creating it if needed (safe under concurrency)."""
    check_organisation_name(name)
    dialect = connection.dialect.name
    values = {"name": name, "created_at": now}
    if dialect == "postgresql":
        connection.execute(
            postgresql.insert(OrganisationRow).values(values).on_conflict_do_nothing()
        )
    else:
        connection.execute(sqlite.insert(OrganisationRow).values(values).on_conflict_do_nothing())
    found = connection.execute(select(OrganisationRow.id).where(OrganisationRow.name == name))
    return found.scalar_one()


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def create_api_key(
    store: TrustStore,
    *,
    organisation: str,
    scopes: frozenset[Scope],
    now: datetime,
    label: str | None = None,
) -> CreatedApiKey:
    """Make a key for ``organisation`` (created if new); the plain key exists only in the result."""
    prefix = secrets.token_hex(6)
    key = f"tp_{prefix}_{secrets.token_urlsafe(32)}"
    scope_text = ",".join(sorted(scope.value for scope in scopes))
    with write_transaction(store.engine) as connection:
        organisation_id = ensure_organisation(connection, organisation, now=now)
        key_id = connection.execute(
            insert(ApiKeyRow).returning(ApiKeyRow.id),
            {
                "organisation_id": organisation_id,
                "prefix": prefix,
                "key_sha256": _digest(key),
                "scopes": scope_text,
                "label": label,
                "created_at": now,
            },
        ).scalar_one()
    info = ApiKeyInfo(
        id=key_id,
        prefix=prefix,
        organisation=organisation,
        scopes=sorted(scopes),
        label=label,
        created_at=now,
    )
    return CreatedApiKey(key=key, info=info)


def _info_query() -> Any:
    """Select what :func:`_info` reads: everything of a key but its hash."""
    return select(
        ApiKeyRow.id,
        ApiKeyRow.prefix,
        OrganisationRow.name,
        ApiKeyRow.scopes,
        ApiKeyRow.label,
        ApiKeyRow.created_at,
        ApiKeyRow.revoked_at,
    ).join(OrganisationRow, OrganisationRow.id == ApiKeyRow.organisation_id)


def _info(row: Row[Any]) -> ApiKeyInfo:
    return ApiKeyInfo(
        id=row.id,
        prefix=row.prefix,
        organisation=row.name,
        scopes=sorted(Scope(s) for s in row.scopes.split(",")),
        label=row.label,
        created_at=row.created_at,
        revoked_at=row.revoked_at,
    )


def list_api_keys(store: TrustStore, *, organisation: str | None = None) -> list[ApiKeyInfo]:
    """Every key (of ``organisation`` when given), oldest first; never the key or its hash."""
    query = _info_query()
    if organisation is not None:
        query = query.where(OrganisationRow.name == organisation)
    with read_transaction(store.engine) as connection:
        return [_info(row) for row in connection.execute(query.order_by(ApiKeyRow.id))]


def revoke_api_key(store: TrustStore, key_id: int, *, now: datetime) -> tuple[ApiKeyInfo, bool]:
    """Revoke key ``key_id`` as of ``now``; returns the key and whether this call revoked it.

    Revoking a revoked key changes nothing (it keeps its first revocation time). The service
    refuses the key from its next lookup (``authenticate``); see its auth cache.

    Raises:
        NotFoundError: no key has this id.
    """
    with write_transaction(store.engine) as connection:
        revoked = connection.execute(
            update(ApiKeyRow)
            .where(ApiKeyRow.id == key_id, ApiKeyRow.revoked_at.is_(None))
            .values(revoked_at=now)
        ).rowcount
        row = connection.execute(_info_query().where(ApiKeyRow.id == key_id)).first()
    if row is None:
        raise NotFoundError(f"no API key with id {key_id}")
    return _info(row), revoked == 1


@cache
def _key_statement() -> Any:
    """Build the key lookup once: it runs on every API request."""
    return (
        select(
            ApiKeyRow.id,
            ApiKeyRow.prefix,
            ApiKeyRow.organisation_id,
            ApiKeyRow.key_sha256,
            ApiKeyRow.scopes,
            ApiKeyRow.revoked_at,
            OrganisationRow.name,
        )
        .join(OrganisationRow, OrganisationRow.id == ApiKeyRow.organisation_id)
        .where(ApiKeyRow.prefix == bindparam("prefix"))
    )


def authenticate(store: TrustStore, key: str) -> Principal | None:
    """Return the principal a key stands for, or ``None`` for an unknown or revoked key."""
    match = KEY_PATTERN.match(key)
    if match is None:
        return None
    row = read_statement(store.engine, _key_statement(), {"prefix": match.group(1)})
    if row is None:
        return None
    # Constant-time comparison so response timing says nothing about how much of a key matched.
    if not hmac.compare_digest(row.key_sha256, _digest(key)) or row.revoked_at is not None:
        return None
    return Principal(
        key_id=row.id,
        key_prefix=row.prefix,
        organisation_id=row.organisation_id,
        organisation=row.name,
        scopes=frozenset(Scope(s) for s in row.scopes.split(",")),
    )
