"""Secret tokens kept only as their hash: a room's and a player's (the store), a deck's (the
deck store). One place, so both check a token the same way, in constant time."""
from __future__ import annotations

import hashlib
import hmac


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def holds(stored_hash: str | None, token: str | None) -> bool:
    """Whether ``token`` is the one whose hash was stored (False when either is missing)."""
    return bool(stored_hash and token and hmac.compare_digest(stored_hash, token_hash(token)))
