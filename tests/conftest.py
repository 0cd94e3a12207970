import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"


@pytest.fixture(autouse=True)
def _run_from_repository_root(monkeypatch):
    # configs name their data relative to the repository root, as a user runs them
    monkeypatch.chdir(ROOT)
    yield
