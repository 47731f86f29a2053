"""Functional TER: per-sentence statistics and scores, corpus scores, from strings or subword ids.

The functions take the options of :class:`~torch_bleu.metrics.ter.config.TERConfig` as keyword
arguments; scores are float64 edits per reference word (sacrebleu's TER / 100).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torch import Tensor

from ...argument_names import takes_preds_and_target
from ...threads import within_cpu_share
from .config import TERConfig, TEROptions
from .counting import sentence_statistics
from .score import ter_fraction

if TYPE_CHECKING:
    from typing_extensions import Unpack


@takes_preds_and_target
@within_cpu_share
def corpus_ter(preds: Any, target: Any, **options: Unpack[TEROptions]) -> Tensor:
    """Corpus TER: every sentence's fewest edits, summed, per summed mean reference length.

    Equals sacrebleu's ``TER(...).corpus_score(preds, [refs]).score / 100``.

    Example:
        >>> hyps = ["the cat sat on the mat .", "A dog barked."]
        >>> refs = [["on the mat the cat sat ."], ["The dog barked loudly."]]
        >>> round(100 * corpus_ter(hyps, refs).item(), 4)  # (1 shift + 3 edits) per (7 + 4) reference words
        36.3636
    """
    config = TERConfig.from_options(options)
    score: Tensor = ter_fraction(sentence_statistics(preds, target, config).sum(0))
    return score


@takes_preds_and_target
@within_cpu_share
def sentence_ter(preds: Any, target: Any, **options: Unpack[TEROptions]) -> Tensor:
    """TER of every sentence of a batch on its own, ``(B,)`` float64 (lower is better; e.g. ``-TER`` as an
    RL reward).

    Equals sacrebleu's ``TER(...).sentence_score(hyp, refs).score / 100`` for each sentence.

    Example:
        >>> [round(score, 4) for score in sentence_ter(["the cat", "a dog"], ["the hat", "a dog"]).tolist()]
        [0.5, 0.0]
    """
    config = TERConfig.from_options(options)
    scores: Tensor = ter_fraction(sentence_statistics(preds, target, config))
    return scores
