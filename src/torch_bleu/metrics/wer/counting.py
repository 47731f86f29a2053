"""WER's and CER's per-sentence counts of a batch: input checked by its kind (strings, ids, subword
ids), brought to units (:mod:`.units`), then aligned.

Strings, and ids on the CPU, are counted on the host by rapidfuzz, as jiwer counts them
(:mod:`.host_alignment`); ids on an accelerator, and subword ids decoded there by the detokenizer, are
counted on their device, with sizes from shapes only (:mod:`.device_alignment`, :mod:`.device_splits`).
Subword ids on the CPU are decoded to strings on the host (:func:`decoded_on_host`), as a tokenizer's
``batch_decode`` would, and counted as strings; a metric queues them as any ids, so a loop of small
batches decodes and counts a thousand rows at a time (:mod:`~torch_bleu.metrics.queued_ids`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from ...arrays import pack_kept, sizes_from_data, to_host
from ...detokenize.host import decoded_strings
from ...detokenize.pipeline import check_ids
from ...engine.rows import StackedRows
from ...inputs.kinds import SubwordIds, Text, TokenIds, kept_rows, read_input
from ...text.code_points import strings_from_rows
from .config import WERConfig
from .device_splits import error_counts
from .host_alignment import pair_counts, unit_counts
from .units import text_units, word_strings

#: The columns of the counts, in order.
COUNT_NAMES = ("hits", "substitutions", "deletions", "insertions")


def sentence_statistics(preds: Any, target: Any, config: WERConfig) -> Tensor:
    """``(B, 4)`` int64 hits, substitutions, deletions and insertions of every hypothesis against its
    reference, in words (or, with ``config.characters``, characters), as jiwer's ``process_words``
    (``process_characters``) counts them.

    ``preds`` are strings, rows of ids (each id a unit) or, with ``config.detokenizer``, subword ids;
    ``target`` holds one reference per hypothesis, of the same kind (strings beside subword ids too).

    Example:
        >>> sentence_statistics(["a b", "x y z"], ["b c", "x z"], WERConfig()).tolist()
        [[1, 0, 1, 1], [2, 0, 0, 1]]
    """
    match read_input(preds, target, config, on_host=True):
        case Text(hypotheses, references):
            return torch.from_numpy(string_counts(hypotheses, [refs[0] for refs in references], config.characters))
        case ids:
            return ids_statistics(ids, config)


def ids_statistics(ids: TokenIds, config: WERConfig) -> Tensor:
    """``(B, 4)`` counts (:func:`sentence_statistics`) of a checked batch of ids: rows of ids, or subword ids.

    Example:
        >>> from torch_bleu.inputs.ids import token_batch
        >>> ids = TokenIds(token_batch(torch.tensor([[5, 6, 0]]), torch.tensor([[6, 0, 0]])), WERConfig(ignore_ids=[0]))
        >>> ids_statistics(ids, WERConfig(ignore_ids=[0])).tolist()
        [[1, 0, 0, 1]]
    """
    if not isinstance(ids, SubwordIds):
        rows = TokenIds(ids.batch.on_host(), config).rows  # NumPy's rows where sizes follow the data
        return _kept_id_counts(rows, ids.batch.preds.shape[-1], ids.batch.target.shape[-1])
    if sizes_from_data(ids.batch.preds):
        hypotheses, references = decoded_on_host(ids, config)
        return torch.from_numpy(string_counts(hypotheses, [refs[0] for refs in references], config.characters))
    chars = ids.decoded()
    units, lengths = text_units(chars.reshape(2 * chars.shape[0], chars.shape[-1]), config.characters)
    return error_counts(units[0::2], lengths[0::2], units[1::2], lengths[1::2])


def decoded_on_host(ids: SubwordIds, config: WERConfig) -> tuple[list[str], list[list[str]]]:
    """Checked subword ids on the CPU (sizes from the data) as the strings their detokenizer decodes them to:
    the hypotheses and each one's reference (:func:`~torch_bleu.detokenize.host.decoded_strings`, the text
    the device path decodes in tensors).

    Example:
        >>> from torch_bleu import Detokenizer
        >>> config = WERConfig(detokenizer=Detokenizer((b"", b"a", b" b"), "per_byte"), ignore_ids=[0])
        >>> decoded_on_host(read_input(torch.tensor([[1, 2, 0], [2, 0, 0]]), ["a b", "c"], config), config)
        (['a b', ' b'], [['a b'], ['c']])
    """
    batch = ids.batch.on_host()
    rows = kept_rows(batch, config)
    config.check_references(rows.tokens.shape[1] - 1)
    tokens = to_host(rows.tokens)
    tokens = tokens.reshape(tokens.shape[0] * tokens.shape[1], tokens.shape[-1])  # rows may be empty
    keep = np.ones(tokens.shape, dtype=bool) if rows.keep is None else to_host(rows.keep).reshape(tokens.shape)
    check_ids(torch.from_numpy(tokens), torch.from_numpy(keep), ids.detokenizer.vocab_size)
    flat = tokens[keep].tolist()
    ends = np.cumsum(keep.sum(-1)).tolist()
    starts = [0, *ends[:-1]]
    texts = decoded_strings([flat[start:end] for start, end in zip(starts, ends)], ids.detokenizer)
    hypotheses = texts[0::2]
    if batch.reference_chars is None:
        return hypotheses, [[text] for text in texts[1::2]]
    return hypotheses, [[text] for text in strings_from_rows(batch.reference_chars)]


def string_counts(hypotheses: list[str], references: list[str], characters: bool) -> np.ndarray:
    """The counts of strings, as jiwer's ``cer_default`` (the ends stripped, every code point a unit) or
    ``wer_default`` (:func:`.units.jiwer_words`) reads them."""
    if characters:
        return pair_counts([text.strip() for text in references], [text.strip() for text in hypotheses])
    hyp_words, ref_words = word_strings(hypotheses, references)
    return pair_counts(ref_words, hyp_words)


def _kept_id_counts(rows: StackedRows[Any], hyp_width: int, ref_width: int) -> Tensor:
    """The counts of the kept ids of stacked rows (a hypothesis, then its reference): on the host their
    rows one after another, else moved to the front of rows as wide as each side's input rows."""
    batch, _, width = rows.tokens.shape
    tokens = rows.tokens.reshape(2 * batch, width)  # sizes from shapes: rows may be empty
    lengths = rows.lengths.reshape(2 * batch)
    if sizes_from_data(tokens):
        kept = to_host(tokens) if rows.keep is None else to_host(tokens)[to_host(rows.keep).reshape(tokens.shape)]
        return torch.from_numpy(unit_counts(kept.reshape(-1), to_host(lengths).astype(np.int64)))
    if rows.keep is not None:
        (tokens,) = pack_kept(rows.keep.reshape(tokens.shape), width, (tokens, 0))
    return error_counts(tokens[0::2, :hyp_width], lengths[0::2], tokens[1::2, :ref_width], lengths[1::2])
