"""RFC 9162 Merkle trees: the store's proofs (store.merkle) checked by the verifier's own,
independent implementation (verify/verify.py), for every size and index up to 40."""

from __future__ import annotations

import hashlib

import pytest

from lepromafia import verifier
from lepromafia.store import merkle

ENTRIES = [hashlib.sha256(str(i).encode()).digest() for i in range(40)]


def test_the_root_of_an_empty_log_is_the_hash_of_nothing() -> None:
    assert merkle.root([]) == hashlib.sha256(b"").digest()


def test_roots_match_the_recursive_definition_and_the_verifiers_one_pass_roots() -> None:
    sizes = set(range(1, len(ENTRIES) + 1))
    roots = verifier.merkle_roots(ENTRIES, sizes)
    for n in sizes:
        recursive = merkle._mth([merkle.leaf_hash(e) for e in ENTRIES[:n]])
        assert merkle.root(ENTRIES[:n]) == recursive == roots[n]


def test_every_inclusion_proof_verifies_and_a_wrong_one_does_not() -> None:
    for n in range(1, len(ENTRIES) + 1):
        entries = ENTRIES[:n]
        root = merkle.root(entries)
        batch = merkle.inclusion_proofs(entries, list(range(n)))
        for i in range(n):
            proof = merkle.inclusion_proof(entries, i)
            assert proof == batch[i]
            leaf = merkle.leaf_hash(entries[i])
            assert verifier.verify_inclusion(i, n, leaf, proof, root)
            assert not verifier.verify_inclusion(i, n, merkle.leaf_hash(b"forged"), proof, root)
            if proof:
                bent = [proof[0][:-1] + bytes([proof[0][-1] ^ 1]), *proof[1:]]
                assert not verifier.verify_inclusion(i, n, leaf, bent, root)
            if n > 1:
                assert not verifier.verify_inclusion((i + 1) % n, n, leaf, proof, root) or \
                    entries[(i + 1) % n] == entries[i]


@pytest.mark.parametrize("new", [1, 2, 3, 7, 8, 9, 16, 17, 31, 40])
def test_consistency_proofs_verify_between_any_two_sizes_and_catch_a_rewrite(new: int) -> None:
    entries = ENTRIES[:new]
    new_root = merkle.root(entries)
    for old in range(1, new + 1):
        old_root = merkle.root(entries[:old])
        proof = merkle.consistency_proof(entries, old)
        assert proof == verifier.consistency_proof(entries, old)
        assert verifier.verify_consistency(old, new, old_root, new_root, proof)
        rewritten = [hashlib.sha256(b"rewritten").digest(), *entries[1:]]
        assert not verifier.verify_consistency(old, new, old_root, merkle.root(rewritten),
                                               merkle.consistency_proof(rewritten, old))


def test_the_frontier_gives_the_same_root_after_every_append() -> None:
    frontier = merkle.Frontier()
    for n, entry in enumerate(ENTRIES, start=1):
        frontier.append(entry)
        assert frontier.size == n
        assert frontier.root() == merkle.root(ENTRIES[:n])
