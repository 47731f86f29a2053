"""What every test shares: hypothesis runs without per-example deadlines, and slow cases run on request.

A 2-core CI machine shared with other jobs stalls now and then; a deadline would turn a slow example
into a failure that says nothing about correctness. Tests marked ``slow`` (whole real corpora, every
compiled variant, end-to-end scripts that repeat what quicker tests check) are skipped unless pytest
gets ``--slow``, as ``.ci/run`` gives it: ``bash scripts/test.sh --slow`` runs everything. Shared
strategies and paths live in ``tests/strategies.py`` and ``tests/shared_data.py`` (pytest advises
against importing conftest).
"""

from __future__ import annotations

import pytest
from hypothesis import settings

settings.register_profile("torch-bleu", deadline=None)
settings.load_profile("torch-bleu")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", help="also run the tests marked slow (CI runs them)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow: runs with --slow (bash scripts/test.sh --slow, and in CI)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
