"""What ROUGE's integer states can hold, checked where weights and states come in.

A sentence's packed statistics (:meth:`torch_bleu.ROUGEScore.pack`) are, for each of the ``T`` types,
hits, prediction count and reference count (``3 * T``), then each score's two fixed-point limbs
(``3 * T * 2``, :mod:`.score`), then the number of sentences (1). Summed states packed alike are the
sums of ``N`` sentences. Whatever ``update`` counts satisfies, for every type and sum of ``N``:

* hits are at most the prediction's count and at most the reference's (clipped matches, an LCS);
* each score lies in ``[0, 1]``: its limbs ``(high, low)`` sum to at most ``N * 2**56``
  (``high * 2**28 + low``), with ``low`` at most ``N * (2**28 - 1)``;
* ``N`` is at most :data:`~.score.MAX_SENTENCES`, below which the limbs' sums fit int64;
* a kept sentence is one sentence (``N == 1``), and with ``accumulate="best"`` its limbs are those of
  the scores of its statistics.

Merged and loaded states on the CPU are read to check this; on an accelerator, where reading them would
wait for the device, it is left unchecked (their dtypes, shapes and signs are checked by
:meth:`~torch_bleu.metrics.base.CountingMetric.merge_state` as for every metric).
"""

from __future__ import annotations

import torch
from torch import Tensor

from ...errors import InputError
from .score import LIMB_BITS, LIMBS, MAX_SENTENCES, fixed_point, rouge_scores


def check_weight_limit(weight: Tensor, counted: int) -> None:
    """Refuse a CPU batch ``weight`` that would take the summed weights of the sentences past
    :data:`~.score.MAX_SENTENCES`, ``counted`` of them counted or queued already.

    Example:
        >>> check_weight_limit(torch.tensor([2**35, 1]), 0)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        torch_bleu.errors.InputError: ROUGE's sentences may weigh at most 2**35 - 1 in all (the limit of its exact ...
    """
    if weight.device.type != "cpu" or not weight.numel():
        return
    largest = int(weight.max())
    total = counted + (int(weight.long().sum()) if largest <= MAX_SENTENCES else largest)
    if total > MAX_SENTENCES:
        raise InputError(
            f"ROUGE's sentences may weigh at most 2**35 - 1 in all (the limit of its exact fixed-point sums); this "
            f"batch's weights take them to {total} or more: give weights that count how often a sentence occurs, "
            "or split the corpus among several metrics"
        )


def check_sentence_limit(sentences: Tensor, name: str = "sentences") -> None:
    """Refuse CPU counts of sentences beyond :data:`~.score.MAX_SENTENCES`, whose scores' sums int64 cannot hold.

    Example:
        >>> check_sentence_limit(torch.tensor(2**35))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        torch_bleu.errors.InputError: state 'sentences' sums 34359738368 sentences, more than the 2**35 - 1 ...
    """
    if sentences.device.type == "cpu" and sentences.numel() and bool((sentences > MAX_SENTENCES).any()):
        raise InputError(
            f"state {name!r} sums {int(sentences.max())} sentences, more than the 2**35 - 1 whose scores' sums fit "
            "int64: they cannot have been summed exactly; keep the sentences of one metric within the limit"
        )


def check_packed_states(packed: Tensor, types: int, *, kept: bool, best: bool) -> None:
    """Refuse CPU rows ``(n, F)`` of packed statistics of ``types`` ROUGE types that no sentences give (see
    the module's list): summed states, or with ``kept`` kept sentences, of ``accumulate="best"`` with ``best``.

    Example:
        >>> summed = torch.tensor([[2, 3, 2, 2**27, 0, 2**28, 0, 2**27, 0, 1]])  # one type, one sentence
        >>> check_packed_states(summed, 1, kept=False, best=True)
        >>> summed[0, 3] = 2**33  # a precision of 32
        >>> check_packed_states(summed, 1, kept=False, best=True)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        torch_bleu.errors.InputError: state 'score_sums' holds scores above 1 (a mean of 32.0 for one sentence): ...
    """
    if packed.device.type != "cpu" or not packed.numel():
        return
    statistics = packed[:, : 3 * types].reshape(-1, types, 3)
    limbs = packed[:, 3 * types : 3 * types * (1 + LIMBS)].reshape(-1, types, 3, LIMBS)
    sentences = packed[:, -1]
    names = dict.fromkeys(("statistics", "score_sums", "sentences"), "kept_sentences") if kept else {}
    check_sentence_limit(sentences, names.get("sentences", "sentences"))
    if kept and bool((sentences != 1).any()):
        raise InputError(f"state 'kept_sentences' must hold one sentence per row, got a row of {int(sentences.max())}")
    hits, predicted, referenced = statistics.unbind(-1)
    if bool((hits > predicted).any() or (hits > referenced).any()):
        raise InputError(
            f"state {names.get('statistics', 'statistics')!r} holds more hits than the prediction's or the "
            "reference's count: no sentence gives these statistics"
        )
    high, low = limbs.unbind(-1)
    unit = 1 << LIMB_BITS
    bound = sentences[:, None, None]
    carried = high + low // unit  # both checked first, so that neither overflows int64
    within = (high <= bound * unit) & (low <= bound * (unit - 1))
    within &= (carried < bound * unit) | ((carried == bound * unit) & (low % unit == 0))
    if not bool(within.all()):
        means = (high.double() + low.double() / unit) / unit / sentences.clamp(min=1).double()[:, None, None]
        whose = "one sentence" if int(sentences.max()) == 1 else "its sentences"
        raise InputError(
            f"state {names.get('score_sums', 'score_sums')!r} holds scores above 1 (a mean of {float(means.max())} "
            f"for {whose}): ROUGE scores lie in [0, 1]"
        )
    if kept and best and not torch.equal(limbs, fixed_point(rouge_scores(statistics))):
        raise InputError(
            "state 'kept_sentences' holds sentences whose scores are not those of their statistics "
            "(accumulate='best' scores each sentence of its own statistics)"
        )
