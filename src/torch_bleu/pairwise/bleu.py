"""Pairwise BLEU: the sentence BLEU of every candidate against every reference of its source.

Strings are tokenized as sacrebleu tokenizes them (:func:`~torch_bleu.text.lines.tokenized_lines`),
subword ids are decoded first; plain ids are counted where they are, on their device. Each row's
n-grams are counted once and the matches of all pairs come from
:func:`~torch_bleu.engine.cross_matches.cross_matches`; the scores are those of
:func:`~torch_bleu.bleu_from_statistics`, so every smoothing and ``effective_order`` apply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor

from ..engine.cross_matches import GroupedRows, cross_matches, side_lengths
from ..errors import InputError
from ..metrics.bleu.config import BLEUConfig, BLEUOptions
from ..metrics.bleu.score import bleu_from_statistics
from ..metrics.bleu.statistics import assemble_statistics
from ..text.lines import tokenized_lines
from ..threads import within_cpu_share
from .blocks import scores_by_blocks
from .inputs import decoded_grouped, grouped_ids, grouped_strings, kind_of

if TYPE_CHECKING:
    from typing_extensions import Unpack


@within_cpu_share
def pairwise_bleu(candidates: Any, references: Any = None, **options: Unpack[BLEUOptions]) -> Tensor:
    """``(S, N, M)`` float64: the BLEU of candidate ``i`` of source ``s`` against its reference ``j`` alone,
    equal to sacrebleu's ``BLEU(...).sentence_score(candidate, [reference]).score / 100``.

    Args:
        candidates: ``S`` lists of candidate strings (``N_s`` each, any number); or an ``(S, N, L)``
            integer tensor of token ids (padding dropped through ``ignore_ids``, rows cut at ``eos_id``),
            subword ids with ``detokenizer=``. Bool tensors are not ids; NumPy arrays of ids go through
            ``torch.as_tensor`` first.
        references: ``S`` lists of reference strings (``M_s`` each), or ``(S, M, L)`` ids; ``None`` (the
            default) scores the candidates against each other.
        **options: any option of :class:`~torch_bleu.BLEUConfig` (``smoothing``, ``effective_order``,
            ``max_order``, ``tokenize``, ``lowercase``, ``ignore_ids``, ``eos_id``, ``detokenizer``, ...).
            Strings are tokenized with ``tokenize="13a"`` unless told otherwise, as sacrebleu's ``BLEU()``
            tokenizes them; sacrebleu's ``BLEU()`` also smooths with ``"exp"``, which ``smoothing="exp"``
            gives here (the default, as everywhere in torch-bleu, is ``"none"``). Plain ids are counted as
            they are: ``tokenize=`` goes with strings or a ``detokenizer``, and is refused for plain ids.

    Returns:
        ``N`` and ``M`` are the most candidates and references of a source; entries past a source's own
        are NaN. On the device of id input, else on the CPU.

    Raises:
        InputError: (a ``ValueError``) input that is neither lists of strings nor an integer tensor of the
            right shape, or ``tokenize=`` with plain ids.

    Example:
        >>> scores = pairwise_bleu([["the cat sat on the mat", "the cat sat on a mat"]], effective_order=True)
        >>> [[round(score, 4) for score in row] for row in scores[0].tolist()]
        [[1.0, 0.5373], [0.5373, 1.0]]
        >>> ids = torch.tensor([[[5, 6, 7, 0], [5, 6, 8, 0]]])
        >>> pairwise_bleu(ids, ignore_ids=[0], max_order=2)[0].tolist()
        [[1.0, 0.5773502691896257], [0.5773502691896257, 1.0]]
    """
    config = pairwise_config(candidates, options)
    rows = token_rows(candidates, references, config)
    matches = cross_matches(rows, config.statistics_order)
    candidate_lengths, reference_lengths, present = side_lengths(rows)

    def score(rows: slice) -> Tensor:
        shape = matches[:, rows].shape[:-1]
        preds_len = candidate_lengths[:, rows, None].expand(shape)
        ref_len = reference_lengths[:, None, :, None].expand(*shape, 1)
        statistics = assemble_statistics(matches[:, rows], preds_len, ref_len, None, config)
        scores: Tensor = bleu_from_statistics(*statistics, config)
        return scores

    scores = scores_by_blocks(score, present)
    return scores.to(result_device(candidates))


def pairwise_config(candidates: Any, options: BLEUOptions) -> BLEUConfig:
    """The :class:`~torch_bleu.BLEUConfig` of ``options`` for ``candidates``: strings (and subword ids) are
    tokenized with ``"13a"`` unless ``tokenize=`` says otherwise; plain ids refuse ``tokenize=``.

    Example:
        >>> ids = torch.zeros((1, 1, 1), dtype=torch.long)
        >>> pairwise_config([["a b"]], {}).tokenize, pairwise_config(ids, {}).tokenize
        ('13a', None)
    """
    settings: dict[str, Any] = dict(options)
    as_ids = isinstance(candidates, Tensor)
    if not as_ids or settings.get("detokenizer") is not None:
        settings.setdefault("tokenize", "13a")
    if settings.get("convention") == "coco":
        raise InputError(
            "convention='coco' scores captions against their own references: use torch_bleu.sentence_bleu or "
            "torch_bleu.corpus_bleu with convention='coco'"
        )
    config = BLEUConfig.from_options(settings)
    if as_ids and config.detokenizer is None and config.tokenize is not None:
        raise InputError(
            f"candidates must be a list with a list of strings per source, got {kind_of(candidates)}: "
            + config.input_hint
        )
    return config


def result_device(candidates: Any) -> torch.device:
    """Where scores of ``candidates`` go: the device of id tensors, else the CPU."""
    return candidates.device if isinstance(candidates, Tensor) else torch.device("cpu")


def token_rows(candidates: Any, references: Any, config: BLEUConfig) -> GroupedRows:
    """The rows of every source as tokens (:class:`~torch_bleu.engine.cross_matches.GroupedRows`): words of
    strings (or of decoded subwords), or kept ids; ``references=None``: the candidates are the references.

    Example:
        >>> rows = token_rows([["a b", "b"]], None, BLEUConfig(tokenize="13a"))
        >>> rows.tokens.tolist(), rows.lengths.tolist(), rows.candidates.tolist(), rows.references
        ([0, 1, 1], [2, 1], [2], None)
    """
    if isinstance(candidates, Tensor):
        rows, keep, counts, reference_counts = grouped_ids(candidates, references, config.ignored_ids, config.eos_ids)
        if config.detokenizer is None:
            tokens = torch.unique(rows[keep], return_inverse=True)[1]
            return GroupedRows(tokens, keep.sum(1), counts, reference_counts)
        grouped = decoded_grouped(rows, keep, counts, reference_counts, config.detokenizer)
    else:
        grouped = grouped_strings(candidates, references)
    texts, counts, reference_counts = grouped
    if config.tokenize is None:  # strings, with tokenize=None said outright
        raise InputError(f"pairwise BLEU of strings with tokenize=None: {config.input_hint}")
    words = tokenized_lines(texts, config.tokenize, config.lowercase)
    return GroupedRows(torch.from_numpy(words.ids), torch.from_numpy(words.lengths), counts, reference_counts)
