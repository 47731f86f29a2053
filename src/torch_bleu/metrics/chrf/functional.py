"""Functional chrF: per-sentence statistics and scores, corpus scores, from strings or subword ids.

The functions take the options of :class:`~torch_bleu.metrics.chrf.config.CHRFConfig` as keyword
arguments; scores are float64 on the 0..1 scale.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torch import Tensor

from ...argument_names import takes_preds_and_target
from ...threads import within_cpu_share
from .config import CHRFConfig, CHRFOptions
from .counting import sentence_statistics
from .score import chrf_from_statistics

if TYPE_CHECKING:
    from typing_extensions import Unpack


@takes_preds_and_target
@within_cpu_share
def corpus_chrf(preds: Any, target: Any, **options: Unpack[CHRFOptions]) -> Tensor:
    """Corpus chrF (chrF++ with ``word_order=2``): statistics summed over sentences, then scored once.

    Equals sacrebleu's ``CHRF(...).corpus_score(preds, [refs]).score / 100``.

    Example:
        >>> hyps = ["The cat sat on the mat.", "A dog barked."]
        >>> refs = [["The cat is on the mat."], ["The dog barked loudly.", "A dog barked."]]
        >>> round(100 * corpus_chrf(hyps, refs).item(), 4), round(100 * corpus_chrf(hyps, refs, word_order=2).item(), 4)
        (78.7503, 80.1532)
    """
    config = CHRFConfig.from_options(options)
    score: Tensor = chrf_from_statistics(sentence_statistics(preds, target, config).sum(0), config)
    return score


@takes_preds_and_target
@within_cpu_share
def sentence_chrf(preds: Any, target: Any, **options: Unpack[CHRFOptions]) -> Tensor:
    """chrF of every sentence of a batch on its own, ``(B,)`` float64 (e.g. RL rewards).

    Equals sacrebleu's ``CHRF(...).sentence_score(hyp, refs).score / 100`` for each sentence.

    Example:
        >>> [round(score, 4) for score in sentence_chrf(["the cat", "a dog"], ["the hat", "a dog"]).tolist()]
        [0.2806, 1.0]
    """
    config = CHRFConfig.from_options(options)
    scores: Tensor = chrf_from_statistics(sentence_statistics(preds, target, config), config)
    return scores
