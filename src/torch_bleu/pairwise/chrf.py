"""Pairwise chrF: the sentence chrF (or chrF++) of every candidate against every reference of its source.

Characters (whitespace left out unless ``whitespace``) and chrF++'s words are those the sentence
metric reads (:mod:`torch_bleu.metrics.chrf`); each row's n-grams are counted once and the matches of
all pairs come from :func:`~torch_bleu.engine.cross_matches.cross_matches`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor

from ..engine.cross_matches import GroupedRows, cross_matches, side_lengths
from ..engine.flat_pairs import PairStream
from ..engine.keys import dense_ranks
from ..errors import InputError
from ..metrics.chrf.config import CHRFConfig, CHRFOptions
from ..metrics.chrf.score import chrf_from_statistics
from ..metrics.chrf.statistics import window_counts
from ..metrics.chrf.words import word_starts, word_stream
from ..text.classes import SPACE, character_classes
from ..text.code_points import utf32
from ..threads import within_cpu_share
from .blocks import scores_by_blocks
from .inputs import Grouped, decoded_grouped, grouped_ids, grouped_strings

if TYPE_CHECKING:
    from typing_extensions import Unpack


@within_cpu_share
def pairwise_chrf(candidates: Any, references: Any = None, **options: Unpack[CHRFOptions]) -> Tensor:
    """``(S, N, M)`` float64: the chrF of candidate ``i`` of source ``s`` against its reference ``j`` alone,
    equal to sacrebleu's ``CHRF(...).sentence_score(candidate, [reference]).score / 100``.

    Args:
        candidates: ``S`` lists of candidate strings (``N_s`` each, any number); or, with ``detokenizer=``,
            an ``(S, N, L)`` integer tensor of subword ids (padding dropped through ``ignore_ids``; bool
            tensors are not ids).
        references: ``S`` lists of reference strings (``M_s`` each), or ``(S, M, L)`` subword ids; ``None``
            (the default) scores the candidates against each other, as MBR decoding does.
        **options: any option of :class:`~torch_bleu.CHRFConfig` (``char_order``, ``word_order``,
            ``beta``, ``whitespace``, ``eps_smoothing``, ``lowercase``, ``ignore_ids``, ``eos_id``,
            ``detokenizer``).

    Returns:
        ``N`` and ``M`` are the most candidates and references of a source; entries past a source's own
        are NaN. On the device of id input, else on the CPU.

    Raises:
        InputError: (a ``ValueError``) input that is neither lists of strings nor, with a detokenizer, an
            integer tensor of the right shape.

    Example:
        >>> scores = pairwise_chrf([["the cat sat", "a cat sat", "the dog"]])
        >>> scores.shape, [round(score, 4) for score in scores[0, 0].tolist()]
        (torch.Size([1, 3, 3]), [1.0, 0.6723, 0.1716])
    """
    config = CHRFConfig.from_options(options)
    grouped = grouped_rows(candidates, references, config)
    texts = [text.lower() for text in grouped.rows] if config.lowercase else grouped.rows
    scores = chrf_pair_scores(texts, grouped.candidates, grouped.references, config)
    device = candidates.device if isinstance(candidates, Tensor) else torch.device("cpu")
    return scores.to(device)


def grouped_rows(candidates: Any, references: Any, config: CHRFConfig) -> Grouped:
    """The rows of every source as strings, subword ids decoded."""
    if config.detokenizer is None:
        if isinstance(candidates, Tensor):
            raise InputError(f"pairwise chrF of ids: {config.input_hint}")
        return grouped_strings(candidates, references)
    rows, keep, counts, reference_counts = grouped_ids(candidates, references, config.ignored_ids, config.eos_ids)
    return decoded_grouped(rows, keep, counts, reference_counts, config.detokenizer)


def token_families(texts: Sequence[str], config: CHRFConfig) -> list[tuple[Tensor, Tensor, int]]:
    """chrF's token rows of ``texts`` (as the metric reads them: lowercased already where it lowercases):
    ``(tokens, lengths, orders)`` of its characters (code points; whitespace left out unless
    ``whitespace``) if it counts characters, then of its words (exact word ids) if it counts words,
    each row's tokens end to end, ``lengths`` ``(R,)`` int64 tokens of each row.

    Example:
        >>> [(tokens.tolist(), lengths.tolist(), orders) for tokens, lengths, orders in
        ...  token_families(["ab a", "b"], CHRFConfig(char_order=2, word_order=1))]
        [([97, 98, 97, 98], [3, 1], 2), ([1, 2, 3], [2, 1], 1)]
    """
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    chars = utf32(texts)
    row = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    classes = character_classes(chars)
    in_word = (classes & SPACE) == 0
    families = []
    if config.char_order:
        counted = np.ones_like(in_word) if config.whitespace else in_word
        families.append((chars[counted].astype(np.int64), row[counted], config.char_order))
    if config.word_order:
        ranks, distinct = dense_ranks(chars, in_word)
        starts = word_starts(classes, row)[1]
        pairs = len(texts) // 2 + 1  # every row below 2 * pairs: a row of the stream
        words = word_stream(PairStream(ranks[in_word], row[in_word], pairs, distinct), starts[in_word])
        families.append((words.ranks, words.rows, config.word_order))
    return [
        (
            torch.from_numpy(np.ascontiguousarray(tokens)),
            torch.from_numpy(np.bincount(token_rows, minlength=len(texts)).astype(np.int64)),
            orders,
        )
        for tokens, token_rows, orders in families
    ]


def chrf_pair_scores(texts: Sequence[str], candidates: Tensor, references: Tensor | None, config: CHRFConfig) -> Tensor:
    """The chrF of every pair of :func:`pairwise_chrf`, from the rows' texts (as the metric reads them:
    lowercased already where it lowercases) and the candidates and references of each source."""
    counted = []
    for tokens, lengths, orders in token_families(texts, config):
        grouped = GroupedRows(tokens, lengths, candidates, references)
        candidate_lengths, reference_lengths, present = side_lengths(grouped)
        counted.append((cross_matches(grouped, orders), candidate_lengths, reference_lengths))

    def score(rows: slice) -> Tensor:
        parts = []
        for matches, candidate_lengths, reference_lengths in counted:
            orders = matches.shape[-1]
            candidate_count, reference_count = window_counts(
                candidate_lengths[:, rows, None], reference_lengths[:, None, :], orders
            )
            shape = matches[:, rows].shape
            parts.append(
                torch.stack([candidate_count.expand(shape), reference_count.expand(shape), matches[:, rows]], -1)
            )
        scores: Tensor = chrf_from_statistics(torch.cat(parts, -2), config)
        return scores

    return scores_by_blocks(score, present)
