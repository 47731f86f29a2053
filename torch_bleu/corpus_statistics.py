"""Per-sentence BLEU statistics of several systems against shared references, from word-id streams.

The command line scores whole text corpora: ``K`` systems' hypotheses against the same ``R``
references. Two ways, the same integers:

* :func:`host_statistics` counts with NumPy on the host. A sentence's references and all ``K``
  hypotheses form one block, so the references are read once for all systems, and nothing needs
  PyTorch, whose import alone takes longer than counting a WMT test set for 16 systems.
* :func:`device_statistics` runs the tensor engine (:func:`~torch_bleu.sentence_statistics`) on a
  PyTorch device (a GPU), system by system.

Both return sacrebleu's layout, ``(K, B, 2 + 2N)`` int64 rows ``[hyp_len, ref_len, matches...,
totals...]`` (:func:`~torch_bleu.significance.pack_statistics`), and both count in blocks of
sentences of similar length (:func:`length_sorted_batches`), so that short sentences are not padded
to the length of the longest one.

How :func:`host_statistics` groups equal n-grams, within each sentence's block of ``S = R + K`` rows:

1. **Digits.** Each token becomes its word id plus 2; past the end of a row the digit is ``1`` in a
   reference and ``0`` in a hypothesis, so a window that runs off a row never equals a real n-gram
   of another row.
2. **Keys, order by order.** The key of the order-``n`` window at a slot is the group number of its
   first ``n - 1`` tokens and the digit of its last token, with the row's source number below. One
   sort per order puts equal n-grams side by side, references first, then each hypothesis's copies
   together; the group numbers of this order make the next order's keys.
3. **Clipping.** In sorted order a run of equal keys is one row's copies of one n-gram, and a
   group the runs of one n-gram, references first. A hypothesis run of ``H`` copies adds
   ``min(H, C)`` matches, ``C`` the group's longest reference run.

Example:
    >>> from torch_bleu.text import Vocabulary
    >>> vocab = Vocabulary()
    >>> refs = [vocab.encode([["the", "cat", "sat"]])]
    >>> systems = [vocab.encode([["the", "cat", "sat"]]), vocab.encode([["the", "the", "dog"]])]
    >>> host_statistics(systems, refs, max_order=2)[:, 0].tolist()
    [[3, 3, 3, 2, 3, 2], [3, 3, 1, 0, 3, 2]]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Callable, Optional

import numpy as np

from .significance import pack_statistics
from .text import TokenStream

#: Padding id of the blocks built here; word ids are never negative.
PAD_ID = -1

#: About how many token slots one block holds (sentences x rows x width). NumPy's temporaries then
#: stay small enough for the allocator to reuse their memory instead of mapping fresh pages for each
#: (measured: 0.12 s for the 16 WMT17 systems, against 0.20 s with blocks four times larger).
HOST_MAX_SLOTS = 2**14
#: The same for the tensor engine, which prefers larger batches on a GPU.
DEVICE_MAX_SLOTS = 2**16

Progress = Optional[Callable[[int], None]]


def length_sorted_batches(costs: Sequence[int], max_slots: int) -> list[list[int]]:
    """Split sentence indices into batches of similar cost, of about ``max_slots`` padded slots each.

    Batches are formed in order of increasing cost and closed before their size times their largest
    cost exceeds ``max_slots``; a sentence costlier than that gets a batch of its own.

    Example:
        >>> length_sorted_batches([5, 1, 4, 1], max_slots=8)
        [[1, 3], [2], [0]]
    """
    order = sorted(range(len(costs)), key=costs.__getitem__)
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        # sorted by cost, so the newest sentence sets the batch width
        if current and (len(current) + 1) * max(costs[index], 1) > max_slots:
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


Block = tuple[np.ndarray, np.ndarray, np.ndarray]


def padded_blocks(streams: Sequence[TokenStream], max_slots: int) -> Iterator[Block]:
    """The sentences of ``S`` streams as ``(rows, tokens, lengths)`` blocks of similar length.

    ``rows`` ``(b,)`` are sentence indices, ``tokens`` ``(b, S, L)`` their ids padded with
    :data:`PAD_ID` and ``lengths`` ``(b, S)`` their row lengths.

    Example:
        >>> streams = [TokenStream(np.array([5, 6, 7]), np.array([2, 1])), TokenStream(np.array([8]), np.array([0, 1]))]
        >>> [(rows.tolist(), tokens.tolist()) for rows, tokens, _ in padded_blocks(streams, max_slots=2)]
        [([1], [[[7], [8]]]), ([0], [[[5, 6], [-1, -1]]])]
    """
    lengths = np.stack([stream.lengths for stream in streams], axis=1)  # (B, S)
    starts = np.cumsum([0] + [len(stream.ids) for stream in streams[:-1]])
    offsets = np.stack([np.cumsum(stream.lengths) - stream.lengths for stream in streams], axis=1) + starts
    ids = np.concatenate([stream.ids for stream in streams] + [np.full(1, PAD_ID)])  # one id to point at
    widths = np.maximum(lengths.max(axis=1, initial=0), 1)
    for batch in length_sorted_batches((widths * len(streams)).tolist(), max_slots):
        rows = np.asarray(batch)
        columns = np.arange(widths[rows].max())
        inside = columns < lengths[rows, :, None]
        positions = np.where(inside, offsets[rows, :, None] + columns, len(ids) - 1)
        yield rows, ids[positions], lengths[rows]


def _digits(tokens: np.ndarray, lengths: np.ndarray, num_refs: int, max_order: int) -> np.ndarray:
    """``(b, S, L + max_order - 1)``: each token's id plus 2, then end marks (1 in references, 0 in hypotheses)."""
    block, sources, width = tokens.shape
    end_marks = (np.arange(sources) < num_refs).astype(np.int64)[:, None]
    digits = np.empty((block, sources, width + max_order - 1), dtype=np.int64)
    digits[..., width:] = end_marks
    inside = np.arange(width) < lengths[..., None]
    digits[..., :width] = np.where(inside, tokens + 2, end_marks)
    return digits


def _starts(sorted_keys: np.ndarray, at_least: int) -> np.ndarray:
    """Flat bool: where a sentence's row of sorted keys begins, or a key differs from the one before it by
    ``at_least`` or more in its xor (1: any change; ``2**source_bits``: a change of n-gram)."""
    flat = sorted_keys.reshape(-1)
    starts = np.empty(flat.shape, dtype=bool)
    np.greater_equal(flat[1:] ^ flat[:-1], at_least, out=starts[1:])
    starts[:: sorted_keys.shape[1]] = True
    return starts


def _clipped_counts(sorted_keys: np.ndarray, new_group: np.ndarray, source_bits: int, num_refs: int) -> np.ndarray:
    """``(b, 2**source_bits)``: per sentence and row, the clipped matches of one order.

    In each sentence's sorted keys ``(b, slots)``, a run of equal keys is one row's copies of one
    n-gram, and a group (``new_group`` marks where one starts) the runs of one n-gram, references
    first. A hypothesis run of ``H`` copies adds ``min(H, C)``, ``C`` its group's longest reference run.
    """
    block, slots = sorted_keys.shape
    run_start = np.flatnonzero(_starts(sorted_keys, 1))
    run_length = np.diff(run_start, append=block * slots)
    run_row = sorted_keys.reshape(-1)[run_start] & ((1 << source_bits) - 1)
    in_reference = run_row < num_refs
    starts_group = new_group[run_start]
    group_of_run = np.cumsum(starts_group) - 1
    longest_reference = np.maximum.reduceat(np.where(in_reference, run_length, 0), np.flatnonzero(starts_group))
    matched = np.where(in_reference, 0, np.minimum(run_length, longest_reference[group_of_run]))
    sentence_row = (run_start // slots << source_bits) + run_row
    return np.bincount(sentence_row, weights=matched, minlength=block << source_bits).reshape(block, -1)


def block_matches(tokens: np.ndarray, lengths: np.ndarray, num_refs: int, max_order: int) -> np.ndarray:
    """``(b, max_order, S)``: clipped matches of every hypothesis row of a block (0 for reference rows).

    ``tokens`` ``(b, S, L)`` holds non-negative ids, ``lengths`` ``(b, S)`` the row lengths; rows
    ``0..num_refs-1`` of each sentence are its references, the others hypotheses.

    Example:
        >>> tokens = np.array([[[1, 2, 2], [2, 2, 2]]])  # one reference, one hypothesis
        >>> block_matches(tokens, np.array([[3, 3]]), num_refs=1, max_order=2).tolist()
        [[[0, 2], [0, 1]]]
    """
    block, sources, width = tokens.shape
    slots = sources * width
    digits = _digits(tokens, lengths, num_refs, max_order)
    radix = int(digits.max(initial=1)) + 1
    source_bits = max(sources - 1, 1).bit_length()
    if ((block * slots + 1) * radix) << source_bits >= 2**63:
        raise ValueError(f"too many distinct words or token slots for exact int64 keys ({radix}, {block * slots})")
    source = np.arange(sources).reshape(sources, 1)
    matches = np.empty((block, max_order, sources), dtype=np.int64)
    prefix = digits[..., :width]
    for order in range(max_order):
        keys = ((prefix << source_bits) + source).reshape(block, slots)
        if order + 1 == max_order:
            sorted_keys, key_order = np.sort(keys, axis=-1), None
        else:
            key_order = np.argsort(keys, axis=-1)
            sorted_keys = np.take_along_axis(keys, key_order, axis=-1)
        new_group = _starts(sorted_keys, 1 << source_bits)
        matches[:, order] = _clipped_counts(sorted_keys, new_group, source_bits, num_refs)[:, :sources]
        if key_order is not None:  # the group numbers of this order's n-grams head the next order's keys
            group_at_slot = np.empty_like(keys)
            np.put_along_axis(group_at_slot, key_order, np.cumsum(new_group).reshape(block, slots), axis=-1)
            prefix = group_at_slot.reshape(block, sources, width) * radix + digits[..., order + 1 : order + 1 + width]
    return matches


def closest_reference_length(hyp_len: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    """sacrebleu's effective reference length: per hypothesis ``(K, B)``, the length among ``(B, R)`` closest
    to it, ties going to the shorter reference.

    Example:
        >>> closest_reference_length(np.array([[12, 12]]), np.array([[13, 11], [14, 10]])).tolist()
        [[11, 10]]
    """
    distance = np.abs(ref_len - hyp_len[..., None])  # (K, B, R)
    choice = np.argmin(distance * (ref_len.max(initial=0) + 1) + ref_len, axis=-1)
    return np.take_along_axis(np.broadcast_to(ref_len, distance.shape), choice[..., None], axis=-1)[..., 0]


def host_statistics(
    systems: Sequence[TokenStream],
    references: Sequence[TokenStream],
    max_order: int = 4,
    max_slots: int = HOST_MAX_SLOTS,
    progress: Progress = None,
) -> np.ndarray:
    """Packed statistics ``(K, B, 2 + 2N)`` of ``K`` systems against ``R`` references, counted with NumPy.

    Every reference line is a reference, empty ones included (as in sacrebleu). ``progress`` is called
    with the number of sentences counted after each block.
    """
    streams = list(references) + list(systems)
    num_refs = len(references)
    num_sentences = len(streams[0].lengths)
    matches = np.zeros((num_sentences, max_order, len(streams)), dtype=np.int64)
    for rows, tokens, lengths in padded_blocks(streams, max_slots):
        matches[rows] = block_matches(tokens, lengths, num_refs, max_order)
        if progress is not None:
            progress(len(rows))
    hyp_len = np.stack([system.lengths for system in systems])  # (K, B)
    ref_len = np.stack([reference.lengths for reference in references], axis=1)  # (B, R)
    totals = np.maximum(hyp_len[..., None] - np.arange(max_order), 0)  # c tokens hold max(0, c - n + 1) n-grams
    target_len = closest_reference_length(hyp_len, ref_len)
    return pack_statistics((matches[..., num_refs:].transpose(2, 0, 1), totals, hyp_len, target_len))


def device_statistics(
    systems: Sequence[TokenStream],
    references: Sequence[TokenStream],
    max_order: int = 4,
    device: str = "cuda",
    max_slots: int = DEVICE_MAX_SLOTS,
    progress: Progress = None,
) -> np.ndarray:
    """As :func:`host_statistics`, counted by the tensor engine on PyTorch ``device``, system by system
    (``progress`` then counts ``K * B`` sentences).

    Example:
        >>> from torch_bleu.text import Vocabulary
        >>> vocab = Vocabulary()
        >>> refs, systems = [vocab.encode([["a", "b"]])], [vocab.encode([["a", "c"]])]
        >>> device_statistics(systems, refs, max_order=2, device="cpu").tolist()
        [[[2, 2, 1, 0, 2, 1]]]
    """
    import torch

    from .statistics import sentence_statistics

    num_sentences = len(references[0].lengths)
    per_system = []
    for system in systems:
        fields = [torch.zeros(num_sentences, max_order, dtype=torch.int64, device=device) for _ in range(2)]
        fields += [torch.zeros(num_sentences, dtype=torch.int64, device=device) for _ in range(2)]
        for rows, tokens, _ in padded_blocks([system, *list(references)], max_slots):
            block = torch.from_numpy(tokens).to(device)
            present = torch.ones(block.shape[0], block.shape[1] - 1, dtype=torch.bool, device=device)
            stats = sentence_statistics(block[:, 0], block[:, 1:], max_order, (PAD_ID,), ref_present=present)
            rows_on_device = torch.from_numpy(rows).to(device)
            for field, counted in zip(fields, stats):
                field[rows_on_device] = counted
            if progress is not None:
                progress(len(rows))
        per_system.append(fields)
    return pack_statistics([torch.stack(field) for field in zip(*per_system)])  # one copy to the host
