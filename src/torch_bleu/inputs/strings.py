"""Text as input: one string per hypothesis and, per hypothesis, its reference string or a list of its
references (as sacrebleu's ``sentence_score``, torchmetrics' ``SacreBLEUScore`` and Hugging Face's
``sacrebleu`` take them); and subword ids whose references are the original strings.

Errors here name no metric: the public functions add the metric's advice (``hint``) to an error about
input of the wrong kind.
"""

from __future__ import annotations

import itertools
from operator import itemgetter
from typing import Any, cast

import numpy as np
import torch
import torch.nn.functional as F

from ..engine.rows import RowStream
from ..text.code_points import ragged_rows
from ..text.lines import tokenized_lines
from .batch import SEQUENCES, TokenBatch, WrongKind, batch_sizes_differ
from .ids import token_batch


def sentences(preds: object, target: object, hint: str = "") -> tuple[list[str], list[list[str]]]:
    """The hypothesis strings and, per hypothesis, the list of its reference strings, checked.

    Example:
        >>> sentences(["a b", "c"], ["a b", ["c", "d"]])
        (['a b', 'c'], [['a b'], ['c', 'd']])
        >>> sentences([[1, 2]], ["a"], hint="pass detokenizer=")
        Traceback (most recent call last):
        ...
        TypeError: preds[0] must be a string, got list: pass detokenizer=
    """
    if _lists_strings(preds):
        raise TypeError(
            "preds[0] is a list of strings, where a hypothesis is one string: if these are its references, the "
            "arguments look swapped (pass the hypotheses first: preds, target); if they are words, join them: "
            '" ".join(words)'
        )
    try:
        hypotheses = _strings(preds, "preds")
        return hypotheses, reference_strings(target, len(hypotheses))
    except WrongKind as error:
        raise error.with_hint(hint) from None


def reference_strings(target: object, batch: int) -> list[list[str]]:
    """Per hypothesis, its list of reference strings (a lone string is a list of one)."""
    if isinstance(target, str) or not isinstance(target, SEQUENCES):
        raise _wrong(f"target must be a list of strings or of lists of strings, got {type(target).__name__}", target)
    if _all_strings(target):  # one reference string each: the usual case, checked in C
        references = [[entry] for entry in target]
    elif set(map(type, target)) <= {list} and _all_strings(list(itertools.chain.from_iterable(target))):
        references = list(map(list, target))  # lists of reference strings, checked in C too
    else:
        references = [
            [entry] if isinstance(entry, str) else _strings(_present(entry, f"target[{index}]"), f"target[{index}]")
            for index, entry in enumerate(target)
        ]
    if len(references) != batch:
        raise batch_sizes_differ(batch, len(references), target)
    if any(not refs for refs in references):
        raise ValueError("every hypothesis needs at least one reference (it may be empty: [''])")
    return references


def _lists_strings(value: object) -> bool:
    """Whether ``value``'s first entry is a list of strings."""
    if not isinstance(value, SEQUENCES) or not value:
        return False
    first = value[0]
    return isinstance(first, SEQUENCES) and bool(first) and isinstance(first[0], str)


def _all_strings(values: object) -> bool:
    """Whether ``values`` is a list or tuple of exactly ``str`` (subclasses take the slower checks)."""
    return isinstance(values, SEQUENCES) and set(map(type, values)) <= {str}


def _strings(values: object, name: str) -> list[str]:
    if isinstance(values, str) or not isinstance(values, SEQUENCES):
        raise _wrong(f"{name} must be a list of strings, got {type(values).__name__}", values)
    if _all_strings(values):
        return cast("list[str]", list(values))
    for index, value in enumerate(values):
        if name.startswith("target"):
            _present(value, f"{name}[{index}]")
        if not isinstance(value, str):
            raise _wrong(f"{name}[{index}] must be a string, got {type(value).__name__}", value)
    return list(values)


def _present(reference: object, name: str) -> object:
    """``reference``, refusing ``None``: an absent reference is no reference (an empty one is ``''``).

    Example:
        >>> _present(None, "target[1]")
        Traceback (most recent call last):
        ...
        TypeError: target[1] is None: every hypothesis needs a reference; an empty one is ''
    """
    if reference is None:
        needs = "each reference is a string" if name.count("[") > 1 else "every hypothesis needs a reference"
        raise TypeError(f"{name} is None: {needs}; an empty one is ''")
    return reference


def _wrong(message: str, value: object) -> TypeError:
    """A :class:`WrongKind` where ``value`` holds what looks like ids, else a plain ``TypeError``."""
    looks_like_ids = isinstance(value, (int, torch.Tensor, *SEQUENCES)) and not isinstance(value, bool)
    return WrongKind(message) if looks_like_ids else TypeError(message)


def words_batch(
    hypotheses: list[str], references: list[list[str]], tokenize: str, lowercase: bool, device: torch.device | None
) -> TokenBatch | RowStream:
    """Checked strings (:func:`sentences`) split into words by sacrebleu's tokenizer ``tokenize`` (after
    ``lowercase``), the words numbered (:func:`~torch_bleu.text.lines.tokenized_lines`, on the host, all
    strings of the batch at once), as a batch of ids on ``device``; with no device, as NumPy arrays, and
    one reference per hypothesis as a :class:`~torch_bleu.engine.rows.RowStream`, which the engine counts
    fastest.

    Words get ids in order of appearance within the batch, which is all counting needs.

    Example:
        >>> batch = words_batch(["the cat sat"], [["the cat sat", "a cat sat"]], "13a", False, torch.device("cpu"))
        >>> batch.preds.tolist(), batch.target.tolist(), batch.row_lengths.tolist()
        ([[0, 1, 2]], [[[0, 1, 2], [3, 1, 2]]], [[3, 3, 3]])
        >>> stream = words_batch(["the cat sat"], [["a cat sat"]], "13a", False, None)
        >>> stream.tokens.tolist(), stream.lengths.tolist()
        ([0, 1, 2, 3, 1, 2], [[3, 3]])
    """
    batch = len(hypotheses)
    if device is None and set(map(len, references)) <= {1}:
        pairs: list[str] = [""] * (2 * batch)  # each hypothesis, then its reference
        pairs[::2] = hypotheses
        pairs[1::2] = list(map(itemgetter(0), references))
        words = tokenized_lines(pairs, tokenize, lowercase)
        return RowStream(words.ids, words.lengths.reshape(batch, 2), words.distinct)
    counts = np.fromiter(map(len, references), dtype=np.int64, count=batch)
    words = tokenized_lines([*hypotheses, *itertools.chain.from_iterable(references)], tokenize, lowercase)
    num_refs = int(counts.max(initial=1))
    # the row of each line in (B, 1 + R): the hypotheses first, then each sentence's references
    sentence = np.repeat(np.arange(batch), counts)
    reference_index = np.arange(sentence.shape[0]) - np.repeat(counts.cumsum() - counts, counts)
    row = np.concatenate([np.arange(batch) * (1 + num_refs), sentence * (1 + num_refs) + 1 + reference_index])
    lengths = np.zeros(batch * (1 + num_refs), dtype=np.int64)
    lengths[row] = words.lengths
    width = int(words.lengths.max(initial=0))
    padded = np.zeros((batch * (1 + num_refs), width), dtype=np.int64)
    column = np.arange(words.ids.shape[0]) - np.repeat(words.lengths.cumsum() - words.lengths, words.lengths)
    padded[np.repeat(row, words.lengths), column] = words.ids
    ids = padded.reshape(batch, 1 + num_refs, width)
    host = TokenBatch(ids[:, 0], ids[:, 1:], np.arange(num_refs) < counts[:, None], lengths.reshape(batch, -1))
    if device is None:
        return host
    preds_ids, target_ids, ref_present, row_lengths = (torch.from_numpy(field).to(device) for field in host[:4])
    return TokenBatch(preds_ids, target_ids, ref_present, row_lengths)


def subword_batch(preds: Any, target: Any, hint: str = "") -> TokenBatch:
    """Subword ids to decode: ``preds`` as :func:`~.ids.token_batch` takes them, ``target`` ids too, or strings.

    Reference strings (the original text, or what ``decode`` gave) become code points in
    ``reference_chars`` on the hypotheses' device; ``target`` is then an empty ``(B, R, 0)`` tensor
    and ``ref_present`` says how many references each hypothesis has.

    Example:
        >>> batch = subword_batch(torch.tensor([[5, 6]]), [["ab", "c"]])
        >>> tuple(batch.target.shape), batch.ref_present.tolist(), batch.reference_chars.tolist()
        ((1, 2, 0), [[True, True]], [[[97, 98], [99, -1]]])
    """
    if isinstance(preds, str) or (isinstance(preds, SEQUENCES) and preds and isinstance(preds[0], str)):
        raise WrongKind("preds holds strings, not subword ids").with_hint(hint)
    if not _holds_strings(target):
        return token_batch(preds, target, hint, decoding=True)
    batch = token_batch(preds, [[[]] for _ in range(len(preds))], hint, decoding=True)
    chars, ref_present = ragged_rows(reference_strings(target, batch.preds.shape[0]), batch.preds.device)
    num_refs = chars.shape[1]
    target_ids = batch.preds.new_zeros((chars.shape[0], num_refs, 0))
    assert batch.row_lengths is not None  # a ragged target gives the batch its row lengths
    row_lengths = F.pad(batch.row_lengths[:, :1], (0, num_refs))  # the references hold no ids
    return TokenBatch(batch.preds, target_ids, ref_present, row_lengths, chars)


def _holds_strings(target: object) -> bool:
    """Whether ``target`` is a list of reference strings (or of lists of them)."""
    if not isinstance(target, SEQUENCES) or not target:
        return False
    first = target[0]
    return isinstance(first, str) or (isinstance(first, SEQUENCES) and bool(first) and isinstance(first[0], str))
