"""The authorization server's memory: clients, consent requests, codes, grants and tokens in one SQLite file.

Blocking; the provider runs these in a worker thread. The service and the `zwave-mcp clients` /
`passphrase` commands open the same file from two processes, so it is opened as the history store is
(WAL, a busy timeout) and every change that reads before it writes runs under `BEGIN IMMEDIATE`: a refresh
token is used once even when two requests race, and a revocation from the command line is seen by the
service's next call (nothing is cached).

Secrets are kept only as hashes: codes, access and refresh tokens, consent request ids and their CSRF
values by SHA-256 (they are random, 256 bits: a fast hash cannot be reversed), the passphrase by scrypt
(`passphrase.py`). The one exception is a confidential client's `client_secret`: the SDK's client
authenticator compares it as stored, so it is kept as registered; alone it grants nothing (every token
needs a PKCE-bound code or a refresh token, both hashed).

A grant is one approval of one client (its scopes and audience); its tokens die with it. Ending a grant
(revocation, a refresh token used twice, a code used twice, `zwave-mcp clients revoke`) deletes its tokens.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zwave_mcp.history.store import transaction

FILE_NAME = "auth.sqlite3"
SCHEMA_VERSION = "1"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS clients(
    client_id TEXT PRIMARY KEY, name TEXT NOT NULL, info TEXT NOT NULL, registered_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS pending(
    hash TEXT PRIMARY KEY, csrf_hash TEXT NOT NULL, client_id TEXT NOT NULL, params TEXT NOT NULL,
    expires_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS codes(
    hash TEXT PRIMARY KEY, client_id TEXT NOT NULL, scopes TEXT NOT NULL, resource TEXT NOT NULL,
    challenge TEXT NOT NULL, redirect_uri TEXT NOT NULL, explicit INTEGER NOT NULL, expires_at REAL NOT NULL,
    grant_id INTEGER);
CREATE TABLE IF NOT EXISTS grants(
    id INTEGER PRIMARY KEY, client_id TEXT NOT NULL, scopes TEXT NOT NULL, resource TEXT NOT NULL,
    created_at REAL NOT NULL, last_used REAL);
CREATE TABLE IF NOT EXISTS tokens(
    hash TEXT PRIMARY KEY, kind TEXT NOT NULL, grant_id INTEGER NOT NULL, scopes TEXT NOT NULL,
    expires_at REAL NOT NULL, used_at REAL);
CREATE INDEX IF NOT EXISTS tokens_grant ON tokens(grant_id);
"""
ACCESS, REFRESH = "access", "refresh"
MAX_PENDING = 200  # consent requests waiting for the person (/authorize needs no credentials)
# A used refresh token is remembered this long: used again within it, it ends its grant (after it, it is
# only refused), so a grant refreshed every quarter of an hour for months keeps a bounded number of rows.
REUSE_KEPT_S = 24 * 3600
# A grant's `last_used` is written at most this often (every call reads a token; not every call writes).
LAST_USED_EVERY_S = 60.0


def digest(secret: str) -> str:
    """How a random secret (a code, a token, a request id) is kept and looked up."""
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class TokenRow:
    kind: str
    grant_id: int
    client_id: str
    scopes: list[str]
    resource: str
    expires_at: float
    used_at: float | None


@dataclass(frozen=True)
class CodeRow:
    client_id: str
    scopes: list[str]
    resource: str
    challenge: str
    redirect_uri: str
    explicit: bool
    expires_at: float
    grant_id: int | None


@dataclass(frozen=True)
class ApprovedClient:
    """A client with at least one live grant, as `zwave-mcp clients` lists it."""

    client_id: str
    name: str
    scopes: list[str]
    approved_at: float
    last_used: float | None


class AuthStore:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        # Only the user who runs the service reads who may connect (SQLite gives its -wal and -shm files
        # the database's own permissions).
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        self._conn = sqlite3.connect(str(path), timeout=5.0, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.executescript(SCHEMA)
        with self._write() as c:
            c.execute("INSERT OR IGNORE INTO meta VALUES('schema', ?)", (SCHEMA_VERSION,))

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken before it reads: two processes never both pass a check."""
        with self._lock, transaction(self._conn, "BEGIN IMMEDIATE") as conn:
            yield conn

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    # The passphrase (its scrypt hash) and other single values.
    def get_meta(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM meta WHERE key=?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self._write() as c:
            c.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (key, value))

    # Clients.
    def add_client(self, client_id: str, name: str, info: dict[str, Any], now: float) -> None:
        with self._write() as c:
            c.execute("INSERT INTO clients VALUES(?, ?, ?, ?)", (client_id, name, json.dumps(info), now))

    def client_info(self, client_id: str) -> dict[str, Any] | None:
        rows = self._read("SELECT info FROM clients WHERE client_id=?", (client_id,))
        return json.loads(rows[0][0]) if rows else None

    def forget_unapproved_clients(self, older_than: float) -> int:
        """Registrations nobody approved (dynamic registration needs no credentials): dropped after a while."""
        with self._write() as c:
            return c.execute(
                "DELETE FROM clients WHERE registered_at < ? AND client_id NOT IN (SELECT client_id FROM grants)"
                " AND client_id NOT IN (SELECT client_id FROM codes)",
                (older_than,),
            ).rowcount

    def unapproved_clients(self) -> int:
        return int(
            self._read("SELECT count(*) FROM clients WHERE client_id NOT IN (SELECT client_id FROM grants)")[
                0
            ][0]
        )

    # Consent requests: made by /authorize, answered once by the consent page.
    def add_pending(
        self, request_id: str, client_id: str, params: dict[str, Any], now: float, expires_at: float
    ) -> None:
        """A new consent request; expired ones go, and past `MAX_PENDING` the oldest (anyone may ask)."""
        with self._write() as c:
            c.execute("DELETE FROM pending WHERE expires_at < ?", (now,))
            c.execute(
                "DELETE FROM pending WHERE hash IN (SELECT hash FROM pending ORDER BY expires_at DESC LIMIT -1 OFFSET ?)",
                (MAX_PENDING - 1,),
            )
            c.execute(
                "INSERT INTO pending VALUES(?, '', ?, ?, ?)",
                (digest(request_id), client_id, json.dumps(params), expires_at),
            )

    def pending(self, request_id: str, now: float) -> tuple[str, str, dict[str, Any]] | None:
        """(CSRF hash, client id, params) of a live consent request."""
        rows = self._read(
            "SELECT csrf_hash, client_id, params FROM pending WHERE hash=? AND expires_at >= ?",
            (digest(request_id), now),
        )
        return (rows[0][0], rows[0][1], json.loads(rows[0][2])) if rows else None

    def set_csrf(self, request_id: str, csrf: str) -> None:
        """The page shown now carries this CSRF value (a page shown earlier no longer counts)."""
        with self._write() as c:
            c.execute("UPDATE pending SET csrf_hash=? WHERE hash=?", (digest(csrf), digest(request_id)))

    def take_pending(self, request_id: str) -> bool:
        """The request is answered: True for the one caller that took it."""
        with self._write() as c:
            return c.execute("DELETE FROM pending WHERE hash=?", (digest(request_id),)).rowcount == 1

    # Codes.
    def add_code(self, code: str, row: CodeRow) -> None:
        with self._write() as c:
            c.execute("DELETE FROM codes WHERE expires_at < ?", (row.expires_at - 3600,))
            c.execute(
                "INSERT INTO codes VALUES(?, ?, ?, ?, ?, ?, ?, ?, NULL)",
                (
                    digest(code),
                    row.client_id,
                    " ".join(row.scopes),
                    row.resource,
                    row.challenge,
                    row.redirect_uri,
                    int(row.explicit),
                    row.expires_at,
                ),
            )

    def code(self, code: str) -> CodeRow | None:
        rows = self._read(
            "SELECT client_id, scopes, resource, challenge, redirect_uri, explicit, expires_at, grant_id"
            " FROM codes WHERE hash=?",
            (digest(code),),
        )
        if not rows:
            return None
        cid, scopes, resource, challenge, uri, explicit, expires, grant = rows[0]
        return CodeRow(cid, scopes.split(), resource, challenge, uri, bool(explicit), expires, grant)

    def grant_from_code(
        self, code: str, now: float, tokens: list[tuple[str, str, list[str], float]]
    ) -> int | None:
        """The code's grant, made with its first tokens ((secret, kind, scopes, expiry) each); None when the
        code was used before, and then the grant it made ends (RFC 6749 §4.1.2: a code is used once)."""
        with self._write() as c:
            row = c.execute(
                "SELECT client_id, scopes, resource, grant_id FROM codes WHERE hash=?", (digest(code),)
            ).fetchone()
            if row is None:
                return None
            client_id, scopes, resource, used_by = row
            if used_by is not None:
                _end_grant(c, used_by)
                return None
            grant = c.execute(
                "INSERT INTO grants(client_id, scopes, resource, created_at, last_used) VALUES(?, ?, ?, ?, ?)",
                (client_id, scopes, resource, now, now),
            ).lastrowid
            assert grant is not None
            c.execute("UPDATE codes SET grant_id=? WHERE hash=?", (grant, digest(code)))
            _add_tokens(c, grant, tokens)
            return grant

    # Tokens.
    def token(self, secret: str, kind: str) -> TokenRow | None:
        rows = self._read(
            "SELECT t.kind, t.grant_id, g.client_id, t.scopes, g.resource, t.expires_at, t.used_at"
            " FROM tokens t JOIN grants g ON g.id = t.grant_id WHERE t.hash=? AND t.kind=?",
            (digest(secret), kind),
        )
        if not rows:
            return None
        kind, grant, cid, scopes, resource, expires, used = rows[0]
        return TokenRow(kind, grant, cid, scopes.split(), resource, expires, used)

    def rotate(self, refresh: str, now: float, tokens: list[tuple[str, str, list[str], float]]) -> bool:
        """Use a refresh token once for new tokens; False (and the grant ended) when it was used before."""
        with self._write() as c:
            row = c.execute(
                "SELECT grant_id, used_at FROM tokens WHERE hash=? AND kind=?", (digest(refresh), REFRESH)
            ).fetchone()
            if row is None:
                return False
            grant, used = row
            if used is not None:
                _end_grant(c, grant)
                return False
            c.execute("UPDATE tokens SET used_at=? WHERE hash=?", (now, digest(refresh)))
            # The grant's earlier access tokens go: at most one live access token a grant.
            c.execute("DELETE FROM tokens WHERE grant_id=? AND kind=?", (grant, ACCESS))
            c.execute(
                "DELETE FROM tokens WHERE grant_id=? AND kind=? AND (expires_at < ? OR used_at < ?)",
                (grant, REFRESH, now, now - REUSE_KEPT_S),
            )
            _add_tokens(c, grant, tokens)
            return True

    def end_grant(self, grant_id: int) -> None:
        with self._write() as c:
            _end_grant(c, grant_id)

    def touch(self, grant_id: int, now: float) -> None:
        """The grant was used now (written at most once a minute)."""
        with self._write() as c:
            c.execute(
                "UPDATE grants SET last_used=? WHERE id=? AND (last_used IS NULL OR last_used < ?)",
                (now, grant_id, now - LAST_USED_EVERY_S),
            )

    # What `zwave-mcp clients` shows and ends.
    def approved(self) -> list[ApprovedClient]:
        rows = self._read(
            "SELECT c.client_id, c.name, group_concat(g.scopes, ' '), min(g.created_at), max(g.last_used)"
            " FROM clients c JOIN grants g ON g.client_id = c.client_id GROUP BY c.client_id"
            " ORDER BY lower(c.name), min(g.created_at)"
        )
        return [
            ApprovedClient(cid, name, sorted(set(scopes.split())), approved, used)
            for cid, name, scopes, approved, used in rows
        ]

    def revoke_client(self, client_id: str) -> None:
        """The client is forgotten: its grants end and its registration goes (it must register again)."""
        with self._write() as c:
            for (grant,) in c.execute("SELECT id FROM grants WHERE client_id=?", (client_id,)).fetchall():
                _end_grant(c, grant)
            c.execute("DELETE FROM codes WHERE client_id=?", (client_id,))
            c.execute("DELETE FROM pending WHERE client_id=?", (client_id,))
            c.execute("DELETE FROM clients WHERE client_id=?", (client_id,))


def _add_tokens(c: sqlite3.Connection, grant: int, tokens: list[tuple[str, str, list[str], float]]) -> None:
    c.executemany(
        "INSERT INTO tokens VALUES(?, ?, ?, ?, ?, NULL)",
        [
            (digest(secret), kind, grant, " ".join(scopes), expires)
            for secret, kind, scopes, expires in tokens
        ],
    )


def _end_grant(c: sqlite3.Connection, grant: int) -> None:
    c.execute("DELETE FROM tokens WHERE grant_id=?", (grant,))
    c.execute("DELETE FROM grants WHERE id=?", (grant,))
