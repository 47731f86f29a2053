"""Pairwise inputs: per source, its candidates and its references, as strings or as id rows.

Strings come as ``S`` lists of candidates and ``S`` lists of references (any number per source);
ids as ``(S, N, L)`` and ``(S, M, L)`` tensors, every row present (padding ids dropped through
``ignore_ids``, rows cut at ``eos_id``). Subword ids with a detokenizer are decoded on their device
and read back as strings.
"""

from __future__ import annotations

import numbers
import reprlib
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import torch
from torch import Tensor

from ..arrays import is_integer
from ..detokenize.detokenizer import Detokenizer
from ..detokenize.pipeline import decoded_chars
from ..engine.rows import kept_ids
from ..errors import InputError
from ..inputs.ids import check_fits_int64
from ..text.code_points import strings_from_rows

#: The shape of ids, by role: ``S`` sources, ``N`` candidates or ``M`` references each, ``L`` ids a row.
ID_SHAPES = {"candidates": "(S, N, L)", "references": "(S, M, L)"}


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
    every source's candidates then its references, ``(S * (N + M), W)``, which of their ids count (neither
    negative nor in ``ignore_ids``, before the row's first id of ``eos_ids``), and the counts of each source
    (:class:`Grouped`'s), all on the ids' device. ``references=None``: the candidates are the references too.

    Example:
        >>> rows, keep, n, m = grouped_ids(torch.tensor([[[1, 2]]]), torch.tensor([[[3], [0]]]), [0], [])
        >>> rows.tolist(), keep.tolist(), n.tolist(), m.tolist()
        ([[1, 2], [3, 0], [0, 0]], [[True, True], [True, False], [False, False]], [1], [2])
    """
    given = [checked_ids(candidates, "candidates")]
    if references is not None:
        given.append(checked_ids(references, "references"))
    if references is not None and references.shape[0] != candidates.shape[0]:
        raise InputError(f"candidates of {candidates.shape[0]} sources, references of {references.shape[0]}")
    width = max(value.shape[2] for value in given)
    ids, keep = [], []
    for value in given:
        value = value.long()
        kept = kept_ids(value, ignore_ids, eos_ids)
        ids.append(torch.nn.functional.pad(value, (0, width - value.shape[2])))
        keep.append(torch.nn.functional.pad(kept, (0, width - value.shape[2])))
    sources = candidates.shape[0]
    rows = torch.cat(ids, 1).reshape(sources * sum(value.shape[1] for value in given), width)
    counts = [torch.full((sources,), value.shape[1], dtype=torch.int64, device=rows.device) for value in given]
    return rows, torch.cat(keep, 1).reshape(rows.shape), counts[0], None if references is None else counts[1]


def decoded_grouped(
    rows: Tensor, keep: Tensor, candidates: Tensor, references: Tensor | None, detokenizer: Detokenizer
) -> Grouped:
    """Rows of subword ids (:func:`grouped_ids`) as the text of every row (its kept ids), decoded on their
    device and read back, with the counts of each source on the CPU, where the text is counted.

    Example:
        >>> detokenizer = Detokenizer((b"", b"ab", b"c"), "per_byte")
        >>> rows, keep = torch.tensor([[1, 2], [2, 0]]), torch.tensor([[True, True], [True, False]])
        >>> decoded_grouped(rows, keep, torch.tensor([2]), None, detokenizer)
        Grouped(rows=['abc', 'c'], candidates=tensor([2]), references=None)
    """
    texts = strings_from_rows(decoded_chars(rows, keep, detokenizer))
    return Grouped(texts, candidates.cpu(), None if references is None else references.cpu())


def _one_source_hint(value: Sequence[Any], name: str) -> str:
    """For a flat list of strings, how to pass them as the ``name`` of one source (``self_bleu([generations])``)."""
    if not all(isinstance(string, str) for string in value):
        return ""
    shown = ", ".join(map(repr, value[:3])) + (", ..." if len(value) > 3 else "")
    return f"; if these are the {name} of one source, wrap them in a list: [[{shown}]]"


def checked_ids(value: object, name: str) -> Tensor:
    """``value``, checked as the ``name`` ids (``"candidates"`` or ``"references"``) of :func:`grouped_ids`:
    a 3-D tensor of integers (bools are not ids). Anything else raises an
    :class:`~torch_bleu.errors.InputError` that says what it got.

    Example:
        >>> checked_ids(torch.ones((1, 2, 3), dtype=torch.bool), "candidates")
        Traceback (most recent call last):
        ...
        torch_bleu.errors.InputError: candidates must hold integer token ids, got dtype torch.bool
    """
    if isinstance(value, np.ndarray):
        raise _array_error(value, name)
    if not isinstance(value, Tensor) or value.dim() != 3:
        raise InputError(
            f"{name} as ids must be an {ID_SHAPES[name]} integer tensor (sources, {name}, length), got {kind_of(value)}"
        )
    if not is_integer(value):
        hint = f"; if these are token ids stored as floats, pass {name}.long()" if value.is_floating_point() else ""
        raise InputError(f"{name} must hold integer token ids, got dtype {value.dtype}{hint}")
    if value.dtype == torch.uint64:
        check_fits_int64(value, name)
    return value


def kind_of(value: object) -> str:
    """What ``value`` is, for an error message: a tensor's or an array's dtype and shape, else its type
    and a short ``repr``.

    Example:
        >>> kind_of(torch.zeros((2, 3))), kind_of(np.zeros(2, dtype=np.int32))
        ('a torch.float32 tensor of shape (2, 3)', 'a NumPy array of int32 of shape (2,)')
        >>> kind_of(1), kind_of(None), kind_of(["a", "b"])
        ('an int (1)', 'a NoneType (None)', "a list (['a', 'b'])")
    """
    if isinstance(value, Tensor):
        return f"a {value.dtype} tensor of shape {tuple(value.shape)}"
    if isinstance(value, np.ndarray):
        return f"a NumPy array of {value.dtype} of shape {value.shape}"
    name = type(value).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    return f"{article} {name} ({reprlib.repr(value)})"


def _array_error(array: np.ndarray, name: str) -> InputError:
    """What to pass instead of a NumPy array: a tensor of its ids, or lists of its strings."""
    if array.dtype.kind in "biuf":
        return InputError(
            f"{name} as ids must be an {ID_SHAPES[name]} integer torch tensor, got {kind_of(array)}: "
            f"pass torch.as_tensor({name})"
        )
    return InputError(
        f"{name} must be a list with a list of strings per source, got {kind_of(array)}: pass {name}.tolist()"
    )


def _string_lists(value: Any, name: str) -> list[list[str]]:
    """``value`` as lists of strings, one list per source."""
    if isinstance(value, np.ndarray):
        raise _array_error(value, name)
    if isinstance(value, str) or not isinstance(value, Sequence):
        hint = (
            "; candidates and references must both be strings or both be id tensors"
            if isinstance(value, Tensor)
            else ""
        )
        raise InputError(f"{name} must be a list with a list of strings per source, got {kind_of(value)}{hint}")
    lists = []
    for source, strings in enumerate(value):
        if isinstance(strings, str) or not isinstance(strings, Sequence):
            raise InputError(
                f"{name} must be a list with a list of strings per source, got {kind_of(strings)} for source {source}"
                + _one_source_hint(value, name)
            )
        for string in strings:
            if not isinstance(string, str):
                raise InputError(
                    f"{name} of source {source} must be strings, got {kind_of(string)}{_ids_hint(string, name)}"
                )
        lists.append(list(strings))
    return lists


def _ids_hint(entry: object, name: str) -> str:
    """Where ids go, for an entry of a list of strings that looks like an id or a row of ids."""
    row = isinstance(entry, (list, tuple)) and bool(entry) and all(map(_is_id, entry))
    if row or _is_id(entry) or isinstance(entry, (Tensor, np.ndarray)):
        return f"; token ids go in an {ID_SHAPES[name]} integer tensor (sources, {name}, length), padded"
    return ""


def _is_id(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _counts(lists: list[list[str]]) -> Tensor:
    return torch.tensor([len(strings) for strings in lists], dtype=torch.int64, device="cpu")
