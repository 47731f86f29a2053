"""From rows of subword ids to rows of word ids, on the device: detokenize, then tokenize as sacrebleu.

The steps, each a module of this package:

1. ids to units: every id's code points, or raw bytes where its entry is part of a character only
   (:class:`~torch_bleu.detokenize.detokenizer.Detokenizer`), laid out after those of the ids
   before it (:func:`row_units`);
2. raw bytes to code points, with the decoder's rule for ill-formed UTF-8 (:mod:`.utf8`);
3. transformers' clean-up of spaces, when the tokenizer has it (:func:`clean_up_tokenization`);
4. sacrebleu's preprocessing and tokenizer on code points (:mod:`torch_bleu.text.sacrebleu_words`);
5. exact word ids (:mod:`torch_bleu.text.word_ids`), which the n-gram engine counts like any ids.

Shapes follow from the input's shapes only: a row of ``L`` ids holds at most ``L x E`` units (``E``
the longest entry), hence at most as many characters and words. On CPU, where reading a tensor
costs no synchronization, the widths shrink to what the rows actually hold.
"""

from __future__ import annotations

import torch
from torch import Tensor

from ..engine.rows import StackedRows
from ..text.code_points import PAD, replace_all, widths_from_data
from ..text.sacrebleu_words import preprocess, word_starts
from ..text.word_ids import WordRows, word_rows
from .detokenizer import CLEAN_UP_REPLACEMENTS, Detokenizer
from .utf8 import decode_units


def check_ids(ids: Tensor, keep: Tensor, vocab_size: int) -> None:
    """Refuse ids outside the vocabulary: at once on CPU, asynchronously on an accelerator (no sync)."""
    if ids.device.type == "meta" or torch.compiler.is_compiling() or ids.numel() == 0:
        return
    outside = keep & ((ids < 0) | (ids >= vocab_size))
    if ids.device.type == "cpu":
        if bool(outside.any()):
            bad = ids.reshape(-1)[outside.reshape(-1).int().argmax()]
            raise ValueError(f"token id {int(bad)} is outside the detokenizer's vocabulary of {vocab_size} ids")
        return
    torch._assert_async(~outside.any(), f"a token id is outside the detokenizer's vocabulary of {vocab_size} ids")


def row_units(ids: Tensor, keep: Tensor, detokenizer: Detokenizer) -> Tensor:
    """The units (code points, or raw bytes) of every row of ``ids`` ``(M, L)`` (the kept ones), as
    ``(M, W)`` int32, -1 past the end.

    Example:
        >>> detok = Detokenizer((b"", b"ab", b"c"), "per_byte")
        >>> row_units(torch.tensor([[1, 0, 2], [2, 2, 1]]), torch.tensor([[True] * 3, [True, False, True]]), detok)
        tensor([[97, 98, 99],
                [99, 97, 98]], dtype=torch.int32)

        (On CPU the width is what the longest row needs; elsewhere ``L x E``, here 6.)
    """
    entry_units, entry_lengths = detokenizer.tables(ids.device)
    safe_ids = torch.where(keep, ids, 0).clamp_(0, detokenizer.vocab_size - 1)
    lengths = entry_lengths[safe_ids].masked_fill_(~keep, 0)
    ends = lengths.cumsum(-1)
    entry_width = entry_units.shape[-1]
    width = ids.shape[-1] * entry_width
    if widths_from_data(ids):
        width = int(ends[:, -1].max())
        entry_width = min(entry_width, int(lengths.max()))
    offsets = torch.arange(entry_width, device=ids.device)
    slots = (ends - lengths).unsqueeze(-1) + offsets
    slots = torch.where(offsets < lengths.unsqueeze(-1), slots, width).flatten(1)
    values = entry_units[safe_ids][..., :entry_width].flatten(1)
    data = torch.full((ids.shape[0], width + 1), PAD, dtype=torch.int32, device=ids.device)
    return data.scatter_(1, slots, values)[:, :width]


def clean_up_tokenization(chars: Tensor) -> Tensor:
    """transformers' ``clean_up_tokenization`` on rows of code points (its replacements, one after another)."""
    for pattern, replacement in CLEAN_UP_REPLACEMENTS:
        chars = replace_all(chars, pattern, replacement)
    return chars


def decoded_chars(ids: Tensor, keep: Tensor, detokenizer: Detokenizer) -> Tensor:
    """The code points of ``detokenizer``'s text for each row of ``ids`` ``(M, L)``, kept ids only."""
    check_ids(ids, keep, detokenizer.vocab_size)
    chars = decode_units(row_units(ids, keep, detokenizer), detokenizer.invalid_utf8)
    return clean_up_tokenization(chars) if detokenizer.clean_up else chars


def words_of_text(chars: Tensor, tokenize: str) -> WordRows[Tensor]:
    """The words sacrebleu's tokenizer ``tokenize`` finds in rows of code points, as exact ids."""
    chars = preprocess(chars, tokenize)
    in_word, starts = word_starts(chars, tokenize)
    return word_rows(chars, in_word, starts)


def decoded_text(rows: StackedRows[Tensor], reference_chars: Tensor | None, detokenizer: Detokenizer) -> Tensor:
    """The text of rows of subword ids (:func:`~torch_bleu.engine.rows.stack_rows`): ``(B, S, W)`` code points.

    Each row is decoded by ``detokenizer``; references given as strings (``reference_chars``
    ``(B, R, W')`` code points) take the place of the (empty) reference rows, as they are.
    """
    batch, sources, width = rows.tokens.shape
    keep = rows.keep if rows.keep is not None else torch.ones_like(rows.tokens, dtype=torch.bool)
    rows_shape = (batch * sources, width)
    chars = decoded_chars(rows.tokens.reshape(rows_shape), keep.reshape(rows_shape), detokenizer)
    chars = chars.view(batch, sources, chars.shape[-1])
    if reference_chars is None:
        return chars
    hypotheses = chars[:, : rows.hypotheses]
    text_width = max(hypotheses.shape[-1], reference_chars.shape[-1])
    return torch.cat(
        [
            torch.nn.functional.pad(hypotheses, (0, text_width - hypotheses.shape[-1]), value=PAD),
            torch.nn.functional.pad(reference_chars, (0, text_width - reference_chars.shape[-1]), value=PAD),
        ],
        dim=1,
    )


def detokenized_rows(
    rows: StackedRows[Tensor], reference_chars: Tensor | None, detokenizer: Detokenizer, tokenize: str
) -> StackedRows[Tensor]:
    """Rows of subword ids (:func:`~torch_bleu.engine.rows.stack_rows`) as rows of the words of their text.

    Each row is decoded by ``detokenizer`` (references given as strings are taken as they are, see
    :func:`decoded_text`) and tokenized by sacrebleu's tokenizer ``tokenize``.
    """
    batch, sources = rows.tokens.shape[:2]
    chars = decoded_text(rows, reference_chars, detokenizer)
    words = words_of_text(chars.view(batch * sources, chars.shape[-1]), tokenize)
    ids, lengths = words.ids.view(batch, sources, words.ids.shape[-1]), words.lengths.view(batch, sources)
    kept = torch.arange(ids.shape[-1], device=ids.device) < lengths.unsqueeze(-1)
    return StackedRows(ids, kept, lengths, rows.hypotheses)
