"""The batch every input becomes: padded int64 rows of ids, which references count, and how long each row is.

Ragged rows are padded on the way in, in one vectorized scatter, and their lengths go with them
(:attr:`TokenBatch.row_lengths`): the engine keeps what lies within a row's length, so any int64 id is
a token, and no padding id has to be found in the data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor

from ..arrays import is_tensor, sizes_from_data
from ..text.code_points import PAD

#: What a ragged row, or a list of rows, may be.
SEQUENCES = (list, tuple)


class WrongKind(TypeError):
    """Input of another kind than the one expected: text where ids go, or ids where text goes.

    The public input functions add the metric's advice (:meth:`with_hint`), since what to do instead
    depends on the metric and its options.
    """

    def with_hint(self, hint: str) -> TypeError:
        """The error with ``hint`` (what to pass instead) after its message."""
        return TypeError(f"{self}: {hint}" if hint else str(self))


class TokenBatch(NamedTuple):
    """A validated batch: ``preds`` ``(B, Lp)`` and ``target`` ``(B, R, Lt)``, both int64.

    ``ref_present`` ``(B, R)`` marks the real references when the input said so explicitly (ragged
    ``target``); ``None`` means "a reference row with no token left is absent". ``row_lengths``
    ``(B, 1 + R)`` are the lengths of the hypothesis and reference rows when some were ragged
    (``None`` for padded tensors, whose rows span their width). ``reference_chars`` ``(B, R, W)`` holds
    the code points of references given as strings beside subword ids (``target`` then has width 0).
    The fields are tensors, or NumPy arrays on a CPU batch's memory (:meth:`on_host`).
    """

    # Any: tensors, or NumPy arrays after on_host(), a kind chosen at run time that no type can follow
    preds: Any
    target: Any
    ref_present: Any = None
    row_lengths: Any = None
    reference_chars: Any = None

    def references_present(self, ref_len: Any) -> Any:
        """``(B, R)`` bool: the references that count, given their kept lengths ``ref_len`` ``(B, R)``.

        A ragged ``target`` said which exist. In a padded one a single reference always counts, even
        when empty (``None``); of several, those with a token left after dropping the ignored ids,
        and when none has, the first, as one empty reference.
        """
        if self.ref_present is not None:
            return self.ref_present
        if ref_len.shape[-1] == 1:
            return None
        present = ref_len > 0
        present[..., :1] |= ~present.any(-1)[..., None]
        return present

    def on_host(self) -> TokenBatch:
        """A batch of one reference per hypothesis as NumPy arrays on its CPU tensors' own memory, where
        sizes may follow the data (:func:`~torch_bleu.arrays.sizes_from_data`); else (or when it holds NumPy
        arrays already) the batch itself.

        The engine then counts each hypothesis-reference pair as a stream of its kept tokens, where a
        NumPy operation costs a fraction of a PyTorch one's dispatch. Several references stay tensors:
        their counts are scattered, which PyTorch does in place and NumPy in several copies as large.

        Example:
            >>> TokenBatch(torch.tensor([[5, 6]]), torch.tensor([[[5, 7]]])).on_host().target
            array([[[5, 7]]])
        """
        on_device = not sizes_from_data(self.preds)
        if self.reference_chars is not None or self.target.shape[1] != 1 or on_device or not is_tensor(self.preds):
            return self
        ref_present, row_lengths = (None if field is None else field.numpy() for field in self[2:4])
        return TokenBatch(self.preds.numpy(), self.target.numpy(), ref_present, row_lengths)


def batch_sizes_differ(batch: int, target_batch: int, target: object) -> ValueError:
    """The error for a ``target`` with another number of entries than there are hypotheses, saying so when
    ``target`` has sacrebleu's layout: one stream per reference, with one entry per sentence each.

    Example:
        >>> print(batch_sizes_differ(3, 2, [["a", "b", "c"], ["A", "B", "C"]]))  # doctest: +ELLIPSIS
        preds and target batch sizes differ: 3 != 2; target looks like sacrebleu's reference streams ...
    """
    message = f"preds and target batch sizes differ: {batch} != {target_batch}"
    if isinstance(target, SEQUENCES) and target and all(isinstance(s, SEQUENCES) and len(s) == batch for s in target):
        message += (
            "; target looks like sacrebleu's reference streams (one list per reference, one entry per sentence "
            "in each): pass list(zip(*streams)), the references of each sentence together"
        )
    return ValueError(message)


def pad_rows(flat: Tensor, lengths: list[int], slots: list[int], shape: tuple[int, ...]) -> Tensor:
    """Scatter ragged rows (concatenated in ``flat``) into slot ``slots[i]`` of a zero-padded ``shape`` tensor.

    Example:
        >>> pad_rows(torch.tensor([5, 6, 7]), [2, 0, 1], [0, 1, 2], (3, 2)).tolist()
        [[5, 6], [0, 0], [7, 0]]
    """
    rows, width = math.prod(shape[:-1]), shape[-1]
    padded = flat.new_zeros((rows, width))
    if flat.numel():
        device = flat.device
        row_ends = torch.tensor(lengths, dtype=torch.int64, device=device).cumsum(0)
        position = torch.arange(flat.numel(), device=device)
        row = torch.searchsorted(row_ends, position, right=True)  # the row each token belongs to
        column = position - (row_ends - torch.tensor(lengths, device=device))[row]
        padded[torch.tensor(slots, dtype=torch.int64, device=device)[row], column] = flat
    return padded.view(shape)


def lengths_tensor(lengths: list[list[int]], batch: int, num_refs: int, device: torch.device) -> Tensor:
    """Row lengths ``(B, 1 + R)`` as an int64 tensor on ``device``."""
    return torch.tensor(lengths, dtype=torch.int64, device=device).view(batch, 1 + num_refs)


def with_ragged_references(
    padded_preds: Tensor, pred_lengths: list[int], ref_tokens: Tensor, ref_lengths: list[int], counts: list[int]
) -> TokenBatch:
    """The batch of padded hypotheses and ragged references (concatenated in ``ref_tokens``), ``counts[i]`` of them
    for hypothesis ``i``."""
    batch, device = len(counts), padded_preds.device
    num_refs = max(counts, default=0)
    slots = [sentence * num_refs + index for sentence, count in enumerate(counts) for index in range(count)]
    shape = (batch, num_refs, max(ref_lengths, default=0))
    padded_target = pad_rows(ref_tokens, ref_lengths, slots, shape)
    ref_present = torch.arange(num_refs, device=device) < torch.tensor(counts, device=device).unsqueeze(-1)
    lengths_by_slot = [0] * (batch * num_refs)
    for slot, length in zip(slots, ref_lengths):
        lengths_by_slot[slot] = length
    row_lengths = [[pred_lengths[row], *lengths_by_slot[row * num_refs : (row + 1) * num_refs]] for row in range(batch)]
    return TokenBatch(padded_preds, padded_target, ref_present, lengths_tensor(row_lengths, batch, num_refs, device))


def joined_batches(batches: Sequence[TokenBatch]) -> TokenBatch:
    """Checked batches of tensors (their references alike: all of them strings or none, which count said
    by ``ref_present`` in all or in none) as one batch, in order, counted as each would be.

    Rows are padded with -1, an id no row keeps (:func:`~torch_bleu.engine.rows.kept_ids`), to the widest
    row; sentences with fewer references than the most get absent ones: rows of -1, or ``False`` in
    ``ref_present``. Where some batches give row lengths, the others' rows span the joined width.
    Sizes follow from shapes only.

    Example:
        >>> first = TokenBatch(torch.tensor([[5, 6]]), torch.tensor([[[5]]]))
        >>> second = TokenBatch(torch.tensor([[7]]), torch.tensor([[[7, 8], [9, 9]]]))
        >>> joined = joined_batches([first, second])
        >>> joined.preds.tolist(), joined.target.tolist()
        ([[5, 6], [7, -1]], [[[5, -1], [-1, -1]], [[7, 8], [9, 9]]])
    """
    if len(batches) == 1:
        return batches[0]
    references = max(batch.target.shape[1] for batch in batches)
    preds_width = max(batch.preds.shape[-1] for batch in batches)
    target_width = max(batch.target.shape[-1] for batch in batches)

    def padded(value: Tensor, *widths: int, fill: int | bool = PAD) -> Tensor:
        """``value`` padded at the end of its last dimensions to ``widths``, with ``fill``."""
        pad = [size for width, have in zip(reversed(widths), reversed(value.shape)) for size in (0, width - have)]
        return F.pad(value, pad, value=fill) if any(pad) else value

    preds = torch.cat([padded(batch.preds, preds_width) for batch in batches])
    target = torch.cat([padded(batch.target, references, target_width) for batch in batches])
    ref_present = row_lengths = reference_chars = None
    if batches[0].ref_present is not None:
        ref_present = torch.cat([padded(batch.ref_present, references, fill=False) for batch in batches])
    if any(batch.row_lengths is not None for batch in batches):
        spanned = max(preds_width, target_width)
        row_lengths = torch.cat(
            [
                padded(batch.row_lengths, 1 + references, fill=0)
                if batch.row_lengths is not None
                else batch.preds.new_full((batch.preds.shape[0], 1 + references), spanned)
                for batch in batches
            ]
        )
    if batches[0].reference_chars is not None:
        chars_width = max(batch.reference_chars.shape[-1] for batch in batches)
        reference_chars = torch.cat([padded(batch.reference_chars, references, chars_width) for batch in batches])
    return TokenBatch(preds, target, ref_present, row_lengths, reference_chars)
