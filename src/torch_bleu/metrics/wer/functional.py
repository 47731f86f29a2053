"""Functional WER and CER: per-sentence counts, corpus and sentence scores, from strings, ids or subword ids.

The functions take the options of :class:`~torch_bleu.metrics.wer.config.WERConfig` as keyword
arguments (the same for CER), and the hypotheses first: ``(preds, target)``, where jiwer takes
``(reference, hypothesis)``. Scores are float64, errors per reference unit, as jiwer's ``wer`` and
``cer`` give them (:mod:`.score`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torch import Tensor

from ...argument_names import takes_preds_and_target
from ...threads import within_cpu_share
from .config import CERConfig, WERConfig, WEROptions
from .counting import sentence_statistics
from .score import error_rate

if TYPE_CHECKING:
    from typing_extensions import Unpack


@takes_preds_and_target
@within_cpu_share
def word_error_counts(preds: Any, target: Any, **options: Unpack[WEROptions]) -> Tensor:
    """``(B, 4)`` int64 hits, substitutions, deletions and insertions of the words of every hypothesis
    against its reference: jiwer's ``process_words(reference, hypothesis)`` counts, sentence by sentence.

    Sum them over a corpus and pass them to :func:`~torch_bleu.error_measures` for jiwer's WER, MER,
    WIL and WIP.

    Example:
        >>> word_error_counts(["the cat sat", "a dog"], ["the cat sat down", "the dog"]).tolist()
        [[3, 0, 1, 0], [1, 1, 0, 0]]
    """
    return sentence_statistics(preds, target, WERConfig.from_options(options))


@takes_preds_and_target
@within_cpu_share
def character_error_counts(preds: Any, target: Any, **options: Unpack[WEROptions]) -> Tensor:
    """``(B, 4)`` int64 hits, substitutions, deletions and insertions of the characters of every hypothesis
    against its reference: jiwer's ``process_characters(reference, hypothesis)`` counts.

    Example:
        >>> character_error_counts(["kitten"], ["sitting"]).tolist()
        [[4, 2, 1, 0]]
    """
    return sentence_statistics(preds, target, CERConfig.from_options(options))


@takes_preds_and_target
def corpus_wer(preds: Any, target: Any, **options: Unpack[WEROptions]) -> Tensor:
    """Corpus WER: every sentence's word errors, summed, per reference word (0-d float64; lower is better).

    Equals ``jiwer.wer(references, hypotheses)`` (note jiwer's order). With no reference word in the
    whole corpus, it is the number of inserted words, as jiwer gives it.

    Example:
        >>> hyps = ["the cat sat on the mat", "a dog barked"]
        >>> refs = ["the cat sat on a mat", "the dog barked loudly"]
        >>> round(corpus_wer(hyps, refs).item(), 4)   # (1 + 2) errors per (6 + 4) words
        0.3
    """
    score: Tensor = error_rate(word_error_counts(preds, target, **options).sum(0))
    return score


@takes_preds_and_target
def sentence_wer(preds: Any, target: Any, **options: Unpack[WEROptions]) -> Tensor:
    """WER of every sentence on its own, ``(B,)`` float64: ``jiwer.wer(reference, hypothesis)`` of each pair
    (an empty reference gives the number of inserted words).

    Example:
        >>> sentence_wer(["the cat", "a dog", "hello"], ["the hat", "a dog", ""]).tolist()
        [0.5, 0.0, 1.0]
    """
    scores: Tensor = error_rate(word_error_counts(preds, target, **options))
    return scores


@takes_preds_and_target
def corpus_cer(preds: Any, target: Any, **options: Unpack[WEROptions]) -> Tensor:
    """Corpus CER: every sentence's character errors, summed, per reference character (0-d float64).

    Equals ``jiwer.cer(references, hypotheses)``: the ends of each text stripped of whitespace, every
    other character (spaces included) one unit.

    Example:
        >>> round(corpus_cer(["kitten", "flaw"], ["sitting", "lawn"]).item(), 4)   # (3 + 2) per (7 + 4)
        0.4545
    """
    score: Tensor = error_rate(character_error_counts(preds, target, **options).sum(0))
    return score


@takes_preds_and_target
def sentence_cer(preds: Any, target: Any, **options: Unpack[WEROptions]) -> Tensor:
    """CER of every sentence on its own, ``(B,)`` float64: ``jiwer.cer(reference, hypothesis)`` of each pair.

    Example:
        >>> [round(score, 4) for score in sentence_cer(["kitten", "abc"], ["sitting", "abc"]).tolist()]
        [0.4286, 0.0]
    """
    scores: Tensor = error_rate(character_error_counts(preds, target, **options))
    return scores
