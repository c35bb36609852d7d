"""verify/verify.py is one standard-library-only file, and the package ships it unchanged."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lepromafia import verifier

ROOT = Path(__file__).resolve().parents[2]
STANDALONE = ROOT / "verify" / "verify.py"
PACKAGED = ROOT / "src" / "lepromafia" / "verifier.py"


def test_the_standalone_verifier_imports_only_the_standard_library() -> None:
    tree = ast.parse(STANDALONE.read_text(encoding="utf-8"))
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "no relative imports in a single file"
            modules.add((node.module or "").split(".")[0])
    outside = {m for m in modules if m not in sys.stdlib_module_names and m != "__future__"}
    assert modules and not outside, f"imports outside the standard library: {outside}"


def test_the_package_ships_the_same_file() -> None:
    """One file, not a copy: the package's module is a link to verify/verify.py (a wheel holds
    its content)."""
    assert PACKAGED.is_symlink() and PACKAGED.resolve() == STANDALONE.resolve()
    assert Path(verifier.__file__).resolve() == STANDALONE.resolve()


def test_the_pure_python_ed25519_check_agrees_with_cryptography() -> None:
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes_raw()
    for message in (b"", b"tree head", bytes(range(256))):
        signature = key.sign(message)
        assert verifier.ed25519_verify(public, message, signature)
        assert not verifier.ed25519_verify(public, message + b"!", signature)
        bent = bytes([signature[0] ^ 1]) + signature[1:]
        assert not verifier.ed25519_verify(public, message, bent)
    other = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    assert not verifier.ed25519_verify(other, b"tree head", key.sign(b"tree head"))


def test_rfc_8032_test_vector_1() -> None:
    public = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    signature = bytes.fromhex(
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46b"
        "d25bf5f0595bbe24655141438e7a100b")
    assert verifier.ed25519_verify(public, b"", signature)
