"""Pairwise inputs: per source, its candidates and its references, as strings or as id rows.

Strings come as ``S`` lists of candidates and ``S`` lists of references (any number per source);
ids as ``(S, N, L)`` and ``(S, M, L)`` tensors, every row present (padding ids dropped through
``ignore_ids``, rows cut at ``eos_id``). Subword ids with a detokenizer are decoded on their device
and read back as strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import torch
from torch import Tensor

from ..detokenize.detokenizer import Detokenizer
from ..detokenize.pipeline import decoded_chars
from ..engine.rows import kept_ids
from ..errors import InputError
from ..text.code_points import strings_from_rows


class Grouped(NamedTuple):
    """Rows of ``S`` sources: each source's candidates, then its references (strings, or id rows).

    Attributes:
        rows: every row, source after source.
        candidates: ``(S,)`` int64 candidates of each source.
        references: ``(S,)`` int64 references of each source; ``None``: the candidates are the
            references too (their rows are not repeated).
    """

    rows: list[str]
    candidates: Tensor
    references: Tensor | None


def grouped_strings(candidates: Sequence[Sequence[str]], references: Sequence[Sequence[str]] | None) -> Grouped:
    """Strings of each source, candidates then references (``None``: the candidates themselves).

    Example:
        >>> grouped = grouped_strings([["a", "b"], ["c"]], [["d"], []])
        >>> grouped.rows, grouped.candidates.tolist(), grouped.references.tolist()
        (['a', 'b', 'd', 'c'], [2, 1], [1, 0])
    """
    candidates = _string_lists(candidates, "candidates")
    if references is None:
        return Grouped([row for own in candidates for row in own], _counts(candidates), None)
    references = _string_lists(references, "references")
    if len(references) != len(candidates):
        raise InputError(f"candidates of {len(candidates)} sources, references of {len(references)}")
    rows = [row for own, given in zip(candidates, references) for row in (*own, *given)]
    return Grouped(rows, _counts(candidates), _counts(references))


def grouped_ids(
    candidates: Tensor, references: Tensor | None, ignore_ids: Sequence[int], eos_ids: Sequence[int]
) -> tuple[Tensor, Tensor, Tensor, Tensor | None]:
    """``(S, N, L)`` candidates and ``(S, M, L')`` references as ``(rows, keep, candidates, references)``:
    every source's candidates then its references, ``(S * (N + M), W)``, which of their ids count (not
    in ``ignore_ids``, before the row's first id of ``eos_ids``), and the counts of each source
    (:class:`Grouped`'s). ``references=None``: the candidates are the references too.

    Example:
        >>> rows, keep, n, m = grouped_ids(torch.tensor([[[1, 2]]]), torch.tensor([[[3], [0]]]), [0], [])
        >>> rows.tolist(), keep.tolist(), n.tolist(), m.tolist()
        ([[1, 2], [3, 0], [0, 0]], [[True, True], [True, False], [False, False]], [1], [2])
    """
    given = [candidates] if references is None else [candidates, references]
    for name, value in zip(("candidates", "references"), given):
        if not isinstance(value, Tensor) or value.dim() != 3 or value.is_floating_point() or value.is_complex():
            raise InputError(f"{name} as ids must be an integer tensor (sources, rows, length), got {_kind(value)}")
    if references is not None and references.shape[0] != candidates.shape[0]:
        raise InputError(f"candidates of {candidates.shape[0]} sources, references of {references.shape[0]}")
    width = max(value.shape[2] for value in given)
    ids, keep = [], []
    for value in given:
        value = value.long()
        kept = kept_ids(value, ignore_ids, eos_ids)
        kept = torch.ones_like(value, dtype=torch.bool) if kept is None else kept
        ids.append(torch.nn.functional.pad(value, (0, width - value.shape[2])))
        keep.append(torch.nn.functional.pad(kept, (0, width - value.shape[2])))
    sources = candidates.shape[0]
    rows = torch.cat(ids, 1).reshape(sources * sum(value.shape[1] for value in given), width)
    counts = [torch.full((sources,), value.shape[1], dtype=torch.int64) for value in given]
    return rows, torch.cat(keep, 1).reshape(rows.shape), counts[0], None if references is None else counts[1]


def decoded_strings(rows: Tensor, keep: Tensor, detokenizer: Detokenizer) -> list[str]:
    """The text of every row of subword ids (its kept ids), decoded on their device and read back.

    Example:
        >>> detokenizer = Detokenizer((b"", b"ab", b"c"), "per_byte")
        >>> decoded_strings(torch.tensor([[1, 2], [2, 0]]), torch.tensor([[True, True], [True, False]]), detokenizer)
        ['abc', 'c']
    """
    return strings_from_rows(decoded_chars(rows, keep, detokenizer))


def _string_lists(value: Any, name: str) -> list[list[str]]:
    """``value`` as lists of strings, one list per source."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InputError(f"{name} must be a list with a list of strings per source, got {_kind(value)}")
    lists = []
    for source in value:
        if isinstance(source, str) or not isinstance(source, Sequence) or not all(isinstance(s, str) for s in source):
            raise InputError(f"{name} must be a list with a list of strings per source, got an entry {_kind(source)}")
        lists.append(list(source))
    return lists


def _counts(lists: list[list[str]]) -> Tensor:
    return torch.tensor([len(strings) for strings in lists], dtype=torch.int64)


def _kind(value: object) -> str:
    if isinstance(value, Tensor):
        return f"a {value.dtype} tensor of shape {tuple(value.shape)}"
    return f"a {type(value).__name__}"
