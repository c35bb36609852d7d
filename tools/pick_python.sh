#!/bin/sh
# The interpreter `make` builds the venv with (the Makefile's PYTHON): the system's own
# python3 when it is 3.11 or newer and can make a venv, else the first python3 on PATH.
# A distribution's CPython (Debian's, Ubuntu's) is built with profile-guided optimisation
# and linked statically; a plain source build, as pyenv makes by default, is neither and
# takes ~8-20 % more CPU for the same Python (docs/performance.md, session 34).
for candidate in /usr/bin/python3 python3; do
    if "$candidate" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        command -v "$candidate"
        exit 0
    fi
done
echo python3
