"""ROUGE's per-sentence statistics and scores of a batch: input checked by its kind (strings, ids,
subword ids), brought to rows of numbered words and pairs of them, counted, and each prediction's
references combined (:func:`.statistics.reference_choice`; under ``convention="coco"``, :func:`.coco.coco_choice`).

Strings are read and counted on the host (:mod:`.words`, :mod:`.host_statistics`, their words
taken text after text, never padded); rows of ids, and subword ids decoded by the detokenizer, are
counted where :func:`.statistics.pair_statistics` chooses (on a CPU, on the host too), but for subword
ids with the stemmer or a sentence splitter: their decoded text is read back to the host, where those are
(:mod:`.sentence_splitting`), and counted as strings are.

Given a :class:`~.sentence_splitting.SentencesSeen`, the summaries whose words are on the host are checked
for a second sentence, for the warning that ``rougeLsum`` equals ``rougeL``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from ...arrays import pack_kept
from ...inputs.kinds import SubwordIds, Text, TokenIds, read_input
from ...text.code_points import strings_from_rows
from .coco import coco_choice, coco_words, empty_rows_as_one_word
from .code_points import rouge_char_words
from .config import ROUGEConfig
from .device_statistics import TextRows
from .host_statistics import host_pair_statistics
from .host_union_lcs import side_words
from .sentence_splitting import SentencesSeen, rows_with_second_sentence, split_texts, texts_with_second_sentence
from .statistics import pair_statistics, reference_choice
from .words import text_words


def sentence_statistics(
    preds: Any, target: Any, config: ROUGEConfig, seen: SentencesSeen | None = None
) -> tuple[Tensor, Tensor]:
    """Each prediction's ``(B, T, 3)`` int64 statistics (hits, prediction count, reference count of each
    type) and ``(B, T, 3)`` float64 scores (precision, recall, F-measure), of its references as
    ``config.accumulate`` combines them; ``seen`` notes whether a summary had a second sentence.

    Example:
        >>> statistics, scores = sentence_statistics(["the cat sat"], [["a cat sat down", "the cat"]], ROUGEConfig())
        >>> statistics[0].tolist()
        [[2, 3, 2], [1, 2, 1], [2, 3, 2], [2, 3, 2]]
    """
    match read_input(preds, target, config):
        case Text(hypotheses, references):
            return _of_strings(hypotheses, references, config, seen)
        case ids:
            return ids_statistics(ids, config, seen)


def ids_statistics(ids: TokenIds, config: ROUGEConfig, seen: SentencesSeen | None = None) -> tuple[Tensor, Tensor]:
    """Statistics and scores (:func:`sentence_statistics`) of a checked batch of ids: rows of ids (each id
    a word), or subword ids.

    Example:
        >>> from torch_bleu.inputs.ids import token_batch
        >>> ids = TokenIds(token_batch(torch.tensor([[5, 6, 7]]), torch.tensor([[5, 6]])), ROUGEConfig())
        >>> ids_statistics(ids, ROUGEConfig(rouge_types=("rouge1",)))[0].tolist()
        [[[2, 3, 2]]]
    """
    if isinstance(ids, SubwordIds):
        chars = ids.decoded()
        batch, sources = chars.shape[:2]
        if config.use_stemmer or config.split_sentences is not None:  # they read strings, on the host
            texts = strings_from_rows(chars)
            kept = ids.present.cpu().tolist() if ids.present is not None else [[True] * (sources - 1)] * batch
            references = [
                [text for text, keep in zip(texts[row * sources + 1 : (row + 1) * sources], kept[row]) if keep]
                for row in range(batch)
            ]
            statistics, scores = _of_strings(texts[::sources], references, config, seen)
            return statistics.to(chars.device), scores.to(chars.device)
        found, found_lines = rouge_char_words(chars.reshape(batch * sources, chars.shape[-1]))
        words = found.ids.reshape(batch, sources, found.ids.shape[-1])  # sizes from shapes: batches may be empty
        word_lines = found_lines.reshape(batch, sources, found_lines.shape[-1])
        lengths = found.lengths.reshape(batch, sources)
        one_line = False
    else:
        tokens = ids.rows.tokens
        keep = ids.rows.keep if ids.rows.keep is not None else torch.ones_like(tokens, dtype=torch.bool)
        separator = config.sentence_sep_id
        one_line = separator is None
        is_separator = tokens == separator if separator is not None else torch.zeros_like(keep)
        lines = is_separator.long().cumsum(-1)
        keep = keep & ~is_separator
        words, word_lines = pack_kept(keep, tokens.shape[-1], (tokens, 0), (lines, 0))
        lengths = keep.sum(-1)
    if seen is not None:  # rows of plain ids without a separator are one sentence each, wherever they are
        seen.add(False if one_line else rows_with_second_sentence(word_lines, lengths))
    return _of_rows(words, word_lines, lengths, ids.present, config)


def _of_rows(
    words: Tensor, lines: Tensor, lengths: Tensor, present: Tensor | None, config: ROUGEConfig
) -> tuple[Tensor, Tensor]:
    """Statistics and scores of ``(B, 1 + R, L)`` rows of words packed to the front, and their lines."""
    batch, sources, width = words.shape
    references = sources - 1
    rows = (batch * sources, width)
    texts = TextRows(words.reshape(rows), lines.reshape(rows), lengths.reshape(-1))
    index = torch.arange(rows[0], device=words.device).reshape(batch, sources)
    pred = index[:, :1].expand(batch, references).reshape(-1)  # each prediction, once per reference
    ref = index[:, 1:].reshape(-1)
    kinds = config.kinds
    statistics = pair_statistics(texts, pred, ref, kinds).reshape(batch, references, len(kinds), 3).to(words.device)
    if config.convention == "coco":
        statistics = empty_rows_as_one_word(statistics)
    if present is None:
        present = torch.ones((batch, references), dtype=torch.bool, device=words.device)
    return _choice(statistics, present, config)


def _choice(statistics: Tensor, present: Tensor, config: ROUGEConfig) -> tuple[Tensor, Tensor]:
    """Each sentence's statistics and scores of its references', as the convention combines them."""
    if config.convention == "coco":
        return coco_choice(statistics, present)
    return reference_choice(statistics, present, config.accumulate)


def _of_strings(
    hypotheses: list[str], references: list[list[str]], config: ROUGEConfig, seen: SentencesSeen | None
) -> tuple[Tensor, Tensor]:
    """Statistics and scores of prediction strings against their reference strings, on the host."""
    batch = len(hypotheses)
    counts = np.fromiter(map(len, references), dtype=np.int64, count=batch)
    if batch and counts.min() == 0:
        raise ValueError(f"prediction {int(counts.argmin())} has no reference: ROUGE needs at least one")
    texts = [*hypotheses, *(text for texts in references for text in texts)]
    if config.split_sentences is not None:
        texts = split_texts(texts, config.split_sentences)
    words = coco_words(texts) if config.convention == "coco" else text_words(texts, config.tokenize, config.use_stemmer)
    if seen is not None:
        seen.add(texts_with_second_sentence(words.lines, words.lengths))
    pair_sentence = np.repeat(np.arange(batch), counts)
    sides = [
        side_words(words.ids, words.lines, words.lengths, texts)
        for texts in (pair_sentence, batch + np.arange(int(counts.sum())))
    ]
    statistics = torch.from_numpy(host_pair_statistics(sides[0], sides[1], config.kinds))
    most = int(counts.max(initial=1))
    slot = torch.from_numpy(
        pair_sentence * most + np.arange(len(pair_sentence)) - np.repeat(np.cumsum(counts) - counts, counts)
    )
    grid = statistics.new_zeros((batch * most, *statistics.shape[1:]))
    grid[slot] = statistics
    present = torch.zeros(batch * most, dtype=torch.bool, device=statistics.device)
    present[slot] = True
    return _choice(grid.reshape(batch, most, *statistics.shape[1:]), present.reshape(batch, most), config)
