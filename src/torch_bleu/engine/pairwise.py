"""Clipped n-gram matches by comparing every hypothesis window with every window of its sentence.

For rows of a few tokens this beats sorting: no sort at all, a handful of batched boolean operations.
With ``same[b, i, s, j]`` telling whether hypothesis token ``i`` equals token ``j`` of row ``s``, the
order-``n`` windows at ``i`` and ``j`` are equal when ``same`` holds at ``(i, j), (i+1, j+1), ...,
(i+n-1, j+n-1)``: each order ANDs one shifted copy into the previous one. For each hypothesis window,
summing over ``j`` counts its occurrences in each reference (``C_r``) and its earlier occurrences in
the hypothesis itself (``k``); the window is matched when ``k < max_r C_r``, which adds up to
``min(H, max_r C_r)`` per distinct n-gram.

Memory is ``O(B * L * S * L)``; the dispatcher picks this for rows of a few tokens and one
hypothesis per sentence only.
"""

from __future__ import annotations

from ..arrays import ArrayT, arange_like, array_namespace, pack_kept
from .rows import StackedRows


def pairwise_matches(rows: StackedRows[ArrayT], max_order: int) -> ArrayT:
    """``(B, 1, max_order)`` clipped matches of stacked rows with one hypothesis each (see the module docstring).

    Example:
        >>> import torch
        >>> from torch_bleu.engine.rows import stack_rows
        >>> pairwise_matches(stack_rows(torch.tensor([[1, 2, 3, 4]]), torch.tensor([[[1, 2, 3, 5]]])), 4).tolist()
        [[[3, 2, 1, 0]]]
    """
    xp = array_namespace(rows.tokens)
    _batch, sources, width = rows.tokens.shape
    (tokens,) = pack_kept(rows.keep, width, (rows.tokens, 0))
    position = arange_like(width, tokens)
    inside = position < rows.lengths[..., None]  # (B, S, L)

    # A hypothesis window is compared with the reference windows inside their row, and with the
    # windows before it in its own row (those are inside the row whenever the window itself is).
    before = position.reshape(1, width, 1, 1) > position.reshape(1, 1, 1, width)
    in_reference = arange_like(sources, tokens).reshape(1, 1, sources, 1) > 0
    compared = xp.where(in_reference, inside[:, None], before)
    same = tokens[:, 0, :, None, None] == tokens[:, None]
    same &= compared

    matches = []
    windows = same
    for order in range(1, max_order + 1):
        if order > 1:
            windows = windows[:, :-1, :, :-1] & same[:, order - 1 :, :, order - 1 :]
        counts = windows.sum(-1, dtype=xp.int32)  # (B, windows, S)
        matched = (counts[..., 0] < xp.amax(counts[..., 1:], axis=-1)) & inside[:, 0, order - 1 :]
        matches.append(matched.sum(-1))
    stacked: ArrayT = xp.stack(matches, 1)[:, None]
    return stacked
