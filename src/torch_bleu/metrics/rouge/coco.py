"""pycocoevalcap's ROUGE-L of image captions (``ROUGEConfig(convention="coco")``): its words, and each
image's scores of its references.

pycocoevalcap 1.2's ``Rouge().compute_score(gts, res)`` reads a caption's words as ``caption.split(" ")``
(so ``""`` is one empty word, and two spaces in a row make an empty word between them), and scores each
image of the LCS of its caption with each reference:

    precision = max over references of lcs / caption words
    recall    = max over references of lcs / reference words   (maybe another reference)
    F         = (1 + 1.2**2) * precision * recall / (recall + 1.2**2 * precision), 0 when either is 0

and the corpus as the mean of the images' F. Rows of ids are the strings of their ids joined by spaces:
each id a word, an empty row the empty caption ``""`` (one empty word, which only another empty row
matches), so their statistics are the LCS's with that one word added (:func:`empty_rows_as_one_word`).

The best recall is chosen by comparing ratios of integers exactly (cross-multiplied); each score is then
formed in float64 in pycocoevalcap's order of operations, equal to its own.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import torch
from torch import Tensor

from .words import TextWords

#: pycocoevalcap's beta, and the constants of its F-measure as it computes them.
BETA = 1.2
_ONE_PLUS_BETA_SQUARED = 1 + BETA**2
_BETA_SQUARED = BETA**2


def coco_words(texts: Sequence[str]) -> TextWords:
    """The numbered words of ``texts``, split on single spaces as pycocoevalcap's ROUGE-L splits them
    (equal words, equal numbers; all of a text on one line).

    Example:
        >>> words = coco_words(["a  dog", "", "A dog"])
        >>> words.ids.tolist(), words.lengths.tolist(), words.distinct
        ([0, 1, 2, 1, 3, 2], [3, 1, 2], 4)
    """
    split = [text.split(" ") for text in texts]
    numbers: defaultdict[str, int] = defaultdict(itertools.count().__next__)
    tokens = list(itertools.chain.from_iterable(split))
    ids = np.fromiter(map(numbers.__getitem__, tokens), dtype=np.int64, count=len(tokens))
    lengths = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
    return TextWords(ids, np.zeros_like(ids), lengths, len(numbers))


def empty_rows_as_one_word(statistics: Tensor) -> Tensor:
    """ROUGE-L statistics ``(..., 3)`` (LCS, prediction words, reference words) of rows of ids as those of
    their strings: an empty row is one empty word, which matches only the empty word of another empty row.

    Example:
        >>> empty_rows_as_one_word(torch.tensor([[0, 0, 0], [0, 0, 2], [1, 2, 1]])).tolist()
        [[1, 1, 1], [0, 1, 2], [1, 2, 1]]
    """
    hits, predicted, referenced = statistics.unbind(-1)
    both_empty = (predicted == 0) & (referenced == 0)
    return torch.stack([hits + both_empty.long(), predicted.clamp(min=1), referenced.clamp(min=1)], -1)


def coco_choice(statistics: Tensor, present: Tensor) -> tuple[Tensor, Tensor]:
    """Each image's statistics ``(B, 1, 3)`` and scores ``(B, 1, 3)`` (precision, recall, F-measure, float64)
    of its references' ROUGE-L statistics ``(B, R, 1, 3)`` (``present`` ``(B, R)``: which exist), as
    pycocoevalcap scores them: the best precision (the longest LCS, over the caption's words), the best
    recall (the first reference of the highest ``lcs / words``, compared exactly), and its F. The
    statistics are those of the reference of the best recall (whose LCS may be shorter than the longest).

    Example (the first reference gives the best precision, the second the best recall):
        >>> statistics = torch.tensor([[[[3, 4, 9]], [[1, 4, 1]]]])
        >>> chosen, scores = coco_choice(statistics, torch.tensor([[True, True]]))
        >>> chosen.tolist(), [round(score, 4) for score in scores[0, 0].tolist()]
        ([[[1, 4, 1]]], [0.75, 1.0, 0.8798])
    """
    batch, references = statistics.shape[:2]
    if references == 0:  # an empty batch
        return statistics.sum(1), torch.zeros(statistics.sum(1).shape, dtype=torch.float64, device=statistics.device)
    hits, predicted, referenced = statistics[:, :, 0].long().unbind(-1)
    hits = torch.where(present, hits, 0)
    referenced = torch.where(present, referenced, 1)
    # a reference of the best recall: its hits_a / words_a at least every present b's, cross-multiplied
    at_least = hits[:, :, None] * referenced[:, None, :] >= hits[:, None, :] * referenced[:, :, None]
    best = (at_least | ~present[:, None, :]).all(-1) & present
    chosen = best.long().argmax(1)  # the first of equals
    index = chosen[:, None, None, None].expand(batch, 1, 1, 3)
    best_statistics = statistics.long().gather(1, index)[:, 0]
    caption_words = torch.where(present, predicted, 0).amax(1).clamp(min=1).double()
    precision = hits.amax(1).double() / caption_words
    recall = best_statistics[:, 0, 0].double() / best_statistics[:, 0, 2].clamp(min=1).double()
    scored = (precision != 0) & (recall != 0)
    denominator = torch.where(scored, recall + _BETA_SQUARED * precision, 1.0)
    fmeasure = torch.where(scored, _ONE_PLUS_BETA_SQUARED * precision * recall / denominator, 0.0)
    return best_statistics, torch.stack([precision, recall, fmeasure], -1)[:, None]
