"""Pairwise ROUGE: the sentence ROUGE F-measure of every candidate against every reference of its source.

Every row is read once: strings (and subword ids, decoded) become numbered words as ROUGE's sentence
metric reads them (:func:`~torch_bleu.metrics.rouge.words.text_words`), plain ids are words as they
are. ``rougeN`` counts each row's n-grams once and takes the clipped matches of all pairs from
:func:`~torch_bleu.engine.cross_matches.cross_matches`, its counts the metric's
(:meth:`~torch_bleu.metrics.rouge.kinds.NGrams.counts`); ``rougeL`` and ``rougeLsum`` are the metric's
statistics of pairs of rows (:func:`~torch_bleu.metrics.rouge.statistics.pair_statistics`), a chunk of
pairs at a time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import torch
from torch import Tensor

from ..engine.cross_matches import GroupedRows, cross_matches, side_lengths
from ..metrics.rouge.config import ROUGEConfig, ROUGEOptions, RougeType
from ..metrics.rouge.device_statistics import TextRows
from ..metrics.rouge.kinds import NGrams, RougeKind
from ..metrics.rouge.score import rouge_scores
from ..metrics.rouge.sentence_splitting import SentencesSeen, split_texts, texts_with_second_sentence
from ..metrics.rouge.statistics import pair_statistics
from ..metrics.rouge.words import text_words
from ..threads import within_cpu_share
from .bleu import result_device
from .inputs import decoded_grouped, grouped_ids, grouped_strings

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: The most words (of candidate rows and of reference rows each) of one chunk of LCS pairs.
CHUNK_WORDS = 1 << 20


class WordRows(NamedTuple):
    """The words of every row of ``S`` sources (each source's candidates, then its references).

    Attributes:
        grouped: the words end to end, as :func:`~torch_bleu.engine.cross_matches.cross_matches` reads them.
        words: ``(R, W)`` int64 word ids of each row, packed to the front (0 past a row's length).
        lines: ``(R, W)`` int64: the sentence of each word (equal within one, different across a boundary).
    """

    grouped: GroupedRows
    words: Tensor
    lines: Tensor


@within_cpu_share
def pairwise_rouge(
    candidates: Any, references: Any = None, *, rouge_type: RougeType = "rougeL", **options: Unpack[ROUGEOptions]
) -> Tensor:
    """``(S, N, M)`` float64: the ROUGE F-measure of candidate ``i`` of source ``s`` against its reference
    ``j`` alone, equal to rouge-score's ``RougeScorer([rouge_type], use_stemmer).score(reference,
    candidate)[rouge_type].fmeasure``.

    Args:
        candidates: ``S`` lists of candidate strings (``N_s`` each, any number); or an ``(S, N, L)``
            integer tensor of token ids, each id a word (padding dropped through ``ignore_ids``, rows cut
            at ``eos_id``), subword ids with ``detokenizer=``. Bool tensors are not ids.
        references: ``S`` lists of reference strings (``M_s`` each), or ``(S, M, L)`` ids; ``None`` (the
            default) scores the candidates against each other, as MBR decoding does.
        rouge_type: one of ``rouge1`` .. ``rouge9``, ``rougeL`` and ``rougeLsum`` (summaries split into
            sentences at newlines, or by ``split_sentences``; rows of plain ids at ``sentence_sep_id``).
        **options: any option of :class:`~torch_bleu.ROUGEConfig` but ``rouge_types``, ``accumulate`` and
            ``convention`` (pairs are scored as rouge-score scores them): ``use_stemmer``, ``tokenize``,
            ``sentence_sep_id``, ``split_sentences``, ``ignore_ids``, ``eos_id``, ``detokenizer``.

    Returns:
        ``N`` and ``M`` are the most candidates and references of a source; entries past a source's own
        are NaN. On the device of id input, else on the CPU.

    Raises:
        InputError: (a ``ValueError``) input that is neither lists of strings nor an integer tensor of the
            right shape. ValueError: ``rouge_types=`` (one ``rouge_type`` here), ``accumulate=`` (each pair
            is scored alone), ``convention="coco"`` or a wrong option.

    Example:
        >>> scores = pairwise_rouge([["the cat sat on the mat", "a cat sat", "dogs bark"]])
        >>> [[round(score, 4) for score in row] for row in scores[0].tolist()]
        [[1.0, 0.4444, 0.0], [0.4444, 1.0, 0.0], [0.0, 0.0, 1.0]]
        >>> ids = torch.tensor([[[5, 6, 7, 0], [7, 6, 5, 5]]])
        >>> pairwise_rouge(ids, rouge_type="rouge1", ignore_ids=[0])[0].tolist()
        [[1.0, 0.8571428571428571], [0.8571428571428571, 1.0]]
    """
    config = pairwise_config(rouge_type, options)
    seen = SentencesSeen.wanted(config.types, config.split_sentences)
    rows = word_rows(candidates, references, config, seen)
    if seen is not None:
        seen.warn()
    (kind,) = config.kinds
    candidate_lengths, reference_lengths, present = side_lengths(rows.grouped)
    if isinstance(kind, NGrams):
        hits = cross_matches(rows.grouped, kind.n)[..., kind.n - 1]
        counts = [kind.counts(lengths) for lengths in (candidate_lengths, reference_lengths)]
        statistics = torch.stack(
            [hits, counts[0][:, :, None].expand_as(hits), counts[1][:, None, :].expand_as(hits)], -1
        )
    else:
        statistics = lcs_statistics(rows, present.shape, kind)
    scores = torch.where(present, rouge_scores(statistics)[..., 2], torch.nan)
    return scores.to(result_device(candidates))


def pairwise_config(rouge_type: RougeType, options: ROUGEOptions) -> ROUGEConfig:
    """The :class:`~torch_bleu.ROUGEConfig` of one ``rouge_type`` and the other ``options``.

    Example:
        >>> pairwise_config("rouge2", {"use_stemmer": True}).rouge_types
        ('rouge2',)
    """
    if "rouge_types" in options:
        raise ValueError(
            f"pairwise ROUGE scores one type: pass rouge_type='rougeL' (or another), not rouge_types="
            f"{options['rouge_types']!r}"
        )
    if "accumulate" in options:
        raise ValueError(
            f"pairwise ROUGE scores each candidate against each reference alone: accumulate="
            f"{options['accumulate']!r} (how several references of one prediction make one score) has no "
            "meaning here; take the max or mean over the reference axis of the result instead"
        )
    if options.get("convention", "rouge-score") != "rouge-score":
        raise ValueError(
            f"pairwise ROUGE scores pairs as rouge-score does: convention={options['convention']!r} (pycocoevalcap's "
            "best precision and best recall over an image's references) has no meaning for one pair; use "
            "torch_bleu.sentence_rouge(..., convention='coco') for each caption against its references"
        )
    if not isinstance(rouge_type, str):
        raise ValueError(f"rouge_type must be one ROUGE type's name, such as 'rougeL', got {rouge_type!r}")
    return ROUGEConfig.from_options({**options, "rouge_types": (rouge_type,)})


def word_rows(candidates: Any, references: Any, config: ROUGEConfig, seen: SentencesSeen | None = None) -> WordRows:
    """The words of every row: strings and decoded subword ids read as the metric reads them (on the host,
    split into sentences by ``config.split_sentences``), plain ids as words (where they are);
    ``references=None``: the candidates are the references too. ``seen`` notes whether a row had a second
    sentence (of text, or of plain ids without ``sentence_sep_id``: none).

    Example:
        >>> rows = word_rows([["The cat.\\nA cat", "cat"]], None, ROUGEConfig())
        >>> rows.grouped.lengths.tolist(), rows.lines.tolist()  # "the cat" "a cat", then "cat"
        ([4, 1], [[0, 0, 1, 1], [1, 0, 0, 0]])
        >>> words = rows.words.tolist()
        >>> words[0][1] == words[0][3] == words[1][0] != words[0][0]  # equal words, equal numbers
        True
    """
    if isinstance(candidates, Tensor):
        rows, keep, counts, reference_counts = grouped_ids(candidates, references, config.ignored_ids, config.eos_ids)
        if config.detokenizer is None:
            if seen is not None and config.sentence_sep_id is None:
                seen.add(False)
            return _id_words(rows, keep, counts, reference_counts, config)
        grouped = decoded_grouped(rows, keep, counts, reference_counts, config.detokenizer)
    else:
        config.check_strings()
        grouped = grouped_strings(candidates, references)
    texts, counts, reference_counts = grouped
    if config.split_sentences is not None:
        texts = split_texts(texts, config.split_sentences)
    found = text_words(texts, config.tokenize, config.use_stemmer)
    if seen is not None:
        seen.add(texts_with_second_sentence(found.lines, found.lengths))
    tokens, lines, lengths = (torch.from_numpy(values) for values in (found.ids, found.lines, found.lengths))
    return WordRows(GroupedRows(tokens, lengths, counts, reference_counts), *_padded(tokens, lines, lengths))


def _id_words(
    rows: Tensor, keep: Tensor, counts: Tensor, reference_counts: Tensor | None, config: ROUGEConfig
) -> WordRows:
    """Plain ids as words (numbered densely), ``sentence_sep_id`` separating sentences."""
    config.check_plain_ids()
    separator = config.sentence_sep_id
    is_separator = rows == separator if separator is not None else torch.zeros_like(keep)
    keep = keep & ~is_separator
    tokens = torch.unique(rows[keep], return_inverse=True)[1]
    lines = is_separator.long().cumsum(-1)
    lengths = keep.sum(1)
    return WordRows(GroupedRows(tokens, lengths, counts, reference_counts), *_padded(tokens, lines[keep], lengths))


def _padded(tokens: Tensor, lines: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor]:
    """Words and lines of rows end to end as ``(R, W)`` rows packed to the front, 0 after each row's end."""
    rows = lengths.shape[0]
    width = int(lengths.max()) if rows else 0
    row = torch.repeat_interleave(torch.arange(rows, device=lengths.device), lengths)
    column = torch.arange(tokens.shape[0], device=lengths.device) - (lengths.cumsum(0) - lengths)[row]
    padded = []
    for values in (tokens, lines):
        out = torch.zeros((rows, width), dtype=torch.int64, device=lengths.device)
        out[row, column] = values
        padded.append(out)
    return padded[0], padded[1]


def lcs_statistics(rows: WordRows, shape: torch.Size, kind: RougeKind) -> Tensor:
    """``(S, N, M, 3)`` int64 ROUGE statistics (hits, candidate words, reference words) of ``kind`` (the
    LCS or the union LCS) of every pair of ``shape`` ``(S, N, M)``, a chunk of pairs at a time (pairs past
    a source's own: any numbers)."""
    grouped = rows.grouped
    sources, width, height = shape
    device = grouped.lengths.device
    references = torch.zeros_like(grouped.candidates) if grouped.references is None else grouped.references
    first_row = torch.cumsum(grouped.candidates + references, 0) - grouped.candidates - references
    last_row = max(grouped.lengths.shape[0] - 1, 0)
    candidate_row = (first_row[:, None] + torch.arange(width, device=device)).clamp(max=last_row)
    reference_first = first_row if grouped.references is None else first_row + grouped.candidates
    reference_row = (reference_first[:, None] + torch.arange(height, device=device)).clamp(max=last_row)
    pair_candidates = candidate_row[:, :, None].expand(shape).reshape(-1)
    pair_references = reference_row[:, None, :].expand(shape).reshape(-1)
    statistics = torch.zeros((pair_candidates.shape[0], 3), dtype=torch.int64, device=device)
    texts = TextRows(rows.words, rows.lines, grouped.lengths)
    step = max(1, CHUNK_WORDS // max(1, rows.words.shape[1]))
    for first in range(0, pair_candidates.shape[0], step):
        chosen = slice(first, first + step)
        statistics[chosen] = pair_statistics(texts, pair_candidates[chosen], pair_references[chosen], (kind,))[:, 0]
    return statistics.reshape(sources, width, height, 3)
