"""Per-sentence BLEU statistics of several systems against shared references, from word-id streams.

The command line scores whole text corpora: ``K`` systems' hypotheses against the same ``R``
references. A sentence's references and the hypotheses of a few systems form the rows of one
:class:`~torch_bleu.engine.rows.StackedRows` block, so the references are read once for several
systems, and the engine (:func:`~torch_bleu.engine.clipped_matches`) counts them all at once;
lengths, totals and reference lengths follow :func:`~.statistics.assemble_statistics`, as
for the metric. Sentences are counted in blocks of similar length (:func:`length_sorted_batches`),
so that short ones are not padded to the length of the longest.

On the host, a corpus with one reference goes to the engine system by system instead, each sentence's
hypothesis and reference end to end (:func:`pair_blocks`), which is faster still.

The engine runs on NumPy arrays on the host, which needs no PyTorch (whose import alone takes
longer than counting a WMT test set for 16 systems), or on tensors on a PyTorch device (a GPU).

Example:
    >>> from torch_bleu.text.vocabulary import Vocabulary
    >>> vocab = Vocabulary()
    >>> refs = [vocab.encode([["the", "cat", "sat"]])]
    >>> systems = [vocab.encode([["the", "cat", "sat"]]), vocab.encode([["the", "the", "dog"]])]
    >>> corpus_statistics(systems, refs, max_order=2)[:, 0].tolist()
    [[3, 3, 3, 2, 3, 2], [3, 3, 1, 0, 3, 2]]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from ...arrays import Array, ArrayT, is_tensor, to_host
from ...engine import RowStream, StackedRows, clipped_matches
from ...text.vocabulary import TokenStream
from .config import BLEUConfig
from .statistics import assemble_statistics, pack_statistics

#: About how many token slots one block holds (sentences x rows x width), on the host: NumPy's
#: temporaries then stay small enough for the allocator to reuse their memory instead of mapping
#: fresh pages for each.
HOST_MAX_SLOTS = 2**14
#: The same on a PyTorch device, which prefers larger batches.
DEVICE_MAX_SLOTS = 2**16
#: On the host, with one reference, how many sentences of a system are counted at once, as pairs end to end.
PAIRS_PER_BLOCK = 512
#: How many systems share a block. The engine's clipping reads every row of a sentence once per row,
#: so its cost grows with the square of the rows: on the 16 WMT17 systems, four per block count 1.5
#: to 2 times faster than one or all sixteen.
SYSTEMS_PER_BLOCK = 4

Progress = Callable[[int], None] | None


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


def padded_blocks(
    streams: Sequence[TokenStream], max_slots: int
) -> Iterator[tuple[np.ndarray, StackedRows[np.ndarray]]]:
    """The sentences of ``S`` streams as ``(sentences, rows)`` blocks of similar length.

    ``sentences`` ``(b,)`` are sentence indices; ``rows`` holds their ``(b, S, L)`` ids, padded at
    the end of each row, and which of them to keep.

    Example:
        >>> streams = [TokenStream(np.array([5, 6, 7]), np.array([2, 1])), TokenStream(np.array([8]), np.array([0, 1]))]
        >>> [(sentences.tolist(), rows.lengths.tolist()) for sentences, rows in padded_blocks(streams, max_slots=2)]
        [([1], [[1, 1]]), ([0], [[2, 0]])]
    """
    lengths = np.stack([stream.lengths for stream in streams], axis=1)  # (B, S)
    starts = np.cumsum([0] + [len(stream.ids) for stream in streams[:-1]])
    offsets = np.stack([np.cumsum(stream.lengths) - stream.lengths for stream in streams], axis=1) + starts
    ids = np.concatenate([stream.ids for stream in streams] + [np.zeros(1, dtype=np.int64)])  # one id to point at
    widths = np.maximum(lengths.max(axis=1, initial=0), 1)
    for batch in length_sorted_batches((widths * len(streams)).tolist(), max_slots):
        sentences = np.asarray(batch)
        columns = np.arange(widths[sentences].max())
        keep = columns < lengths[sentences, :, None]
        positions = np.where(keep, offsets[sentences, :, None] + columns, len(ids) - 1)
        yield sentences, StackedRows(ids[positions], keep, lengths[sentences])


def pair_blocks(system: TokenStream, reference: TokenStream, size: int) -> Iterator[tuple[slice, RowStream]]:
    """A system's sentences and their one reference, ``size`` sentences at a time, as pairs end to end.

    Example:
        >>> system = TokenStream(np.array([5, 6, 7]), np.array([2, 1]))
        >>> reference = TokenStream(np.array([8]), np.array([0, 1]))
        >>> [(sentences, rows.tokens.tolist()) for sentences, rows in pair_blocks(system, reference, size=2)]
        [(slice(0, 2, None), [5, 6, 7, 8])]
    """
    system_starts, reference_starts = (np.cumsum(stream.lengths) - stream.lengths for stream in (system, reference))
    tokens = np.concatenate([system.ids, reference.ids])
    for first in range(0, len(system.lengths), size):
        sentences = slice(first, first + size)
        lengths = np.stack([system.lengths[sentences], reference.lengths[sentences]], axis=1)  # (b, 2)
        # where each row's tokens lie in the system's ids followed by the reference's
        sources = np.stack([system_starts[sentences], len(system.ids) + reference_starts[sentences]], axis=1)
        row_lengths = lengths.reshape(-1)
        places = np.arange(int(row_lengths.sum()))
        places += np.repeat(sources.reshape(-1) - (row_lengths.cumsum() - row_lengths), row_lengths)
        yield sentences, RowStream(tokens.take(places), lengths)


def corpus_statistics(
    systems: Sequence[TokenStream],
    references: Sequence[TokenStream],
    max_order: int = 4,
    device: str | None = None,
    max_slots: int | None = None,
    progress: Progress = None,
) -> np.ndarray:
    """Packed statistics ``(K, B, 2 + 2N)`` of ``K`` systems against ``R`` references.

    Args:
        systems: each system's hypotheses, one stream of word ids per system.
        references: the reference streams; every line is a reference, empty ones included (as in
            sacrebleu).
        max_order: highest n-gram order.
        device: ``None`` to count with NumPy on the host, or a PyTorch device to count on.
        max_slots: token slots per block (:data:`HOST_MAX_SLOTS` or :data:`DEVICE_MAX_SLOTS` by default).
        progress: called after each block with the number of hypotheses it counted.

    Example:
        >>> from torch_bleu.text.vocabulary import Vocabulary
        >>> vocab = Vocabulary()
        >>> refs, systems = [vocab.encode([["a", "b"]])], [vocab.encode([["a", "c"]])]
        >>> corpus_statistics(systems, refs, max_order=2, device="cpu").tolist()
        [[[2, 2, 1, 0, 2, 1]]]
    """
    if device is None and len(references) == 1:
        matches: Array = _pair_matches(systems, references[0], max_order, progress)
    else:
        matches = _block_matches(systems, references, max_order, device, max_slots, progress)
    preds_len = np.stack([system.lengths for system in systems])  # (K, B)
    ref_len = np.stack([reference.lengths for reference in references], axis=1)  # (B, R)
    counted = to_host(matches).transpose(1, 0, 2)  # (K, B, N), one copy from the device
    return pack_statistics(assemble_statistics(counted, preds_len, ref_len, None, BLEUConfig(max_order=max_order)))


def _pair_matches(
    systems: Sequence[TokenStream], reference: TokenStream, max_order: int, progress: Progress
) -> np.ndarray:
    """``(B, K, N)`` clipped matches on the host, each system's hypotheses and the one reference as pairs."""
    matches = np.zeros((len(reference.lengths), len(systems), max_order), dtype=np.int64)
    for number, system in enumerate(systems):
        for sentences, pairs in pair_blocks(system, reference, PAIRS_PER_BLOCK):
            matches[sentences, number] = clipped_matches(pairs, max_order)[:, 0]
            if progress is not None:
                progress(len(pairs.lengths))
    return matches


def _block_matches(
    systems: Sequence[TokenStream],
    references: Sequence[TokenStream],
    max_order: int,
    device: str | None,
    max_slots: int | None,
    progress: Progress,
) -> Array:
    """``(B, K, N)`` clipped matches, a few systems and all references of similar sentences at a time."""
    matches = np.zeros((len(references[0].lengths), len(systems), max_order), dtype=np.int64)
    slots = max_slots or (HOST_MAX_SLOTS if device is None else DEVICE_MAX_SLOTS)
    if device is None:
        return _counted_blocks(matches, systems, references, max_order, slots, progress)
    import torch

    return _counted_blocks(torch.from_numpy(matches).to(device), systems, references, max_order, slots, progress)


def _counted_blocks(
    matches: ArrayT,
    systems: Sequence[TokenStream],
    references: Sequence[TokenStream],
    max_order: int,
    slots: int,
    progress: Progress,
) -> ArrayT:
    """``matches`` ``(B, K, N)`` filled in, block by block, each block counted where ``matches`` lies."""
    for first in range(0, len(systems), SYSTEMS_PER_BLOCK):
        group: Sequence[TokenStream] = systems[first : first + SYSTEMS_PER_BLOCK]
        for sentences, block in padded_blocks([*group, *references], slots):
            assert block.keep is not None  # a padded block says which of its slots hold tokens
            rows = StackedRows(
                _like(matches, block.tokens), _like(matches, block.keep), _like(matches, block.lengths), len(group)
            )
            matches[_like(matches, sentences), first : first + len(group)] = clipped_matches(rows, max_order)
            if progress is not None:
                progress(len(sentences) * len(group))
    return matches


def _like(like: ArrayT, array: np.ndarray) -> ArrayT:
    """``array`` itself, or as a tensor on the device of ``like``, a tensor."""
    if not is_tensor(like):
        return array
    import torch

    return torch.from_numpy(array).to(like.device)
