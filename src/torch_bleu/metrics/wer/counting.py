"""WER's and CER's per-sentence counts of a batch: input checked by its kind (strings, ids, subword
ids), brought to rows of units (:mod:`.units`), then aligned (:func:`.alignment.error_counts`).

Strings are read on the host and counted on the CPU; ids, and subword ids decoded by the detokenizer,
are counted on their device, with sizes from shapes only.
"""

from __future__ import annotations

from typing import Any

from torch import Tensor

from ...arrays import pack_kept, sizes_from_data, to_host
from ...detokenize.pipeline import decoded_text
from ...engine.rows import StackedRows, stack_rows
from ...inputs.batch import SEQUENCES
from ...inputs.ids import token_batch
from ...inputs.strings import sentences, subword_batch
from .alignment import TokenRows, error_counts, rows_error_counts
from .config import WERConfig
from .units import text_units, unit_rows

#: The columns of the counts, in order.
COUNT_NAMES = ("hits", "substitutions", "deletions", "insertions")


def sentence_error_counts(preds: Any, target: Any, config: WERConfig) -> Tensor:
    """``(B, 4)`` int64 hits, substitutions, deletions and insertions of every hypothesis against its
    reference, in words (or, with ``config.characters``, characters), as jiwer's ``process_words``
    (``process_characters``) counts them.

    ``preds`` are strings, rows of ids (each id a unit) or, with ``config.detokenizer``, subword ids;
    ``target`` holds one reference per hypothesis, of the same kind (strings beside subword ids too).

    Example:
        >>> sentence_error_counts(["a b", "x y z"], ["b c", "x z"], WERConfig()).tolist()
        [[1, 0, 1, 1], [2, 0, 0, 1]]
    """
    if config.detokenizer is None and _holds_strings(preds):
        hypotheses, references = sentences(preds, target, config.input_hint)
        _one_reference_each(max(map(len, references), default=1), config)
        texts = [*hypotheses, *(refs[0] for refs in references)]
        units, lengths = unit_rows(texts, config.characters)
        batch = len(hypotheses)
        return error_counts(units[:batch], lengths[:batch], units[batch:], lengths[batch:])
    if config.detokenizer is None:
        ids = token_batch(preds, target, config.input_hint)
        rows = stack_rows(ids.preds, ids.target, config.ignored_ids, ids.ref_present, ids.row_lengths, config.eos_ids)
        _one_reference_each(rows.tokens.shape[1] - 1, config)
        return rows_error_counts(*_kept_rows(rows))
    else:
        ids = subword_batch(preds, target, config.input_hint)
        rows = stack_rows(ids.preds, ids.target, config.ignored_ids, ids.ref_present, ids.row_lengths, config.eos_ids)
        _one_reference_each(rows.tokens.shape[1] - 1, config)
        chars = decoded_text(rows, ids.reference_chars, config.detokenizer)
        units, lengths = text_units(chars.reshape(-1, chars.shape[-1]), config.characters)
    units = units.reshape(units.shape[0] // 2, 2, units.shape[-1])
    lengths = lengths.reshape(-1, 2)
    return error_counts(units[:, 0], lengths[:, 0], units[:, 1], lengths[:, 1])


def _kept_rows(rows: StackedRows) -> tuple[TokenRows, TokenRows]:
    """The kept ids of the hypotheses and of the references: on the host one row after another, else
    moved to the front of their rows."""
    width = rows.tokens.shape[-1]
    tokens = rows.tokens.reshape(rows.lengths.numel(), width)  # sizes from shapes: rows may be empty
    if sizes_from_data(tokens):
        lengths = to_host(rows.lengths).reshape(-1)
        kept = to_host(tokens) if rows.keep is None else to_host(tokens)[to_host(rows.keep).reshape(tokens.shape)]
        every = TokenRows.flat(kept.reshape(-1), lengths)
        return every.subset(slice(0, None, 2)), every.subset(slice(1, None, 2))
    lengths = rows.lengths.reshape(-1)
    if rows.keep is not None:
        (tokens,) = pack_kept(rows.keep.reshape(tokens.shape), width, (tokens, 0))
    return TokenRows.padded(tokens[0::2], lengths[0::2]), TokenRows.padded(tokens[1::2], lengths[1::2])


def _one_reference_each(references: int, config: WERConfig) -> None:
    if references > 1:
        raise ValueError(
            f"{config.metric_name} takes one reference per hypothesis (as jiwer does), got up to {references}"
        )


def _holds_strings(preds: object) -> bool:
    """Whether ``preds`` is a list of strings (or a string, which :func:`sentences` refuses with advice)."""
    return isinstance(preds, str) or (isinstance(preds, SEQUENCES) and bool(preds) and isinstance(preds[0], str))
