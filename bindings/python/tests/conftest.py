"""Shared fixtures: the `moulin` program and tables solved up to five a side."""

import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def moulin_bin() -> pathlib.Path:
    """The `moulin` program: $MOULIN_BIN, else target/release/moulin of the repository."""
    path = pathlib.Path(os.environ.get("MOULIN_BIN", REPO / "target" / "release" / "moulin"))
    if not path.is_file():
        pytest.fail(f"no moulin program at {path}: `cargo build --release -p moulin` or set MOULIN_BIN")
    return path


@pytest.fixture(scope="session")
def tables(moulin_bin, tmp_path_factory) -> pathlib.Path:
    """The moving-phase tables up to five stones a side, solved once per session."""
    directory = tmp_path_factory.mktemp("tables")
    subprocess.run(
        [moulin_bin, "solve", "--max-stones", "5", "-q", "--dir", directory],
        check=True,
    )
    return directory
