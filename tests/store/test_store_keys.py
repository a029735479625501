from __future__ import annotations

import pytest
from sqlalchemy import text

from tests.store.conftest import NOW
from trustprobe.errors import InputError
from trustprobe.store import Scope, TrustStore, authenticate, create_api_key, parse_scopes


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
    key = create_api_key(store, organisation="acme", scopes=frozenset({Scope.READ}), now=NOW).key
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE api_keys SET revoked_at = created_at"))
    assert authenticate(store, key) is None


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
