"""domain.merkle: Certificate Transparency's trees (RFC 6962), checked against the RFC's recursive
definition and by proofs over random trees."""

from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from domain import merkle

leaves_data = st.lists(st.binary(max_size=8), min_size=1, max_size=70)


def rfc_root(data: list[bytes]) -> bytes:
    """MTH exactly as RFC 6962 section 2.1 writes it."""
    if not data:
        return hashlib.sha256(b"").digest()
    if len(data) == 1:
        return hashlib.sha256(b"\x00" + data[0]).digest()
    k = 1
    while k * 2 < len(data):
        k *= 2
    return hashlib.sha256(b"\x01" + rfc_root(data[:k]) + rfc_root(data[k:])).digest()


def hashed(data: list[bytes]) -> list[bytes]:
    return [merkle.leaf_hash(d) for d in data]


@given(leaves_data)
def test_the_root_is_rfc_6962s(data):
    assert merkle.root(hashed(data)) == rfc_root(data)


def test_known_sizes():
    assert merkle.root([]) == hashlib.sha256(b"").digest()
    one = merkle.leaf_hash(b"a")
    assert merkle.root([one]) == one
    a, b, c = hashed([b"a", b"b", b"c"])
    assert merkle.root([a, b, c]) == merkle.node_hash(merkle.node_hash(a, b), c)


@settings(max_examples=60)
@given(leaves_data)
def test_every_leaf_of_a_tree_proves(data):
    leaves = hashed(data)
    root = merkle.root(leaves)
    for index, leaf in enumerate(leaves):
        path = merkle.inclusion_proof(index, leaves)
        assert len(path) <= max(1, len(leaves) - 1).bit_length()
        assert merkle.verify_inclusion(index, len(leaves), leaf, path, root)


@given(leaves_data, st.data())
def test_a_changed_leaf_path_index_or_root_fails(data, draw):
    leaves = hashed(data)
    root = merkle.root(leaves)
    index = draw.draw(st.integers(0, len(leaves) - 1))
    path = merkle.inclusion_proof(index, leaves)
    assert not merkle.verify_inclusion(index, len(leaves), merkle.leaf_hash(data[index] + b"!"), path, root)
    assert not merkle.verify_inclusion(index, len(leaves), leaves[index], path, merkle.leaf_hash(b"other root"))
    if path:
        step = draw.draw(st.integers(0, len(path) - 1))
        bent = path[:step] + [hashlib.sha256(path[step]).digest()] + path[step + 1:]
        assert not merkle.verify_inclusion(index, len(leaves), leaves[index], bent, root)
        assert not merkle.verify_inclusion(index, len(leaves), leaves[index], path[:-1], root)
    if len(set(leaves)) == len(leaves) and len(leaves) > 1:
        other = (index + 1) % len(leaves)
        assert not merkle.verify_inclusion(other, len(leaves), leaves[index], path, root)
    assert not merkle.verify_inclusion(len(leaves), len(leaves), leaves[index], path, root)


@settings(max_examples=80)
@given(leaves_data, st.data())
def test_consistency_between_two_sizes(data, draw):
    leaves = hashed(data)
    old = draw.draw(st.integers(1, len(leaves)))
    old_root, new_root = merkle.root(leaves[:old]), merkle.root(leaves)
    proof = merkle.consistency_proof(old, leaves)
    assert merkle.verify_consistency(old, len(leaves), old_root, new_root, proof)
    # A tree whose old part was rewritten is not consistent with the old root.
    if old < len(leaves):
        rewritten = list(leaves)
        rewritten[draw.draw(st.integers(0, old - 1))] = merkle.leaf_hash(b"rewritten")
        if rewritten[:old] != leaves[:old]:
            proof2 = merkle.consistency_proof(old, rewritten)
            assert not merkle.verify_consistency(old, len(leaves), old_root, merkle.root(rewritten), proof2)
        assert not merkle.verify_consistency(old, len(leaves), old_root, merkle.leaf_hash(b"x"), proof)
    if proof:
        bent = [hashlib.sha256(proof[0]).digest()] + proof[1:]
        assert not merkle.verify_consistency(old, len(leaves), old_root, new_root, bent)
