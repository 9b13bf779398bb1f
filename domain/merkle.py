"""Merkle trees as Certificate Transparency builds them (RFC 6962, RFC 9162 section 2.1).

A tree over n leaves hashes each leaf as ``SHA-256(0x00 || data)`` and each inner node as
``SHA-256(0x01 || left || right)`` (the prefixes keep a leaf from passing for a node); the
left subtree of n > 1 leaves holds the largest power of two below n. An inclusion proof (audit
path) shows that a leaf is in a tree of known root with log2(n) hashes; a consistency proof
shows that a tree of m leaves is a prefix of a tree of n leaves: nothing sealed was rewritten.

Hashes are raw bytes here; callers show them as hex.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two below n (n > 1): the size of the left subtree."""
    return 1 << ((n - 1).bit_length() - 1)


def root(leaves: Sequence[bytes]) -> bytes:
    """The root of the tree over these leaf hashes (``leaf_hash`` of each datum)."""
    if not leaves:
        return EMPTY_ROOT
    level = list(leaves)
    # Bottom-up pairing gives the same tree as RFC 6962's top-down split: an odd node out is
    # carried up unchanged, and it is always the rightmost.
    while len(level) > 1:
        paired = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    """The audit path of leaf ``index`` in the tree over ``leaves`` (RFC 6962 PATH), leaf first."""
    if not 0 <= index < len(leaves):
        raise ValueError(f"leaf {index} is not in a tree of {len(leaves)} leaves")
    if len(leaves) == 1:
        return []
    k = _split(len(leaves))
    if index < k:
        return inclusion_proof(index, leaves[:k]) + [root(leaves[k:])]
    return inclusion_proof(index - k, leaves[k:]) + [root(leaves[:k])]


def verify_inclusion(index: int, size: int, leaf: bytes, path: Sequence[bytes], expected_root: bytes) -> bool:
    """Whether ``path`` proves that ``leaf`` (a leaf hash) is leaf ``index`` of the tree of
    ``size`` leaves whose root is ``expected_root`` (RFC 9162 2.1.3.2)."""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == expected_root


def consistency_proof(old_size: int, leaves: Sequence[bytes]) -> list[bytes]:
    """The proof that the tree of the first ``old_size`` leaves is a prefix of the tree over
    all of ``leaves`` (RFC 6962 PROOF)."""
    if not 0 < old_size <= len(leaves):
        raise ValueError(f"no consistency proof from {old_size} to {len(leaves)} leaves")
    return _subproof(old_size, leaves, True)


def _subproof(m: int, leaves: Sequence[bytes], complete: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if complete else [root(leaves)]
    k = _split(n)
    if m <= k:
        return _subproof(m, leaves[:k], complete) + [root(leaves[k:])]
    return _subproof(m - k, leaves[k:], False) + [root(leaves[:k])]


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes,
                       proof: Sequence[bytes]) -> bool:
    """Whether ``proof`` shows that the tree of ``old_size`` leaves with ``old_root`` is a prefix
    of the tree of ``new_size`` leaves with ``new_root`` (RFC 9162 2.1.4.2)."""
    if not 0 < old_size <= new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    path = list(proof)
    if old_size & (old_size - 1) == 0:  # a power of two: the old root is a node of the new tree
        path.insert(0, old_root)
    if not path:
        return False
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and fr == old_root and sr == new_root
