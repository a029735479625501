from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import text

from tests.store.conftest import NOW
from trustprobe.errors import InputError
from trustprobe.store import (
    NotFoundError,
    Scope,
    TrustStore,
    authenticate,
    create_api_key,
    list_api_keys,
    parse_scopes,
    revoke_api_key,
)


def test_keys_are_stored_hashed_and_authenticate(store: TrustStore) -> None:
    created = create_api_key(
        store, organisation="acme", scopes=frozenset({Scope.READ, Scope.WRITE}), now=NOW
    )
    key = created.key
    assert key.startswith(f"tp_{created.info.prefix}_")
    with store.engine.connect() as connection:
        stored = connection.execute(text("SELECT * FROM api_keys")).mappings().one()
    assert key not in {str(v) for v in stored.values()}
    assert stored["prefix"] == created.info.prefix
    assert stored["scopes"] == "read,write"

    principal = authenticate(store, key)
    assert principal is not None
    assert principal.organisation == "acme"
    assert principal.scopes == frozenset({Scope.READ, Scope.WRITE})
    assert principal.actor == f"key:{created.info.prefix}"


def test_wrong_tampered_and_malformed_keys_do_not_authenticate(store: TrustStore) -> None:
    key = create_api_key(store, organisation="acme", scopes=frozenset({Scope.READ}), now=NOW).key
    tampered = key[:-1] + ("A" if key[-1] != "A" else "B")
    other_prefix = "tp_000000000000_" + key.split("_", 2)[2]
    for bad in (tampered, other_prefix, "", "Bearer " + key, key + "x", "tp_short"):
        assert authenticate(store, bad) is None


def test_revoked_keys_do_not_authenticate(store: TrustStore) -> None:
    created = create_api_key(store, organisation="acme", scopes=frozenset({Scope.READ}), now=NOW)
    other = create_api_key(store, organisation="acme", scopes=frozenset({Scope.READ}), now=NOW)
    later = NOW + timedelta(days=1)
    info, revoked = revoke_api_key(store, created.info.id, now=later)
    assert revoked
    assert info == created.info.model_copy(update={"revoked_at": later})
    assert authenticate(store, created.key) is None
    assert authenticate(store, other.key) is not None  # only the key revoked


def test_revoking_twice_keeps_the_first_revocation(store: TrustStore) -> None:
    key_id = create_api_key(
        store, organisation="acme", scopes=frozenset({Scope.READ}), now=NOW
    ).info.id
    revoke_api_key(store, key_id, now=NOW + timedelta(hours=1))
    info, revoked = revoke_api_key(store, key_id, now=NOW + timedelta(hours=2))
    assert not revoked
    assert info.revoked_at == NOW + timedelta(hours=1)


def test_revoking_an_unknown_key_is_not_found(store: TrustStore) -> None:
    with pytest.raises(NotFoundError, match="no API key with id 41"):
        revoke_api_key(store, 41, now=NOW)


def test_keys_are_listed_oldest_first_without_secrets(store: TrustStore) -> None:
    made = [
        create_api_key(
            store,
            organisation=organisation,
            scopes=frozenset(scopes),
            now=NOW + timedelta(minutes=n),
            label=label,
        )
        for n, (organisation, scopes, label) in enumerate(
            [
                ("acme", {Scope.WRITE, Scope.READ}, "ingest"),
                ("globex", {Scope.REVIEW}, None),
                ("acme", {Scope.REVIEW}, "ana"),
            ]
        )
    ]
    revoke_api_key(store, made[0].info.id, now=NOW + timedelta(hours=1))
    listed = list_api_keys(store)
    assert listed == [
        made[0].info.model_copy(update={"revoked_at": NOW + timedelta(hours=1)}),
        made[1].info,
        made[2].info,
    ]
    assert [k.scopes for k in listed] == [[Scope.READ, Scope.WRITE], [Scope.REVIEW], [Scope.REVIEW]]
    assert list_api_keys(store, organisation="acme") == [listed[0], listed[2]]
    assert list_api_keys(store, organisation="initech") == []
    with store.engine.connect() as connection:
        digests = connection.execute(text("SELECT key_sha256 FROM api_keys")).scalars().all()
    dumped = str([k.model_dump() for k in listed])
    assert not [secret for secret in [*digests, *(m.key for m in made)] if secret in dumped]


@pytest.mark.parametrize(
    ("text_", "expected"),
    [
        ("read", {Scope.READ}),
        ("read,write,review", {Scope.READ, Scope.WRITE, Scope.REVIEW}),
        (" review , read ", {Scope.READ, Scope.REVIEW}),
    ],
    ids=["one", "all", "spaces"],
)
def test_parse_scopes(text_: str, expected: set[Scope]) -> None:
    assert parse_scopes(text_) == frozenset(expected)


@pytest.mark.parametrize("text_", ["", ",", "admin", "read,admin"], ids=str)
def test_bad_scopes_name_the_field(text_: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_scopes(text_)
    assert caught.value.field == "scopes"


@pytest.mark.parametrize("name", ["", "a b", "-lead", "x" * 101, "ünï"], ids=repr)
def test_bad_organisation_names_are_refused(store: TrustStore, name: str) -> None:
    with pytest.raises(InputError) as caught:
        create_api_key(store, organisation=name, scopes=frozenset({Scope.READ}), now=NOW)
    assert caught.value.field == "org"
