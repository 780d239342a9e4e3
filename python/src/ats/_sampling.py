"""Whole-session sampling: the same session id is always in or always out, in every process and in both clients
(the TypeScript client hashes the same way)."""

from __future__ import annotations


def session_hash_fraction(session_id: str) -> float:
    """FNV-1a over the id's UTF-16 code units, as a fraction in [0, 1)."""
    value = 0x811C9DC5
    data = session_id.encode("utf-16-le", "surrogatepass")
    for index in range(0, len(data), 2):
        value ^= data[index] | (data[index + 1] << 8)
        value = (value * 0x01000193) & 0xFFFFFFFF
    return value / 0x1_0000_0000


def is_sampled(session_id: str, sample_rate: float) -> bool:
    """Whether a session is recorded at ``sample_rate`` (1 records all, 0 none)."""
    if sample_rate >= 1:
        return True
    if sample_rate <= 0:
        return False
    return session_hash_fraction(session_id) < sample_rate
