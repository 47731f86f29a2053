"""Functional BLEU: corpus and per-sentence scores, and per-sentence statistics.

The functions take the options of :class:`~torch_bleu.BLEUConfig` as keyword arguments and return
tensors on the input's device, scores as float64 on the 0..1 scale. Each goes the same way:
:mod:`.counting` checks and counts the input, :func:`~torch_bleu.bleu_from_statistics` scores.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch  # noqa: F401  (the doctests use it)
from torch import Tensor

from ...argument_names import takes_preds_and_target
from ...inputs.batch import TokenBatch
from ...inputs.ids import Hypotheses, References, checked_ref_present
from ...threads import within_cpu_share
from .by_order import BLEUByOrder, scores_by_order
from .config import BLEUConfig, BLEUOptions, require_corpus_smoothing
from .counting import as_tensors, count_statistics, input_batch, sentence_statistics
from .score import bleu_from_statistics
from .statistics import SentenceStatistics

if TYPE_CHECKING:
    from typing_extensions import Unpack


@takes_preds_and_target
@within_cpu_share
def bleu_statistics(
    preds: Hypotheses,
    target: References,
    *,
    ref_present: Tensor | None = None,
    algorithm: str = "auto",
    **options: Unpack[BLEUOptions],
) -> SentenceStatistics:
    """BLEU sufficient statistics of each sentence of a batch.

    Input is checked as for :func:`~torch_bleu.sentence_bleu`, before anything is counted.

    Args:
        preds: ``(B, Lp)`` integer hypothesis ids (any integer dtype), or a list of 1-D tensors or of
            lists of ints.
        target: ``(B, Lt)`` or ``(B, R, Lt)`` integer reference ids, or a list with the references of
            each hypothesis (see :func:`~torch_bleu.corpus_bleu`).
        ref_present: ``(B, R)`` bool, which reference rows of a padded ``target`` are real. By default
            a row with no token left after removing ``ignore_ids`` (and cutting at ``eos_id``) is
            absent, unless all rows of the sentence are empty, in which case the sentence has one
            empty reference. (A ragged
            ``target`` says which references exist by itself.)
        algorithm: how to count n-grams, ``"auto"`` (chosen from the shapes), ``"sorted"`` or
            ``"pairwise"`` (see :mod:`torch_bleu.engine`); all give the same statistics.
        **options: any option of :class:`~torch_bleu.BLEUConfig`. Those that decide the statistics:
            ``max_order``, ``ignore_ids``, ``eos_id``, ``ref_length``, ``convention`` (``"sacrebleu"``
            counts ``max(0, len - n + 1)`` hypothesis n-grams, and so does ``"coco"``; ``"nltk"`` counts
            ``max(1, ...)`` per sentence, as nltk's ``modified_precision`` does), ``tokenize`` and
            ``lowercase`` (strings), ``detokenizer`` (subword ids).

    Example:
        >>> hyp = torch.tensor([[1, 2, 3, 4]])
        >>> ref = torch.tensor([[1, 2, 3, 5]])
        >>> stats = bleu_statistics(hyp, ref)
        >>> stats.matches.tolist(), stats.totals.tolist(), stats.preds_len.tolist(), stats.target_len.tolist()
        ([[3, 2, 1, 0]], [[4, 3, 2, 1]], [4], [4])
    """
    config = BLEUConfig.from_options(options)
    if ref_present is None:
        return as_tensors(count_statistics(input_batch(preds, target, config, on_host=True), config, algorithm))
    batch = input_batch(preds, target, config)
    assert isinstance(batch, TokenBatch)  # counted where it lives: no stream
    return count_statistics(batch._replace(ref_present=checked_ref_present(ref_present, batch)), config, algorithm)


@takes_preds_and_target
@within_cpu_share
def corpus_bleu(preds: Hypotheses, target: References, **options: Unpack[BLEUOptions]) -> Tensor:
    """Corpus BLEU of a batch: statistics are summed over sentences, then scored once.

    Args:
        preds: ``(B, Lp)`` integer hypothesis ids, or a list of 1-D tensors or of lists of ints.
        target: ``(B, Lt)`` (one reference each) or ``(B, R, Lt)`` integer reference ids, or a list
            with one entry per hypothesis: a 1-D tensor, or a list of references (1-D tensors or lists
            of ints), as many as that hypothesis has.
        **options: any option of :class:`~torch_bleu.BLEUConfig` (``max_order``, ``weights``,
            ``smoothing``, ``smooth_value``, ``effective_order``, ``ignore_ids``, ``eos_id``, ``ref_length``,
            ``convention``, ``tokenize``, ``lowercase``, ``detokenizer``).

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

        pycocoevalcap's BLEU-4 of captions (``Bleu(4).compute_score(gts, res)[0][3]``):

        >>> captions = ["a man rides a horse on the beach", "two dogs play in the snow together"]
        >>> references = [["a man riding a horse on a beach", "a man rides a brown horse on the beach"],
        ...               ["two dogs play in the white snow"]]
        >>> round(corpus_bleu(captions, references, convention="coco").item(), 6)
        0.710805
    """
    config = BLEUConfig.from_options(options)
    require_corpus_smoothing(config)
    stats = sentence_statistics(preds, target, config)
    score: Tensor = bleu_from_statistics(
        stats.matches.sum(0), stats.totals.sum(0), stats.preds_len.sum(), stats.target_len.sum(), config
    )
    return score


@takes_preds_and_target
@within_cpu_share
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
    config = BLEUConfig.from_options(options)
    stats = sentence_statistics(preds, target, config)
    scores: Tensor = bleu_from_statistics(stats.matches, stats.totals, stats.preds_len, stats.target_len, config)
    return scores


@takes_preds_and_target
@within_cpu_share
def bleu_by_order(preds: Hypotheses, target: References, **options: Unpack[BLEUOptions]) -> BLEUByOrder:
    """BLEU-1 ... BLEU-N of a batch from one count: corpus ``(N,)`` and per sentence ``(B, N)``, float64.

    Takes the arguments of :func:`corpus_bleu` (``N`` is ``max_order``). BLEU-k weighs orders 1..k alike,
    so unequal ``weights`` are refused, and so are nltk's ``method5`` to ``method7`` (no corpus score).
    Under every convention ``corpus[k - 1]`` is :func:`corpus_bleu` and ``sentences[:, k - 1]``
    :func:`sentence_bleu` with ``max_order=k``. With ``convention="coco"`` it is pycocoevalcap's
    ``Bleu(N).compute_score(gts, res)``: ``corpus`` its list of BLEU-1..N, ``sentences`` its per-image
    lists (transposed).

    Example:
        >>> captions = ["a man rides a horse on the beach", "two dogs play in the snow together"]
        >>> references = [["a man riding a horse on a beach", "a man rides a brown horse on the beach"],
        ...               ["two dogs play in the white snow"]]
        >>> scores = bleu_by_order(captions, references, convention="coco")
        >>> [round(score, 4) for score in scores.corpus.tolist()]
        [0.9333, 0.8887, 0.8312, 0.7108]
        >>> [round(score, 4) for score in scores.sentences[1].tolist()]
        [0.8571, 0.7559, 0.6999, 0.6435]
    """
    config = BLEUConfig.from_options(options)
    return scores_by_order(sentence_statistics(preds, target, config), config)
