"""Functional BLEU: corpus and per-sentence scores, and per-sentence statistics, of token-id batches.

The scores take the options of :class:`~torch_bleu.config.BLEUConfig` as keyword arguments and
return float64 tensors on the input's device, on the 0..1 scale. Every function goes the same way:
:func:`~torch_bleu.inputs.token_batch` checks the input, :func:`count_statistics` counts it with the
engine, :func:`~torch_bleu.bleu_from_statistics` scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch  # noqa: F401  (the doctests use it)
from torch import Tensor

from .config import BLEUConfig, BLEUOptions, config_from_options, require_corpus_smoothing
from .detokenize.pipeline import detokenized_rows
from .engine import clipped_matches, stack_rows
from .inputs import Hypotheses, References, TokenBatch, checked_ref_present, input_batch
from .score import bleu_from_statistics
from .statistics import SentenceStatistics, assemble_statistics

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .detokenize.detokenizer import Detokenizer


def count_statistics(batch: TokenBatch, config: BLEUConfig, algorithm: str = "auto") -> SentenceStatistics:
    """The statistics of a validated batch, over ``config.statistics_order`` orders.

    Example:
        >>> from torch_bleu.inputs import token_batch
        >>> batch = token_batch(torch.tensor([[5, 6, 7, 0]]), torch.tensor([[5, 6, 8, 0]]))
        >>> count_statistics(batch, BLEUConfig(ignore_ids=[0])).matches.tolist()
        [[2, 1, 0, 0]]
    """
    rows = stack_rows(batch.preds, batch.target, config.ignore_ids, batch.ref_present, batch.row_lengths)
    present = batch.references_present(rows.lengths[:, 1:])  # decided on the ids, before any decoding
    if config.detokenizer is not None:
        rows = detokenized_rows(rows, batch.reference_chars, config)
    matches = clipped_matches(rows, config.statistics_order, algorithm)[:, 0]
    return assemble_statistics(matches, rows.lengths[:, 0], rows.lengths[:, 1:], present, config)


def sentence_statistics(
    preds: Hypotheses,
    target: References,
    max_order: int = 4,
    ignore_ids: Sequence[int] = (),
    ref_length: str = "closest",
    convention: str = "sacrebleu",
    ref_present: Tensor | None = None,
    algorithm: str = "auto",
    tokenize: str | None = None,
    lowercase: bool = False,
    detokenizer: Detokenizer | None = None,
) -> SentenceStatistics:
    """BLEU sufficient statistics of each sentence of a batch.

    Input is checked as for :func:`~torch_bleu.sentence_bleu`, before anything is counted.

    Args:
        preds: ``(B, Lp)`` integer hypothesis ids (any integer dtype), or a list of 1-D tensors or of
            lists of ints.
        target: ``(B, Lt)`` or ``(B, R, Lt)`` integer reference ids, or a list with the references of
            each hypothesis (see :func:`~torch_bleu.corpus_bleu`).
        max_order: highest n-gram order.
        ignore_ids: ids removed from every row before counting.
        ref_length: ``"closest"`` or ``"shortest"`` reference-length rule.
        convention: ``"sacrebleu"`` counts ``max(0, len - n + 1)`` hypothesis n-grams; ``"nltk"``
            counts ``max(1, ...)`` per sentence, as nltk's ``modified_precision`` does.
        ref_present: ``(B, R)`` bool, which reference rows of a padded ``target`` are real. By default
            a row with no token left after removing ``ignore_ids`` is absent, unless all rows of the
            sentence are empty, in which case the sentence has one empty reference. (A ragged
            ``target`` says which references exist by itself.)
        algorithm: how to count n-grams, ``"auto"`` (chosen from the shapes), ``"sorted"`` or
            ``"pairwise"`` (see :mod:`torch_bleu.engine`); all give the same statistics.
        tokenize, lowercase: score strings, tokenized by this sacrebleu tokenizer (see
            :class:`~torch_bleu.config.BLEUConfig`).
        detokenizer: score subword ids as sacrebleu scores their decoded text (see
            :class:`~torch_bleu.Detokenizer`).

    Example:
        >>> hyp = torch.tensor([[1, 2, 3, 4]])
        >>> ref = torch.tensor([[1, 2, 3, 5]])
        >>> stats = sentence_statistics(hyp, ref)
        >>> stats.matches.tolist(), stats.totals.tolist(), stats.preds_len.tolist(), stats.target_len.tolist()
        ([[3, 2, 1, 0]], [[4, 3, 2, 1]], [4], [4])
    """
    config = BLEUConfig(
        max_order=max_order,
        ignore_ids=ignore_ids,
        ref_length=ref_length,
        convention=convention,
        tokenize=tokenize,
        lowercase=lowercase,
        detokenizer=detokenizer,
    )
    batch = input_batch(preds, target, config)
    if ref_present is not None:
        batch = batch._replace(ref_present=checked_ref_present(ref_present, batch))
    return count_statistics(batch, config, algorithm)


def batch_statistics(preds: Hypotheses, target: References, config: BLEUConfig) -> SentenceStatistics:
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
    return count_statistics(input_batch(preds, target, config), config)


def corpus_bleu(preds: Hypotheses, target: References, **options: Unpack[BLEUOptions]) -> Tensor:
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


def sentence_bleu(preds: Hypotheses, target: References, **options: Unpack[BLEUOptions]) -> Tensor:
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
