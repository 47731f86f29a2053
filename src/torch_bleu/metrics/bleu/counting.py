"""BLEU's statistics of a batch: input checked by the option's kind (ids, strings, subword ids), then counted.

Every BLEU path counts here: the functions, the metric (eagerly or compiled) and the tests. Ids go
straight to the engine; strings are split into words by sacrebleu's tokenizer and the words numbered;
subword ids are decoded and tokenized on their device (:mod:`torch_bleu.detokenize`).
"""

from __future__ import annotations

from typing import Any

import torch

from ...arrays import as_tensor, sizes_from_data_on
from ...engine import RowStream, clipped_matches
from ...inputs.batch import TokenBatch
from ...inputs.kinds import SubwordIds, Text, TokenIds, read_input
from .config import BLEUConfig
from .statistics import SentenceStatistics, assemble_statistics


def input_batch(
    preds: Any, target: Any, config: BLEUConfig, device: torch.device | None = None, on_host: bool = False
) -> TokenBatch | RowStream:
    """The batch to count: token ids; with a detokenizer, subword ids and references as ids or strings;
    or, when ``config.tokenize`` names a tokenizer (or under ``convention="coco"``), the words of strings
    (numbered on ``device``, the CPU by default).

    With ``on_host``, a batch that lives on the CPU comes as NumPy arrays on its memory, which the engine
    counts fastest (:meth:`~torch_bleu.inputs.batch.TokenBatch.on_host`), and strings with one
    reference each as a :class:`~torch_bleu.engine.rows.RowStream`. Subword ids stay tensors: decoding
    takes tensors.

    Example:
        >>> input_batch(["The cat sat."], ["The cat sat!"], BLEUConfig(tokenize="13a")).target.tolist()
        [[[0, 1, 2, 4]]]
        >>> input_batch(["The cat sat."], ["The cat sat!"], BLEUConfig(tokenize="13a"), on_host=True).tokens.tolist()
        [0, 1, 2, 3, 0, 1, 2, 4]
    """
    match read_input(preds, target, config, on_host):
        case Text(hypotheses, references):
            from ...inputs.strings import words_batch  # text imports its layers when first counted

            device = device or torch.device("cpu")
            host = on_host and sizes_from_data_on(device)
            tokenizer = config.text_tokenizer
            return words_batch(hypotheses, references, tokenizer, config.lowercase, None if host else device)
        case TokenIds(batch):  # subword ids too: decoded when counted
            return batch


def count_statistics(
    batch: TokenBatch | RowStream, config: BLEUConfig, algorithm: str = "auto"
) -> SentenceStatistics[Any]:
    """The statistics of a checked batch, over ``config.statistics_order`` orders.

    Example:
        >>> from torch_bleu.inputs.ids import token_batch
        >>> batch = token_batch(torch.tensor([[5, 6, 7, 0]]), torch.tensor([[5, 6, 8, 0]]))
        >>> count_statistics(batch, BLEUConfig(ignore_ids=[0])).matches.tolist()
        [[2, 1, 0, 0]]
    """
    if isinstance(batch, RowStream):  # one reference each: it always counts
        matches = clipped_matches(batch, config.statistics_order)[:, 0]
        return assemble_statistics(matches, batch.lengths[:, 0], batch.lengths[:, 1:], None, config)
    ids = TokenIds(batch, config) if config.detokenizer is None else SubwordIds(batch, config)
    rows = ids.rows
    if isinstance(ids, SubwordIds):
        from ...detokenize.pipeline import detokenized_rows

        assert config.tokenize is not None  # a detokenizer's tokenizer is resolved by the config
        rows = detokenized_rows(rows, batch.reference_chars, ids.detokenizer, config.tokenize)
    matches = clipped_matches(rows, config.statistics_order, algorithm)[:, 0]
    return assemble_statistics(matches, rows.lengths[:, 0], rows.lengths[:, 1:], ids.present, config)


def sentence_statistics(preds: Any, target: Any, config: BLEUConfig) -> SentenceStatistics:
    """Check a batch and count the statistics of each of its sentences (see :func:`~torch_bleu.sentence_statistics`),
    as tensors on the input's device (CPU batches counted on the host).

    Example:
        >>> stats = sentence_statistics(torch.tensor([[5, 6, 7, 0]]), torch.tensor([[5, 6, 8, 0]]),
        ...                          BLEUConfig(ignore_ids=[0]))
        >>> stats.matches.tolist(), stats.totals.tolist()
        ([[2, 1, 0, 0]], [[3, 2, 1, 0]])
    """
    return as_tensors(count_statistics(input_batch(preds, target, config, on_host=True), config))


def as_tensors(stats: SentenceStatistics) -> SentenceStatistics:
    """Statistics counted on the host as tensors; tensors as they are."""
    return SentenceStatistics(*map(as_tensor, stats))
