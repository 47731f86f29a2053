"""chrF statistics per sentence: hypothesis, reference and match counts of every order, best reference kept.

Character n-grams are n-grams of code points (whitespace removed unless ``whitespace``); chrF++'s
words are ``str.split()``'s, where a word of several characters gives up a punctuation character at
its end, else one at its start, as a word of its own (``(hi)`` gives ``(hi`` and ``)``). Each
hypothesis-reference pair is counted by the n-gram engine as a sentence of its own, and each
sentence keeps the pair with the highest chrF (the first of equals), as sacrebleu does.
"""

from __future__ import annotations

import torch
from torch import Tensor

from ..detokenize.chars import pack_kept, shifted
from ..detokenize.sacrebleu_words import PUNCTUATION, SPACE, character_classes
from ..detokenize.word_ids import word_rows
from ..engine import StackedRows, clipped_matches
from .config import CHRFConfig
from .score import chrf_percent
from .text import TextBatch


def chrf_word_starts(chars: Tensor, classes: Tensor) -> tuple[Tensor, Tensor]:
    """``(in_word, starts)`` of chrF++'s words in rows of code points (``classes``: their class bits).

    Example:
        >>> from ..detokenize.chars import rows_from_strings
        >>> chars = rows_from_strings(["(hi) a, ok"], torch.device("cpu"))
        >>> chrf_word_starts(chars, character_classes(chars))[1].int().tolist()
        [[1, 0, 0, 1, 0, 1, 1, 0, 1, 0]]
    """
    in_word = (classes & SPACE) == 0
    punctuation = (classes & PUNCTUATION) != 0
    column = torch.arange(chars.shape[-1], device=chars.device)
    run_start = in_word & ~shifted(in_word, -1, False)
    run_end = in_word & ~shifted(in_word, 1, False)
    # where each run of non-space characters ends, read from its first character
    last = torch.where(run_end, column, chars.shape[-1]).flip(-1).cummin(-1).values.flip(-1)
    last_is_punctuation = punctuation.gather(-1, last.clamp(max=max(chars.shape[-1] - 1, 0)))
    long_run = in_word & (last > column)  # at a run's first character: the run has more than one
    before_last = run_end & punctuation & ~run_start
    after_first = shifted(run_start & long_run & punctuation & ~last_is_punctuation, -1, False)
    return in_word, run_start | before_last | after_first


def _pair_statistics(tokens: Tensor, lengths: Tensor, orders: int) -> Tensor:
    """``(B, R, orders, 3)`` counts of each hypothesis (row 0 of ``tokens`` ``(B, 1 + R, L)``) against each
    reference."""
    batch, sources, width = tokens.shape
    references = sources - 1
    pairs = torch.stack([tokens[:, :1].expand(batch, references, width), tokens[:, 1:]], dim=2)
    pair_lengths = torch.stack([lengths[:, :1].expand(batch, references), lengths[:, 1:]], dim=2)
    pairs, pair_lengths = pairs.reshape(batch * references, 2, width), pair_lengths.reshape(batch * references, 2)
    keep = torch.arange(width, device=tokens.device) < pair_lengths.unsqueeze(-1)
    matches = clipped_matches(StackedRows(pairs, keep, pair_lengths), orders)[:, 0]
    order = torch.arange(1, orders + 1, device=tokens.device)
    ref_count = (pair_lengths[:, 1:] - order + 1).clamp_(min=0)
    hyp_count = (pair_lengths[:, :1] - order + 1).clamp_(min=0) * (ref_count > 0)  # 0 where the reference has none
    return torch.stack([hyp_count, ref_count, matches], dim=-1).view(batch, references, orders, 3)


def chrf_statistics(text: TextBatch, config: CHRFConfig) -> Tensor:
    """``(B, orders, 3)`` int64 statistics of each sentence: character orders first, then word orders.

    Example:
        >>> from .text import as_text
        >>> config = CHRFConfig(char_order=2)
        >>> chrf_statistics(as_text(["ab c"], [["abd"]], config), config).tolist()
        [[[3, 3, 2], [2, 2, 1]]]
    """
    batch, sources, width = text.chars.shape
    flat = text.chars.reshape(batch * sources, width)
    classes = character_classes(flat)
    counted = flat >= 0 if config.whitespace else (flat >= 0) & ((classes & SPACE) == 0)
    parts = []
    if config.char_order:
        chars = pack_kept(flat, counted).long()
        lengths = counted.sum(-1).view(batch, sources)
        parts.append(_pair_statistics(chars.view(batch, sources, chars.shape[-1]), lengths, config.char_order))
    if config.word_order:
        words = word_rows(flat, *chrf_word_starts(flat, classes))
        ids = words.ids.view(batch, sources, words.ids.shape[-1])
        parts.append(_pair_statistics(ids, words.lengths.view(batch, sources), config.word_order))
    statistics = torch.cat(parts, dim=2)
    scores = chrf_percent(statistics, config)
    if text.present is not None:
        scores = scores.masked_fill(~text.present, -2.0)  # below any score and below sacrebleu's start, -1
    best = scores.argmax(dim=1)  # the first of the highest, as sacrebleu keeps the first
    index = best.view(batch, 1, 1, 1).expand(batch, 1, config.orders, 3)
    return statistics.gather(1, index).squeeze(1)
