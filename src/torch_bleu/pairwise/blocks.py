"""Scores of all pairs, computed a block of candidates at a time, so that the float64 statistics and
temporaries of scoring never exceed :data:`BLOCK_PAIRS` pairs however large the matrix is."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

#: The most pairs scored at once.
BLOCK_PAIRS = 1 << 18


def scores_by_blocks(score: Callable[[slice], Tensor], present: Tensor) -> Tensor:
    """``(S, N, M)`` float64: ``score(candidates)`` gives the scores of the ``candidates`` slice of every
    source, ``(S, n, M)``; pairs that ``present`` does not mark are NaN.

    Example:
        >>> present = torch.tensor([[[True, False], [True, True]]])
        >>> scores_by_blocks(lambda rows: torch.ones((1, rows.stop - rows.start, 2)), present).tolist()
        [[[1.0, nan], [1.0, 1.0]]]
    """
    sources, candidates, references = present.shape
    scores = torch.full(present.shape, torch.nan, dtype=torch.float64, device=present.device)
    step = max(1, BLOCK_PAIRS // max(sources * references, 1))
    for first in range(0, candidates, step):
        rows = slice(first, min(first + step, candidates))
        scores[:, rows] = torch.where(present[:, rows], score(rows), torch.nan)
    return scores
