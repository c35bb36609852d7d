"""Run this checkout's tests against an older tree of the project: the red half of "fails
on the review's commit, passes on main" (issue 16, docs/security.md).

    python tools/old_tree_tests.py --tree PATH tests/security/test_headers.py [...]

The named test files are copied into ``PATH/tests/_ported/`` (with the security tests'
``conftest.py``), run by ``PATH``'s own virtualenv against ``PATH``'s sources, and the
copy is removed again; each test's outcome and its first error line are printed. An
import the older tree does not have is bridged by the minimal ports below (each says what
the older tree did instead), so that the other tests of a file still run. ``PATH`` is
meant to be a throwaway worktree (``git worktree add --detach PATH ab24af1``).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

PORTS: dict[str, list[tuple[str, str]]] = {
    "test_slow_clients.py": [(
        "from lepromafia.cli.serve_cmd import server_config\n",
        "try:\n    from lepromafia.cli.serve_cmd import server_config\n"
        "except ImportError:  # ab24af1 served with uvicorn's defaults (`uvicorn.run(app, host, port)`)\n"
        "    def server_config(app, host, port, **options):  # type: ignore[no-redef]\n"
        "        options.pop('header_timeout', None), options.pop('max_connections', None)\n"
        "        return uvicorn.Config(app, host=host, port=port, **options)\n",
    ), (
        "    from lepromafia.web.ws.endpoint import ADMITTED\n",
        "    ADMITTED = 8  # ab24af1 had no admission gate: as many stalled sockets as main's\n",
    )],
    "test_abuse_limits.py": [(
        "from lepromafia.service.accounts import AccountError, AccountErrorCode, AccountService, "
        "check_password\n",
        "from lepromafia.service.accounts import AccountError, AccountErrorCode, AccountService\n"
        "try:\n    from lepromafia.service.accounts import check_password\n"
        "except ImportError:  # ab24af1 had no strength check (MIN_PASSWORD = 8 only)\n"
        "    check_password = None  # type: ignore[assignment]\n",
    ), (
        "from lepromafia.web.i18n import error_message\n",
        "try:\n    from lepromafia.web.i18n import error_message\n"
        "except ImportError:  # ab24af1's errors carried their own message\n"
        "    def error_message(lang, err):  # type: ignore[no-redef]\n"
        "        return err.message(lang)\n",
    )],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("tests", nargs="+", help="test files of this checkout (tests/…/test_x.py)")
    parser.add_argument("-k", default=None, help="pytest -k expression")
    parser.add_argument("--log", type=Path, default=None, help="write pytest's whole output here")
    args = parser.parse_args()
    tree = args.tree.resolve()
    python = tree / ".venv" / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"{python} is missing: run `make install` in {tree}")
    target = tree / "tests" / "_ported"
    if target.exists():
        raise SystemExit(f"{target} exists: remove it first")
    target.mkdir()
    try:
        (target / "__init__.py").write_text("")
        shutil.copy(HERE / "tests" / "security" / "conftest.py", target / "conftest.py")
        for name in args.tests:
            source = (HERE / name).read_text(encoding="utf-8")
            for old, new in PORTS.get(Path(name).name, []):
                source = source.replace(old, new)
            (target / Path(name).name).write_text(source, encoding="utf-8")
        command = [str(python), "-m", "pytest", "-q", "-rA", "--tb=short", "-p", "no:warnings",
                   "-p", "no:cacheprovider", "--continue-on-collection-errors", "tests/_ported"]
        if args.k:
            command += ["-k", args.k]
        done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False,  # noqa: S603
                              timeout=1200)
    finally:
        shutil.rmtree(target, ignore_errors=True)
    if args.log:
        args.log.write_text(done.stdout + done.stderr, encoding="utf-8")
    outcome = re.compile(r"^(PASSED|FAILED|ERROR) (tests/_ported/\S+)(?: - (.*))?$")
    for line in done.stdout.splitlines():
        found = outcome.match(line)
        if found:
            sys.stdout.write(f"{found.group(1):6} {found.group(2).removeprefix('tests/_ported/')}"
                             f"{'  — ' + found.group(3)[:300] if found.group(3) else ''}\n")
    sys.stdout.write(done.stdout.splitlines()[-1] + "\n" if done.stdout else done.stderr[-2000:])


if __name__ == "__main__":
    main()
