# SPDX-License-Identifier: MIT
"""Shared fixtures of the equivalence gate: the tree's programs, small
generated days (t2t-genday), and t2t importable from python/."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, "build")
sys.path.insert(0, os.path.join(ROOT, "python"))


def prog(name):
    path = os.path.join(BUILD, name)
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is missing: run make first")
    return path


def run(*args, check=True):
    """A program of the tree; its CompletedProcess (text)."""
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if check and p.returncode != 0:
        pytest.fail(f"{' '.join(map(str, args))}: exit {p.returncode}: {p.stderr[-2000:]}")
    return p


@pytest.fixture(scope="session")
def days(tmp_path_factory):
    """Three small generated days (gzip) and one of them plain."""
    d = tmp_path_factory.mktemp("days")
    gen = prog("t2t-genday")
    out = []
    for seed in (1, 2, 3):
        path = d / f"2026010{seed}.gz"
        run(gen, "--messages", 150000, "--symbols", 6, "--seed", seed, "--gzip", "-q", "-o", path)
        out.append(str(path))
    plain = d / "plain.bin"
    run(gen, "--messages", 150000, "--symbols", 6, "--seed", 1, "-q", "-o", plain)
    return {"gz": out, "plain": str(plain)}
