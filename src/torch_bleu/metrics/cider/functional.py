"""Functional CIDEr-D: every image's score and the corpus score, from captions as strings or rows of ids.

The functions take the options of :class:`~torch_bleu.metrics.cider.config.CIDErConfig` as keyword
arguments, the captions first: ``(preds, target)``, one caption per image and, per image, its references.
Scores are float64, as pycocoevalcap 1.2's ``Cider().compute_score`` gives them, on the device of ids; document
frequencies come from the references of the images of the call (so a corpus is scored in one call), or from a
training corpus' :class:`~.document_frequency.DocumentFrequency` (``document_frequency=``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torch import Tensor

from ...argument_names import takes_preds_and_target
from ...threads import within_cpu_share
from .config import CIDErConfig, CIDErOptions
from .scoring import caption_scores

if TYPE_CHECKING:
    from typing_extensions import Unpack


@takes_preds_and_target
@within_cpu_share
def sentence_cider(preds: Any, target: Any, **options: Unpack[CIDErOptions]) -> Tensor:
    """CIDEr-D of every image, ``(B,)`` float64: the second value of pycocoevalcap's ``Cider().compute_score``
    with the images in order, their document frequencies from all of them.

    Example:
        >>> captions = ["a dog runs on the grass", "a cat sleeps"]
        >>> references = [["a dog runs on grass", "the dog runs"], ["a cat is sleeping", "the cat sleeps"]]
        >>> [round(score, 4) for score in sentence_cider(captions, references).tolist()]
        [4.4036, 2.8815]
    """
    return caption_scores(preds, target, CIDErConfig.from_options(options))[:, 0]


@takes_preds_and_target
@within_cpu_share
def corpus_cider(preds: Any, target: Any, **options: Unpack[CIDErOptions]) -> Tensor:
    """Corpus CIDEr-D (0-d float64): the mean of :func:`sentence_cider`, pycocoevalcap's ``Cider().compute_score``
    first value (0 for no image).

    Example:
        >>> captions = ["a dog runs on the grass", "a cat sleeps"]
        >>> references = [["a dog runs on grass", "the dog runs"], ["a cat is sleeping", "the cat sleeps"]]
        >>> round(corpus_cider(captions, references).item(), 4)
        3.6426
    """
    scores = sentence_cider(preds, target, **options)
    return scores.mean() if scores.shape[0] else scores.new_zeros(())
