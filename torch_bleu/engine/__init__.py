"""The counting engine: clipped n-gram matches of padded batches, exact and free of host syncs.

:func:`clipped_matches` takes a batch stacked by :func:`~torch_bleu.engine.rows.stack_rows` and picks
one of two exact algorithms from the shapes alone (never from the data, so nothing waits for the
device):

* ``"sorted"`` (:mod:`~torch_bleu.engine.sorted_keys`): one sort per sentence of packed n-gram keys
  serves every order; memory linear in the tokens. The default.
* ``"pairwise"`` (:mod:`~torch_bleu.engine.pairwise`): compares every hypothesis window with every
  window of its sentence; no sort, quadratic memory, faster for rows of a few tokens only.
"""

from __future__ import annotations

from typing import Callable

import torch  # noqa: F401  (the doctests use it)
from torch import Tensor

from .pairwise import pairwise_matches
from .rows import StackedRows, stack_rows
from .sorted_keys import sorted_key_matches

__all__ = ["ALGORITHMS", "PAIRWISE_MAX_WIDTH", "StackedRows", "choose_algorithm", "clipped_matches", "stack_rows"]

Algorithm = Callable[[StackedRows, int], Tensor]

ALGORITHMS: dict[str, Algorithm] = {"sorted": sorted_key_matches, "pairwise": pairwise_matches}

#: Rows up to this many tokens go to the pairwise algorithm; on longer rows sorting wins, by 2 to 3
#: times at 16 to 24 tokens (measured on CPU, see the README's speed section).
PAIRWISE_MAX_WIDTH = 4


def choose_algorithm(batch: int, sources: int, width: int) -> str:
    """The algorithm for ``batch`` sentences of ``sources`` rows (hypothesis and references) of ``width`` tokens.

    Example:
        >>> choose_algorithm(batch=128, sources=2, width=4), choose_algorithm(batch=128, sources=2, width=5)
        ('pairwise', 'sorted')
    """
    return "pairwise" if width <= PAIRWISE_MAX_WIDTH else "sorted"


def clipped_matches(rows: StackedRows, max_order: int, algorithm: str = "auto") -> Tensor:
    """``(B, max_order)`` clipped n-gram matches of a stacked batch.

    Args:
        rows: the batch from :func:`~torch_bleu.engine.rows.stack_rows`.
        max_order: highest n-gram order.
        algorithm: ``"auto"`` (chosen from the shapes), ``"sorted"`` or ``"pairwise"``.

    Example:
        >>> rows = stack_rows(torch.tensor([[1, 2, 2, 0]]), torch.tensor([[[2, 2, 1, 2]]]), ignore_ids=[0])
        >>> [clipped_matches(rows, 2, name).tolist() for name in ("sorted", "pairwise")]
        [[[3, 2]], [[3, 2]]]
    """
    batch, sources, width = rows.tokens.shape
    if algorithm == "auto":
        algorithm = choose_algorithm(batch, sources, width)
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; expected 'auto', {', '.join(map(repr, ALGORITHMS))}")
    if sources == 1 or rows.tokens.numel() == 0:  # no reference, or nothing to count
        return rows.lengths.new_zeros(batch, max_order)
    return ALGORITHMS[algorithm](rows, max_order)
