"""Checking and normalizing what users pass as ``preds`` and ``target``.

Two layouts are accepted, and both end up as padded int64 tensors for the engine:

* **padded tensors**: ``preds`` ``(B, Lp)`` and ``target`` ``(B, Lt)`` or ``(B, R, Lt)``. They are
  checked from shapes and dtypes only, so validation never synchronizes with the device. NumPy
  integer arrays (what Hugging Face's ``compute_metrics`` receives) are taken as CPU tensors.
* **ragged sequences**, as nltk takes them: ``preds`` a list of 1-D tensors or of lists of ints;
  ``target`` a list with, per hypothesis, either one 1-D tensor (its only reference) or a list of
  references (1-D tensors or lists of ints), as many as it has. Here an empty reference is a real
  reference of length 0, like ``[]`` in nltk and ``''`` in sacrebleu.

Both become one :class:`~torch_bleu.inputs.batch.TokenBatch`.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import torch
from torch import Tensor

from ..arrays import is_integer
from ..errors import InputError
from .batch import (
    SEQUENCES,
    TokenBatch,
    WrongKind,
    batch_sizes_differ,
    lengths_tensor,
    pad_rows,
    with_ragged_references,
)

#: One row of token ids: a 1-D integer tensor or array, or a sequence of ints.
TokenIds = Tensor | np.ndarray | Sequence[int]
#: What ``preds`` may be: ``(B, Lp)`` integer ids (a tensor, or a NumPy array), or one row per hypothesis,
#: or (with ``tokenize=``) one string per hypothesis.
Hypotheses = Tensor | np.ndarray | Sequence[TokenIds] | Sequence[str]
#: What ``target`` may be: ``(B, Lt)`` or ``(B, R, Lt)`` integer ids, or per hypothesis its one reference
#: row or a list of its references, as ids or (with ``tokenize=`` or a detokenizer) strings.
References = Tensor | np.ndarray | Sequence[TokenIds | Sequence[TokenIds] | str | Sequence[str]]


#: The layouts a tensor may have, by role: number of dimensions and how to describe them.
LAYOUTS = {
    "preds": ((2,), "2-D (batch, length)"),
    "target": ((2, 3), "2-D (batch, length) or 3-D (batch, references, length)"),
    "row": ((1,), "1-D (length)"),
}


def _as_tensor(value: Any, name: str) -> Any:
    """A NumPy array (as Hugging Face's ``compute_metrics`` gets them) as a tensor sharing its memory."""
    if not isinstance(value, np.ndarray):
        return value
    if value.dtype.kind in "OUS":
        raise WrongKind(f"{name} is an array of {value.dtype}, not of token ids")
    if value.dtype.kind not in "iu":
        raise TypeError(
            f"{name} must hold integer token ids, got a NumPy array of {value.dtype}"
            + _float_hint(name, value.ndim, value.dtype.kind == "f", ".astype(np.int64)", "axis")
        )
    return torch.from_numpy(value)


def _float_hint(name: str, dims: int, floating: bool, to_ids: str, axis: str) -> str:
    """What to pass instead of floats: the ids of logits (``(B, L, V)`` preds), or the ids floats hold;
    ``to_ids`` and ``axis`` (``dim`` of a tensor's ``argmax``, ``axis`` of a NumPy array's) in the array's spelling.

    Example:
        >>> _float_hint("preds", 3, True, ".astype(np.int64)", "axis")
        '; if these are logits or probabilities over the vocabulary, pass their ids: preds.argmax(axis=-1)'
    """
    if not floating:
        return ""
    if name == "preds" and dims == 3:
        return f"; if these are logits or probabilities over the vocabulary, pass their ids: {name}.argmax({axis}=-1)"
    return f"; if these are token ids stored as floats, pass {name}{to_ids}"


def _check_id_tensor(value: object, name: str, role: str) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be a tensor of integer token ids, got {type(value).__name__}")
    if not is_integer(value):
        hint = _float_hint(name, value.dim(), value.is_floating_point(), ".long()", "dim")
        raise TypeError(f"{name} must hold integer token ids, got dtype {value.dtype}{hint}")
    dims, description = LAYOUTS[role]
    if value.dim() not in dims:
        raise ValueError(f"{name} must be {description}, got shape {tuple(value.shape)}")
    if value.dim() == 3 and value.shape[0] and not value.shape[1]:
        raise InputError(
            f"{name} of shape {tuple(value.shape)} has no reference per hypothesis; every hypothesis needs at least "
            f"one (it may be empty: a ({value.shape[0]}, 1, 0) tensor, or [[]] per hypothesis in a list)"
        )
    if value.dtype == torch.uint64:
        check_fits_int64(value, name)
    return value


def check_fits_int64(value: Tensor, name: str) -> None:
    """Refuse ``torch.uint64`` ids of ``2**63`` and above, which int64 (the ids' type here) cannot hold: on the
    CPU by their values; elsewhere, where reading them would wait for the device, the dtype is refused.

    Example:
        >>> check_fits_int64(torch.tensor([5, 2**63], dtype=torch.uint64), "preds")
        Traceback (most recent call last):
        ...
        torch_bleu.errors.InputError: preds holds the id 9223372036854775808, above the int64 ids that tokens are ...
    """
    if value.device.type != "cpu":
        raise InputError(
            f"{name} holds torch.uint64 ids on {value.device}, which would have to be read back to check that they "
            f"fit int64 (the ids' type here); pass {name}.long() if every id is below 2**63"
        )
    if value.numel() and bool((value.view(torch.int64) < 0).any()):
        outside = int(value.view(torch.int64).min()) + 2**64
        raise InputError(
            f"{name} holds the id {outside}, above the int64 ids that tokens are here (at most 2**63 - 1); map the "
            "ids to smaller ones first"
        )


def _check_sequence(value: object, name: str) -> TokenIds:
    """One ragged row: a 1-D integer tensor, or a list or tuple (of ints, checked later in bulk)."""
    value = _as_tensor(value, name)
    if isinstance(value, str):
        raise WrongKind(f"{name} is a string")
    if isinstance(value, Tensor):
        return _check_id_tensor(value, name, "row")
    if isinstance(value, SEQUENCES):
        return value
    raise TypeError(f"{name} must be a 1-D tensor or a list of int token ids, got {type(value).__name__}")


def _ragged_preds(preds: object) -> list[TokenIds]:
    if not isinstance(preds, SEQUENCES):
        error = WrongKind if isinstance(preds, str) else TypeError
        raise error(
            "preds must be a (batch, length) tensor of token ids or a list of sequences of ids, "
            f"got {type(preds).__name__}"
        )
    return [_check_sequence(row, f"preds[{index}]") for index, row in enumerate(preds)]


def _ragged_target(target: object) -> list[list[TokenIds]]:
    """Per hypothesis, its list of references."""
    if not isinstance(target, SEQUENCES):
        raise TypeError(
            "target must be a tensor of token ids or a list with the references of each hypothesis, "
            f"got {type(target).__name__}"
        )
    references: list[list[TokenIds]] = []
    for index, entry in enumerate(target):
        name = f"target[{index}]"
        entry = _as_tensor(entry, name)
        if isinstance(entry, str):
            raise WrongKind(f"{name} is a string")
        if isinstance(entry, Tensor):
            references.append([_check_id_tensor(entry, name, "row")])
            continue
        if not isinstance(entry, SEQUENCES):
            raise TypeError(f"{name} must be a list of references or a 1-D tensor, got {type(entry).__name__}")
        if not entry:
            raise ValueError(f"{name} has no reference; every hypothesis needs at least one (it may be empty: [[]])")
        if any(isinstance(ref, str) for ref in entry):
            raise WrongKind(f"{name} holds strings")
        if not any(isinstance(ref, (Tensor, np.ndarray, *SEQUENCES)) for ref in entry):
            raise TypeError(
                f"{name} is a flat sequence of {type(entry[0]).__name__}; each entry of target is a list of "
                f"references, so wrap a single reference: [[1, 2, 3]], or pass it as a 1-D tensor"
            )
        references.append([_check_sequence(ref, f"{name}[{ref_index}]") for ref_index, ref in enumerate(entry)])
    return references


def _common_device(*groups: Sequence[object]) -> torch.device:
    devices = {value.device for group in groups for value in group if isinstance(value, Tensor)}
    if len(devices) > 1:
        raise ValueError(f"preds and target are on different devices: {', '.join(sorted(map(str, devices)))}")
    return devices.pop() if devices else torch.device("cpu")


def _ints_to_tensor(values: Sequence[object], device: torch.device) -> Tensor:
    """One int64 tensor from a flat list of Python (or numpy) ints, rejecting bools, floats and the like."""
    for kind in set(map(type, values)):
        if issubclass(kind, str):
            raise WrongKind("token ids must be ints, got str (words?)")
        if kind is bool or not issubclass(kind, numbers.Integral):
            raise TypeError(f"token ids must be ints, got {kind.__name__}")
    try:
        return torch.tensor(values, dtype=torch.int64, device=device)
    except (OverflowError, RuntimeError, ValueError) as error:
        ints = cast("list[numbers.Integral]", values)  # checked above
        outside = next((int(value) for value in ints if not -(2**63) <= int(value) < 2**63), None)
        if outside is None:
            raise ValueError(f"token ids must fit in int64 ({error})") from None
        raise InputError(
            f"token ids must fit in int64 (at most 2**63 - 1), got {outside}; map the ids to smaller ones first"
        ) from None


def _flatten(rows: Sequence[TokenIds], device: torch.device) -> tuple[Tensor, list[int]]:
    """Concatenate ragged rows into one int64 tensor on ``device``; also return the row lengths."""
    lengths = [int(row.shape[0]) if isinstance(row, Tensor) else len(row) for row in rows]
    as_ints = [token for row in rows if not isinstance(row, Tensor) for token in row]
    ints = _ints_to_tensor(as_ints, device)
    if len(as_ints) == sum(lengths):
        return ints, lengths
    pieces, start = [], 0
    for row, length in zip(rows, lengths):
        if isinstance(row, Tensor):
            pieces.append(row.to(torch.int64))
        else:
            pieces.append(ints[start : start + length])
            start += length
    return torch.cat(pieces), lengths


def _padded_tensors(preds: Tensor, target: Tensor) -> TokenBatch:
    preds = _check_id_tensor(preds, "preds", "preds")
    target = _check_id_tensor(target, "target", "target")
    if preds.shape[0] != target.shape[0]:
        raise ValueError(f"preds and target batch sizes differ: {preds.shape[0]} != {target.shape[0]}")
    if preds.device != target.device:
        raise ValueError(f"preds and target are on different devices: {preds.device} and {target.device}")
    if target.dim() == 2:
        target = target.unsqueeze(1)
    return TokenBatch(preds.long(), target.long())


def token_batch(preds: Hypotheses, target: References, hint: str = "", decoding: bool = False) -> TokenBatch:
    """Validate a batch and bring it to int64 ``(B, Lp)`` / ``(B, R, Lt)``, padding ragged input.

    Args:
        preds: ``(B, Lp)`` integer tensor, or a list of 1-D tensors or of lists of ints.
        target: ``(B, Lt)`` or ``(B, R, Lt)`` integer tensor, or a list with one entry per hypothesis:
            a 1-D tensor (one reference), or a list of references (1-D tensors or lists of ints).
        hint: what the metric tells users who pass text instead of ids.
        decoding: whether the ids are decoded by a detokenizer already; if not, ids beside reference
            strings get :data:`IDS_BESIDE_STRINGS` as advice instead of ``hint``.

    Example:
        >>> batch = token_batch(torch.tensor([[1, 2, 0]], dtype=torch.int32), torch.tensor([[1, 2]]))
        >>> batch.preds.dtype, tuple(batch.target.shape)
        (torch.int64, (1, 1, 2))
        >>> batch = token_batch([[1, 2, 3], [4]], [[[1, 2], []], [[4, 5, 6]]])
        >>> batch.preds.tolist(), batch.ref_present.tolist(), batch.row_lengths.tolist()
        ([[1, 2, 3], [4, 0, 0]], [[True, True], [True, False]], [[3, 2, 0], [1, 3, 0]])
        >>> token_batch(torch.tensor([[1.0]]), torch.tensor([[1]]))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        TypeError: preds must hold integer token ids, got dtype torch.float32; ... stored as floats, pass preds.long()
    """
    try:
        if isinstance(preds, (Tensor, np.ndarray)) and isinstance(target, (Tensor, np.ndarray)):
            return _padded_tensors(_as_tensor(preds, "preds"), _as_tensor(target, "target"))
        return _ragged_batch(_as_tensor(preds, "preds"), _as_tensor(target, "target"))
    except WrongKind as error:
        if not decoding and _holds_text(target) and not _holds_text(preds):
            raise error.with_hint(IDS_BESIDE_STRINGS) from None
        raise error.with_hint(hint) from None


#: What ids beside reference strings get, where no detokenizer decodes them.
IDS_BESIDE_STRINGS = (
    "preds are token ids, so to score subword ids against reference strings, pass "
    "detokenizer=torch_bleu.Detokenizer.from_sentencepiece(model) or "
    "torch_bleu.Detokenizer.from_huggingface(tokenizer) (of the tokenizer that made the ids); "
    "or decode preds and pass strings on both sides, with tokenize='13a'"
)

#: What nltk's order of arguments gets.
SWAPPED = (
    "preds and target look swapped: each entry of preds is a list of rows, as references are; nltk's "
    "corpus_bleu(list_of_references, hypotheses) takes the references first, torch_bleu takes the "
    "hypotheses first: (preds, target)"
)

#: What nltk's order of arguments to ``sentence_bleu`` gets, for one sentence.
SWAPPED_SENTENCE = (
    "preds and target look swapped: target is a flat list of ints, as nltk's hypothesis is, and preds a list "
    "of rows, as its references are; nltk's sentence_bleu(references, hypothesis) takes the references "
    "first, torch_bleu takes the hypotheses first, as a batch: sentence_bleu([hypothesis], [references])"
)


def unwrapped_reference(target: Sequence[int]) -> str:
    """What a flat list of ints as ``target`` beside one hypothesis gets: most likely its one reference,
    unwrapped; or nltk's ``sentence_bleu(references, hypothesis)`` with one reference.

    Example:
        >>> print(unwrapped_reference([1, 2, 3]))  # doctest: +ELLIPSIS
        target is a flat list of ints; if it is the one reference of the one hypothesis, wrap it: [[[1, 2, 3]]] ...
    """
    shown = ", ".join(map(str, target[:8])) + (", ..." if len(target) > 8 else "")
    return (
        f"target is a flat list of ints; if it is the one reference of the one hypothesis, wrap it: [[[{shown}]]] "
        "(per hypothesis, the list of its references); if the arguments follow nltk's sentence_bleu(references, "
        "hypothesis), torch_bleu takes the hypotheses first, as a batch: sentence_bleu([hypothesis], [references])"
    )


def _holds_text(value: object) -> bool:
    """Whether ``value`` is, or holds, strings: an array of them, or a list with strings or lists of strings."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "OUS"
    if isinstance(value, str):
        return True
    if not isinstance(value, SEQUENCES):
        return False
    return any(
        isinstance(entry, str) or (isinstance(entry, SEQUENCES) and any(isinstance(item, str) for item in entry))
        for entry in value
    )


def _flat_ints(value: object) -> bool:
    """Whether ``value`` is a list whose first entry is an int, as nltk's one hypothesis of ids."""
    if not isinstance(value, SEQUENCES) or not value:
        return False
    return isinstance(value[0], numbers.Integral) and not isinstance(value[0], bool)


def _lists_rows(value: object) -> bool:
    """Whether ``value``'s first entry is a list of rows, as in nltk's ``list_of_references``."""
    if not isinstance(value, SEQUENCES) or not value:
        return False
    first = value[0]
    return isinstance(first, SEQUENCES) and bool(first) and isinstance(first[0], (Tensor, np.ndarray, *SEQUENCES))


def _ragged_batch(preds: Any, target: Any) -> TokenBatch:
    """A batch of which one side at least is a sequence of rows, checked row by row."""
    if _lists_rows(preds) and not _lists_rows(target):
        raise TypeError(SWAPPED)
    if _flat_ints(target) and isinstance(preds, SEQUENCES) and preds and isinstance(preds[0], SEQUENCES):
        raise TypeError(SWAPPED_SENTENCE if len(preds) > 1 else unwrapped_reference(target))
    pred_rows = None if isinstance(preds, Tensor) else _ragged_preds(preds)
    references = None if isinstance(target, Tensor) else _ragged_target(target)
    batch = len(pred_rows) if pred_rows is not None else _check_id_tensor(preds, "preds", "preds").shape[0]
    target_batch = len(references) if references is not None else _check_id_tensor(target, "target", "target").shape[0]
    if batch != target_batch:
        raise batch_sizes_differ(batch, target_batch, target)
    ref_rows = [ref for refs in references for ref in refs] if references is not None else []
    device = _common_device([preds] if pred_rows is None else pred_rows, [target] if references is None else ref_rows)

    # every token of the batch in one flat tensor per side (a padded side as it is)
    pred_tokens, pred_lengths = _flatten(pred_rows, device) if pred_rows is not None else (preds, [])
    ref_tokens, ref_lengths = _flatten(ref_rows, device) if references is not None else (target, [])
    if pred_rows is None:
        padded_preds = preds.long()
        pred_lengths = [padded_preds.shape[1]] * batch
    else:
        preds_shape = (batch, max(pred_lengths, default=0))
        padded_preds = pad_rows(pred_tokens, pred_lengths, list(range(batch)), preds_shape)
    if references is None:
        padded_target = target.long() if target.dim() == 3 else target.long().unsqueeze(1)
        num_refs, width = padded_target.shape[1:]
        row_lengths = [[length] + [width] * num_refs for length in pred_lengths]
        return TokenBatch(padded_preds, padded_target, None, lengths_tensor(row_lengths, batch, num_refs, device))

    return with_ragged_references(
        padded_preds, pred_lengths, ref_tokens, ref_lengths, [len(refs) for refs in references]
    )


def checked_ref_present(ref_present: object, batch: TokenBatch) -> Tensor:
    """``ref_present`` as a ``(B, R)`` bool tensor for a padded ``target``, checked from its shape and dtype."""
    if batch.ref_present is not None:
        raise ValueError("ref_present goes with a padded target tensor; a ragged target lists its references itself")
    expected = tuple(batch.target.shape[:2])
    if not isinstance(ref_present, Tensor) or ref_present.dtype != torch.bool:
        found = ref_present.dtype if isinstance(ref_present, Tensor) else type(ref_present).__name__
        raise TypeError(f"ref_present must be a bool tensor of shape {expected}, got {found}")
    if tuple(ref_present.shape) != expected:
        raise ValueError(f"ref_present must have shape {expected} (batch, references), got {tuple(ref_present.shape)}")
    if ref_present.device != batch.target.device:
        raise ValueError(f"ref_present is on {ref_present.device} but the batch is on {batch.target.device}")
    return ref_present
