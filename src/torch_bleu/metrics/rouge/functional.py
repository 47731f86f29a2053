"""Functional ROUGE: per-sentence statistics, sentence scores and corpus scores, from strings, ids or subword ids.

The functions take the options of :class:`~torch_bleu.metrics.rouge.config.ROUGEConfig` as keyword
arguments, and the predictions first: ``(preds, target)``, where rouge-score's ``score`` takes
``(target, prediction)``. Results are dicts keyed ``f"{rouge_type}_{precision|recall|fmeasure}"``,
float64 values equal to rouge-score's (with ``convention="coco"``, to pycocoevalcap's ROUGE-L,
:mod:`~torch_bleu.metrics.rouge.coco`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor

from ...argument_names import takes_preds_and_target
from ...threads import within_cpu_share
from .config import ROUGEConfig, ROUGEOptions
from .counting import sentence_statistics
from .score import fixed_point, mean_of_fixed_point
from .sentence_splitting import SentencesSeen

if TYPE_CHECKING:
    from typing_extensions import Unpack


@takes_preds_and_target
@within_cpu_share
def rouge_statistics(preds: Any, target: Any, **options: Unpack[ROUGEOptions]) -> Tensor:
    """``(B, T, 3)`` int64 statistics of every prediction for each of the ``T`` ROUGE types: hits, the
    prediction's count and the reference's count (n-grams, or words for ``rougeL`` and ``rougeLsum``),
    of the reference ``accumulate="best"`` picks (with ``"avg"``: summed over the references; with
    ``convention="coco"``: of the reference of the best recall).

    :func:`~torch_bleu.rouge_scores` turns them into rouge-score's precision, recall and F-measure (not
    pycocoevalcap's, whose best precision may be of another reference).

    Example:
        >>> rouge_statistics(["the cat sat"], ["the cat sat down"], rouge_types=("rouge1", "rougeL")).tolist()
        [[[3, 3, 4], [3, 3, 4]]]
    """
    statistics, _ = _counted(preds, target, ROUGEConfig.from_options(options))
    return statistics


@takes_preds_and_target
@within_cpu_share
def sentence_rouge(preds: Any, target: Any, **options: Unpack[ROUGEOptions]) -> dict[str, Tensor]:
    """ROUGE of every prediction on its own: ``(B,)`` float64 per key, as rouge-score's
    ``RougeScorer(rouge_types, use_stemmer).score_multi(references, prediction)`` gives them.

    Example:
        >>> scores = sentence_rouge(["the cat sat", "a dog"], ["the cat sat down", "the dog"], rouge_types=("rouge1",))
        >>> {key: [round(value, 4) for value in values.tolist()] for key, values in scores.items()}
        {'rouge1_precision': [1.0, 0.5], 'rouge1_recall': [0.75, 0.5], 'rouge1_fmeasure': [0.8571, 0.5]}
    """
    config = ROUGEConfig.from_options(options)
    _, scores = _counted(preds, target, config)
    return config.results(scores.reshape(scores.shape[0], 3 * len(config.types)).unbind(-1))


@takes_preds_and_target
@within_cpu_share
def corpus_rouge(preds: Any, target: Any, **options: Unpack[ROUGEOptions]) -> dict[str, Tensor]:
    """ROUGE of a corpus: the mean of every sentence's scores (0-d float64 per key; 0 with no sentence),
    summed exactly as :class:`~torch_bleu.ROUGEScore` sums them.

    Example:
        >>> scores = corpus_rouge(["the cat sat", "a dog"], ["the cat sat down", "the dog"], rouge_types=("rouge1",))
        >>> {key: round(value.item(), 4) for key, value in scores.items()}
        {'rouge1_precision': 0.75, 'rouge1_recall': 0.625, 'rouge1_fmeasure': 0.6786}
    """
    config = ROUGEConfig.from_options(options)
    _, scores = _counted(preds, target, config)
    count = torch.tensor(scores.shape[0], device=scores.device)
    means = mean_of_fixed_point(fixed_point(scores).sum(0), count)
    return config.results(means.reshape(-1).unbind(0))


def _counted(preds: Any, target: Any, config: ROUGEConfig) -> tuple[Tensor, Tensor]:
    """:func:`~.counting.sentence_statistics` of a batch, warning when ``rougeLsum`` can only equal ``rougeL``."""
    seen = SentencesSeen.wanted(config.types, config.split_sentences)
    counted = sentence_statistics(preds, target, config, seen)
    if seen is not None:
        seen.warn()
    return counted
