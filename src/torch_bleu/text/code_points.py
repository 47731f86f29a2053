"""Text as arrays of Unicode code points: how text is held between the steps.

Two layouts serve every step (decoding bytes, clean-up, sacrebleu's tokenizers) alike, as the steps
only ever look along the last axis and take :data:`PAD` for "no character":

* rows ``(M, W)`` on the device: row ``m`` holds the code points of one string, packed to the front
  and followed by :data:`PAD` (decoded subword ids);
* one stream ``(N,)``: strings one after another, each after a :data:`PAD` (text read on the host,
  :mod:`.lines`).

On a device, every step maps rows to rows of the same width with operations whose shapes depend on
the shapes alone, never on the text. The functions here work on PyTorch tensors and NumPy arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..arrays import (
    Array,
    ArrayT,
    array_namespace,
    cast,
    columns_like,
    full_like_shape,
    is_tensor,
    kept_size,
    pack_kept,
    running_max,
    sizes_from_data,
    to_host,
)

if TYPE_CHECKING:
    import torch
    from torch import Tensor

#: What fills a row past its last character.
PAD = -1


def widths_from_data(chars: Array) -> bool:
    """Whether widths may follow the values of ``chars`` (:func:`~torch_bleu.arrays.sizes_from_data`, on
    an array that has some). Everywhere else they follow from shapes alone."""
    return chars.size != 0 if not is_tensor(chars) else chars.numel() > 0 and sizes_from_data(chars)


def rows_from_strings(strings: Sequence[str], device: torch.device, width: int | None = None) -> Tensor:
    """The code points of ``strings`` as rows ``(len(strings), width)`` on ``device`` (``width``: the longest).

    Example:
        >>> import torch
        >>> rows_from_strings(["ab", "€"], torch.device("cpu")).tolist()
        [[97, 98], [8364, -1]]
    """
    longest = max(map(len, strings), default=0)
    width = longest if width is None else width
    if longest > width:
        raise ValueError(f"a string of {longest} characters does not fit rows of width {width}")
    import torch

    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    rows = np.full((len(strings), width), PAD, dtype=np.int32)
    column = np.arange(lengths.sum()) - np.repeat(lengths.cumsum() - lengths, lengths)
    rows[np.repeat(np.arange(len(strings)), lengths), column] = utf32(strings)
    return torch.from_numpy(rows).to(device)


def utf32(strings: Sequence[str]) -> np.ndarray:
    """The code points of ``strings``, one after another, as int32 (one encoding of the whole batch).

    Example:
        >>> utf32(["ab", "€"]).tolist()
        [97, 98, 8364]
    """
    return np.frombuffer("".join(strings).encode("utf-32-le", "surrogatepass"), dtype=np.int32)


def ragged_rows(texts: Sequence[Sequence[str]], device: torch.device) -> tuple[Tensor, Tensor]:
    """Per sentence a list of strings (as many as it has) as ``(B, S, W)`` code points, and ``(B, S)``
    bool saying which of the ``S`` slots hold one (missing ones are empty rows).

    Example:
        >>> import torch
        >>> chars, present = ragged_rows([["ab", "c"], ["d"]], torch.device("cpu"))
        >>> chars.tolist(), present.tolist()
        ([[[97, 98], [99, -1]], [[100, -1], [-1, -1]]], [[True, True], [True, False]])
    """
    import torch

    counts = [len(strings) for strings in texts]
    slots = max(counts, default=1)
    chars = rows_from_strings(
        [text for strings in texts for text in [*strings, *[""] * (slots - len(strings))]], device
    )
    present = torch.arange(slots, device=device) < torch.tensor(counts, device=device).unsqueeze(-1)
    return chars.view(len(texts), slots, chars.shape[-1]), present


def strings_from_rows(rows: Array) -> list[str]:
    """The strings held in rows of code points (:data:`PAD` slots left out), over any leading dimensions;
    a tensor is read back from its device.

    Example:
        >>> strings_from_rows(np.array([[104, 105, -1], [0, -1, -1], [-1, 104, -1]], dtype=np.int32))
        ['hi', '\\x00', 'h']
    """
    rows = to_host(rows)
    rows = rows.reshape(int(np.prod(rows.shape[:-1])), rows.shape[-1])
    rows = np.take_along_axis(rows, np.argsort(rows == PAD, axis=-1, kind="stable"), -1)  # PAD slots last
    lengths = (rows != PAD).sum(-1)
    packed = np.ascontiguousarray(np.where(rows == PAD, 0, rows).astype("<u4"))
    texts = packed.view(f"<U{max(rows.shape[-1], 1)}").reshape(-1).tolist() if rows.shape[-1] else [""] * len(rows)
    # NumPy drops trailing NULs: give back those the text holds
    return [text + "\0" * (int(length) - len(text)) for text, length in zip(texts, lengths)]


def shifted(values: ArrayT, offset: int, fill: int | bool) -> ArrayT:
    """``values[..., i + offset]`` at column ``i`` (``fill`` where that falls outside the row).

    Example:
        >>> shifted(np.array([[1, 2, 3]]), 1, 0).tolist(), shifted(np.array([[1, 2, 3]]), -1, 0).tolist()
        ([[2, 3, 0]], [[0, 1, 2]])
    """
    width = values.shape[-1]
    out = full_like_shape(values, values.shape, fill)
    if abs(offset) >= width:
        return out
    if offset >= 0:
        out[..., : width - offset] = values[..., offset:]
    else:
        out[..., -offset:] = values[..., : width + offset]
    return out


def kept_chars(chars: ArrayT, keep: ArrayT) -> ArrayT:
    """The characters of ``chars`` where ``keep`` holds, packed to the front of rows of the same width
    (on CPU, of the width the longest row needs).

    Example:
        >>> chars = np.array([[97, 98, 99, -1]], dtype=np.int32)
        >>> kept_chars(chars, np.array([[True, False, True, False]])).tolist()
        [[97, 99]]
    """
    return pack_kept(keep, kept_size(keep), (chars, PAD))[0]


def first_of_chains(starts: ArrayT, stride: int) -> ArrayT:
    """Where ``starts`` holds and the start ``stride`` columns before was not itself taken.

    A scan from the left that takes a start unless the one ``stride`` before was taken: chains of
    starts ``stride`` apart alternate, taken, skipped, taken, ... This is how a left-to-right,
    non-overlapping search (``str.replace``, ``re.sub``) picks among overlapping matches.

    Example:
        >>> first_of_chains(np.array([[True, True, True, False, True]]), 1).tolist()
        [[True, False, True, False, True]]
    """
    xp = array_namespace(starts)
    width = starts.shape[-1]
    steps = -(-width // stride)
    padded = full_like_shape(starts, (*starts.shape[:-1], steps * stride), False)
    padded[..., :width] = starts
    lanes = padded.reshape(*starts.shape[:-1], steps, stride).swapaxes(-1, -2)  # lane i % stride, step i // stride
    step = columns_like(steps, starts)
    last_gap = running_max(xp.where(lanes, -1, step))  # the last step without a start
    taken: ArrayT = lanes & ((step - last_gap) % 2 == 1)
    return taken.swapaxes(-1, -2).reshape(*starts.shape[:-1], steps * stride)[..., :width]


def replace_all(chars: ArrayT, pattern: str, replacement: str) -> ArrayT:
    """``str.replace(pattern, replacement)`` on every row, for a ``replacement`` no longer than ``pattern``.

    Matches are taken left to right without overlapping, as ``str.replace`` takes them; the
    replacement is written where the match starts and the rest of the match is removed.

    Example:
        >>> import torch
        >>> rows = rows_from_strings(["a &amp;amp; b", " ' ' '"], torch.device("cpu"))
        >>> strings_from_rows(replace_all(rows, "&amp;", "&")), strings_from_rows(replace_all(rows, " ' ", "'"))
        (['a &amp; b', " ' ' '"], ['a &amp;amp; b', "'' '"])
    """
    if len(replacement) > len(pattern) or not pattern:
        raise ValueError("replace_all shortens text: the replacement must be no longer than a non-empty pattern")
    codes = [ord(char) for char in pattern]
    match = chars == codes[0]
    if widths_from_data(chars) and not bool(match.any()):  # on CPU, most text has nothing to replace
        return chars
    width = chars.shape[-1]
    for offset, code in enumerate(codes[1:], 1):
        match[..., max(width - offset, 0) :] = False  # the pattern would run past the row
        match[..., : max(width - offset, 0)] &= chars[..., offset:] == code
    if widths_from_data(chars) and not bool(match.any()):
        return chars
    overlap = _overlap_stride(pattern)
    if overlap:
        match = first_of_chains(match, overlap)
    xp = array_namespace(chars)
    replaced, keep = chars, full_like_shape(match, match.shape, True)
    for offset in range(len(pattern)):
        inside = shifted(match, -offset, False)
        if offset < len(replacement):
            if replacement[offset] != pattern[offset]:
                replaced = cast(xp.where(inside, ord(replacement[offset]), replaced), chars.dtype)
        else:
            keep &= ~inside
    if len(replacement) == len(pattern):
        return replaced
    return kept_chars(replaced, keep)


def _overlap_stride(pattern: str) -> int:
    """How far apart two overlapping matches of ``pattern`` can start (0: they never overlap).

    :func:`first_of_chains` resolves chains of matches one stride apart, which covers a pattern
    whose shortest self-overlap is at least half its length (``" ' "``: 2).
    """
    strides = [shift for shift in range(1, len(pattern)) if pattern[shift:] == pattern[: len(pattern) - shift]]
    if not strides:
        return 0
    if 2 * strides[0] < len(pattern):
        raise ValueError(f"pattern {pattern!r} overlaps itself more than once; replace_all cannot resolve it")
    return strides[0]
