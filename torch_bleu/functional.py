"""Functional BLEU: corpus and per-sentence scores of padded token-id batches.

Both functions take the options of :class:`~torch_bleu.config.BLEUConfig` as keyword arguments and
return float64 tensors on the input's device, on the 0..1 scale.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch  # noqa: F401  (the doctests use it)
from torch import Tensor

from .config import BLEUConfig, BLEUOptions, config_from_options, require_corpus_smoothing
from .inputs import token_batch
from .score import bleu_from_statistics
from .statistics import SentenceStatistics, count_statistics

if TYPE_CHECKING:
    from typing_extensions import Unpack


def batch_statistics(preds: Any, target: Any, config: BLEUConfig) -> SentenceStatistics:
    """Validate a batch and count its per-sentence sufficient statistics (see :func:`~torch_bleu.sentence_statistics`).

    ``preds`` and ``target`` are padded tensors or ragged sequences (see :func:`~torch_bleu.inputs.token_batch`).
    The statistics cover ``config.statistics_order`` orders (5 at least for nltk's ``method5`` and
    ``method7``).

    Example:
        >>> stats = batch_statistics(torch.tensor([[5, 6, 7, 0]]), torch.tensor([[5, 6, 8, 0]]),
        ...                          BLEUConfig(ignore_ids=[0]))
        >>> stats.matches.tolist(), stats.totals.tolist()
        ([[2, 1, 0, 0]], [[3, 2, 1, 0]])
    """
    return count_statistics(token_batch(preds, target, config.ignore_ids), config)


def corpus_bleu(preds: Any, target: Any, **options: Unpack[BLEUOptions]) -> Tensor:
    """Corpus BLEU of a batch: statistics are summed over sentences, then scored once.

    Args:
        preds: ``(B, Lp)`` integer hypothesis ids, or a list of 1-D tensors or of lists of ints.
        target: ``(B, Lt)`` (one reference each) or ``(B, R, Lt)`` integer reference ids, or a list
            with one entry per hypothesis: a 1-D tensor, or a list of references (1-D tensors or lists
            of ints), as many as that hypothesis has.
        **options: any :class:`~torch_bleu.config.BLEUConfig` field (``max_order``, ``weights``,
            ``smoothing``, ``smooth_value``, ``effective_order``, ``ignore_ids``, ``ref_length``,
            ``convention``).

    Returns:
        A 0-d float64 tensor in ``[0, 1]``.

    Raises:
        ValueError: for nltk's ``method5`` to ``method7``, which nltk's ``corpus_bleu`` applies to the
            last sentence only; :func:`sentence_bleu` scores them.

    Example:
        >>> preds = torch.tensor([[1, 2, 3, 4, 5, 6, 0]])
        >>> target = torch.tensor([[1, 2, 3, 4, 5, 7, 0]])
        >>> round(corpus_bleu(preds, target, ignore_ids=[0]).item(), 4)
        0.7598

        nltk's ``corpus_bleu``, on its own list-of-lists input:

        >>> hyps = [[1, 2, 3, 4, 5, 6], [7, 8, 9]]
        >>> refs = [[[1, 2, 3, 4, 5, 7], [1, 2, 3]], [[7, 8, 9]]]
        >>> round(corpus_bleu(hyps, refs, convention="nltk", smoothing="method1").item(), 4)
        0.743
    """
    config = config_from_options(options)
    require_corpus_smoothing(config)
    stats = batch_statistics(preds, target, config)
    score: Tensor = bleu_from_statistics(
        stats.matches.sum(0), stats.totals.sum(0), stats.preds_len.sum(), stats.target_len.sum(), config
    )
    return score


def sentence_bleu(preds: Any, target: Any, **options: Unpack[BLEUOptions]) -> Tensor:
    """BLEU of every sentence of a batch on its own, computed in one batched pass.

    Takes the same arguments as :func:`corpus_bleu` and returns a ``(B,)`` float64 tensor, e.g. a
    reward per sampled sequence. Every nltk smoothing method is available here, ``method5`` to
    ``method7`` included; with ``convention="nltk"`` each score equals nltk's ``sentence_bleu``.

    Example:
        >>> preds = torch.tensor([[1, 2, 3, 4], [1, 2, 9, 9]])
        >>> target = torch.tensor([[1, 2, 3, 4], [1, 2, 3, 4]])
        >>> sentence_bleu(preds, target, smoothing="floor").tolist()
        [1.0, 0.1699...]
    """
    config = config_from_options(options)
    stats = batch_statistics(preds, target, config)
    scores: Tensor = bleu_from_statistics(stats.matches, stats.totals, stats.preds_len, stats.target_len, config)
    return scores
