"""What every test shares: hypothesis runs without per-example deadlines, and slow cases run on request.

A 2-core CI machine shared with other jobs stalls now and then; a deadline would turn a slow example
into a failure that says nothing about correctness. Tests marked ``slow`` (whole real corpora, every
compiled variant, end-to-end scripts that repeat what quicker tests check) are skipped unless pytest
gets ``--slow``, as ``.ci/run`` gives it: ``bash scripts/test.sh --slow`` runs everything. Shared
strategies and paths live in ``tests/strategies.py`` and ``tests/shared_data.py`` (pytest advises
against importing conftest).

``--device cuda`` runs the same tests with their inputs on a GPU: PyTorch's default device becomes
``cuda``, so every tensor a test makes with ``torch.tensor``, ``torch.zeros``, ``torch.randint``, ...,
and every metric's states, live there (``scripts/gpu_check.sh`` runs the exactness and life-cycle
tests this way). Tensors made from NumPy arrays stay on the CPU, as they do for a user. Without a GPU,
``TRITON_INTERPRET=1`` is set for the whole run, before anything imports Triton (``torch.compile`` does),
so that the tests of Triton's kernels can run them in its interpreter.

Without ``--slow``, each property test draws a quarter of the examples its ``@settings`` ask for
(:data:`QUICK_SHARE`); CI draws them all. The ``vocabulary`` fixture gives the subword tests their
tokenizers (:mod:`vocabularies`).
"""

from __future__ import annotations

import math
import os

import pytest
import torch
from hypothesis import settings
from vocabularies import KINDS, Vocabulary

#: What type checkers read (tests/test_typing.py): modules of mistakes, never imported.
collect_ignore = ["typing_cases"]

settings.register_profile("torch-bleu", deadline=None)
settings.load_profile("torch-bleu")

#: Without --slow, a property test draws this share of its examples (at least one).
QUICK_SHARE = 1 / 4


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true", help="also run the tests marked slow (CI runs them)")
    parser.addoption(
        "--device", default="cpu", help="PyTorch's default device for the tests' tensors: cpu (default) or cuda"
    )


def pytest_configure(config: pytest.Config) -> None:
    device = torch.device(config.getoption("--device"))
    if device.type == "cuda" and not torch.cuda.is_available():
        raise pytest.UsageError("--device cuda: PyTorch sees no CUDA device here")
    if device.type != "cpu":
        torch.set_default_device(device)
    elif not torch.cuda.is_available():  # Triton's kernels run in its interpreter, set before anything imports it
        os.environ.setdefault("TRITON_INTERPRET", "1")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--slow"):
        return
    skip = pytest.mark.skip(reason="slow: runs with --slow (bash scripts/test.sh --slow, and in CI)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
    for test in {getattr(item, "obj", None) for item in items}:
        draw_fewer_examples(test)


def draw_fewer_examples(test: object) -> None:
    """Let a property test (``@given``) draw :data:`QUICK_SHARE` of the examples its settings ask for.

    Hypothesis reads a test's settings from the attribute that ``@settings`` and ``@given`` set on it when
    the test runs, so replacing them after collection is enough.
    """
    chosen = getattr(test, "_hypothesis_internal_use_settings", None)
    if getattr(test, "hypothesis", None) is None or not isinstance(chosen, settings):
        return
    fewer = max(1, math.ceil(chosen.max_examples * QUICK_SHARE))
    test._hypothesis_internal_use_settings = settings(chosen, max_examples=fewer)  # type: ignore[attr-defined]


@pytest.fixture(scope="module", params=KINDS)
def vocabulary(request: pytest.FixtureRequest) -> Vocabulary:
    """A trained tokenizer of each kind (:data:`vocabularies.KINDS`), or of the kind a test names indirectly."""
    return Vocabulary(request.param)
