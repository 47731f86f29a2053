"""pycocoevalcap's BLEU (``convention="coco"``): BLEU-1 ... BLEU-N at once, from statistics.

pycocoevalcap 1.2's ``Bleu.compute_score`` (``bleu/bleu.py``, ``bleu/bleu_scorer.py``) scores without
smoothing: its offsets keep every precision positive and every division defined. Per order k the precision
is ``(matches + 1e-15) / (n-grams + 1e-9)``; BLEU-k is the running product of the precisions of orders 1..k
to the power ``1 / k``; the brevity penalty ``exp(1 - 1 / ratio)`` with ``ratio = (c + 1e-15) / (r + 1e-9)``
applies whenever ``ratio < 1``, so a hypothesis exactly as long as its reference loses a hair, as it does
there. ``r`` is the closest reference length (ties to the shorter): ``Bleu`` passes ``option="closest"`` to
its scorer whatever the number of images (the scorer's own default, the references' mean length for a
single image, is never used by ``Bleu``). The statistics are thus sacrebleu's with ``ref_length="closest"``;
only the score differs. The operations are pycocoevalcap's, in its order, in float64.
"""

from __future__ import annotations

from ...arrays import ArrayT, arange_like, array_namespace, as_float64, exp

#: pycocoevalcap's ``tiny``, added to numerators (``correct``, the hypothesis length).
TINY = 1e-15
#: pycocoevalcap's ``small``, added to denominators (``guess``, the reference length).
SMALL = 1e-9


def coco_bleu_by_order(matches: ArrayT, totals: ArrayT, preds_len: ArrayT, target_len: ArrayT) -> ArrayT:
    """BLEU-1 ... BLEU-N ``(..., N)`` (float64, 0..1) from statistics of shape ``(..., N)``, ``(..., N)``,
    ``(...)``, ``(...)``, as pycocoevalcap computes them: of one image (its second returned value), or of
    statistics summed over images (its first).

    Example:
        >>> import torch
        >>> matches, totals = torch.tensor([3, 2, 1, 0]), torch.tensor([4, 3, 2, 1])
        >>> scores = coco_bleu_by_order(matches, totals, torch.tensor(4), torch.tensor(5))
        >>> [round(score, 6) for score in scores.tolist()]
        [0.584101, 0.550695, 0.490614, 9.8e-05]
    """
    xp = array_namespace(matches)
    precisions = (as_float64(matches) + TINY) / (as_float64(totals) + SMALL)
    roots = 1.0 / as_float64(arange_like(matches.shape[-1], matches) + 1)  # 1 / k, k from 1
    scores = xp.cumprod(precisions, -1) ** roots
    ratio = (as_float64(preds_len) + TINY) / (as_float64(target_len) + SMALL)
    penalty = xp.where(ratio < 1.0, exp(1.0 - 1.0 / ratio), 1.0)
    by_order: ArrayT = scores * penalty[..., None]
    return by_order
