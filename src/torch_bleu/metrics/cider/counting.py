"""A batch of captions as CIDEr-D's padded rows of word ids (:class:`~.consensus.Captions`).

Strings are split on whitespace, as pycocoevalcap splits them, and their words numbered on the host (with a
training corpus' vocabulary first where one is given). Rows of token ids stay on their device: the ignored ids
are dropped (each row's kept ids moved to its start by a stable sort), each row ends at its first EOS (which
counts as a word with ``count_eos``), and absent references (rows of ignored ids only, beside others) are marked.
No step reads values back to the host, so ids on an accelerator (or ``meta``) need no sync.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import torch
from torch import Tensor

from ...arrays import device_constant
from ...engine.rows import stack_rows
from ...inputs.kinds import Text, TokenIds, read_input
from ...text.ptb import ptb_tokenize
from ...text.vocabulary import Vocabulary
from .config import CIDErConfig
from .consensus import Captions


class Counted(NamedTuple):
    """A batch's captions, and whether their words are ids (else numbers of words of strings)."""

    captions: Captions
    of_ids: bool


def batch_captions(
    preds: Any, target: Any, config: CIDErConfig, vocabulary: Mapping[str, int] | None = None
) -> Counted:
    """The batch as one caption per image beside its references.

    Example:
        >>> captions, of_ids = batch_captions(["a b"], [["b", "a c"]], CIDErConfig())
        >>> captions.words.tolist(), captions.lengths.tolist(), captions.present.tolist(), of_ids
        ([[[0, 0], [1, 2], [1, 0]]], [[1, 2, 2]], [[True, True]], False)
    """
    match read_input(preds, target, config):
        case Text(hypotheses, references):
            if config.tokenize == "ptb":
                hypotheses, references = ptb_tokenized(hypotheses, references)
            return Counted(text_captions(hypotheses, references, vocabulary), of_ids=False)
        case ids:
            return Counted(id_captions(ids, config), of_ids=True)


def text_captions(
    hypotheses: list[str], references: list[list[str]], vocabulary: Mapping[str, int] | None = None
) -> Captions:
    """Strings as padded rows of word numbers: those of ``vocabulary`` where it has the word, the others numbered
    after it, as first seen.

    Example:
        >>> text_captions(["x y"], [["y", ""]], {"y": 0}).words.tolist()
        [[[0, 0], [0, 0], [1, 0]]]
    """
    per_image = [len(refs) for refs in references]
    slots = max(per_image, default=1)
    split = [text.split() for refs in references for text in refs] + [text.split() for text in hypotheses]
    lengths = np.array([len(words) for words in split], dtype=np.int64)
    images = len(hypotheses)
    # each sentence's row: an image's references at its first slots, its caption at the last
    image = np.concatenate([np.repeat(np.arange(images), per_image), np.arange(images)]).astype(np.int64)
    slot = np.concatenate(
        [
            np.arange(lengths.shape[0] - images) - np.repeat(np.cumsum(per_image) - per_image, per_image),
            np.full(images, slots),
        ]
    )
    row = image * (slots + 1) + slot.astype(np.int64)
    width = int(lengths.max(initial=0))
    words = np.zeros((images * (slots + 1), width), dtype=np.int64)
    starts = np.cumsum(lengths) - lengths
    column = np.arange(int(lengths.sum())) - np.repeat(starts, lengths)
    words[np.repeat(row, lengths), column] = numbered([word for words_ in split for word in words_], vocabulary)
    row_lengths = np.zeros(images * (slots + 1), dtype=np.int64)
    row_lengths[row] = lengths
    present = np.arange(slots) < np.array(per_image, dtype=np.int64)[:, None]
    return Captions(
        torch.from_numpy(words.reshape(images, slots + 1, width)),
        torch.from_numpy(row_lengths.reshape(images, slots + 1)),
        torch.from_numpy(present.reshape(images, slots)),
    )


def numbered(words: list[str], vocabulary: Mapping[str, int] | None = None) -> np.ndarray:
    """Each word's number (int64): its number in ``vocabulary`` where it has one, the other words numbered after
    the vocabulary's, as first seen.

    Example:
        >>> numbered(["b", "a", "b"]).tolist()
        [0, 1, 0]
        >>> numbered(["b", "a", "z"], {"a": 0, "b": 1}).tolist()
        [1, 0, 2]
    """
    numbers = Vocabulary()
    if vocabulary:
        numbers.ids(vocabulary, len(vocabulary))  # its words in the order of their numbers
    return numbers.ids(words, len(words))


def id_captions(ids: TokenIds, config: CIDErConfig) -> Captions:
    """Rows of ids as padded rows of their kept ids, on their device.

    Example:
        >>> from torch_bleu.inputs.ids import token_batch
        >>> batch = token_batch(torch.tensor([[5, 0, 6]]), torch.tensor([[[6, 0, 0], [0, 0, 0], [7, 5, 2]]]))
        >>> config = CIDErConfig(ignore_ids=[0], eos_id=2, count_eos=True)
        >>> captions = id_captions(TokenIds(batch, config), config)
        >>> captions.words[0, :, :2].tolist(), captions.lengths.tolist(), captions.present.tolist()
        ([[6, 0], [0, 0], [7, 5], [5, 6]], [[1, 0, 3, 2]], [[True, False, True]])
    """
    batch = ids.batch
    rows = stack_rows(batch.preds, batch.target, config.ignored_ids, batch.ref_present, batch.row_lengths)
    keep = rows.keep if rows.keep is not None else torch.ones_like(rows.tokens, dtype=torch.bool)
    tokens, lengths, word_lengths = kept_words(rows.tokens, keep, config)
    present = batch.references_present(word_lengths[:, 1:])
    if present is None:
        present = torch.ones_like(lengths[:, 1:], dtype=torch.bool)
    # the references first, then the caption
    return Captions(
        torch.cat([tokens[:, 1:], tokens[:, :1]], dim=1),
        torch.cat([lengths[:, 1:], lengths[:, :1]], dim=1),
        present,
    )


def kept_words(tokens: Tensor, keep: Tensor, config: CIDErConfig) -> tuple[Tensor, Tensor, Tensor]:
    """Rows of ids (along the last axis) with their ``keep`` ids moved to their start, each row ending at its
    first EOS (kept as a word with ``count_eos``); their lengths, and their lengths without that EOS.

    Example:
        >>> config = CIDErConfig(eos_id=0, count_eos=True)
        >>> kept_words(torch.tensor([[4, 0, 0], [5, 6, 7]]), torch.tensor([[True] * 3, [True, False, True]]), config)
        (tensor([[4, 0, 0],
                [5, 7, 0]]), tensor([2, 2]), tensor([1, 2]))
    """
    if config.eos_ids:
        eos_ids = device_constant(("eos ids", config.eos_ids), tokens.device, lambda: np.array(config.eos_ids))
        is_eos = torch.isin(tokens, eos_ids) & keep
        eos_before = is_eos.cumsum(-1) - is_eos.to(torch.int64)
        words_only = keep & (eos_before + is_eos == 0)
        keep = keep & (eos_before == 0) if config.count_eos else words_only
        word_lengths = words_only.sum(-1)
    else:
        word_lengths = keep.sum(-1)
    width = tokens.shape[-1]
    # each kept id to its place among the kept ones, the others to one column past the row
    place = torch.where(keep, keep.cumsum(-1) - 1, width)
    kept = torch.zeros((*tokens.shape[:-1], width + 1), dtype=tokens.dtype, device=tokens.device)
    kept.scatter_(-1, place, tokens)
    return kept[..., :width], keep.sum(-1), word_lengths


def ptb_tokenized(hypotheses: list[str], references: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """Captions and their references PTB-tokenized as ``COCOEvalCap`` tokenizes them: every image's references
    in one pass, then the captions in another (:func:`~torch_bleu.text.ptb.ptb_tokenize`).

    Example:
        >>> ptb_tokenized(["A dog, running."], [["The dog runs!", "Dogs' run"]])
        (['a dog running'], [['the dog runs', 'dogs run']])
    """
    tokenized = iter(ptb_tokenize([ref for refs in references for ref in refs]))
    return ptb_tokenize(hypotheses), [[next(tokenized) for _ in refs] for refs in references]


def holds_strings(references: Any) -> bool:
    """Whether references (a list per image, of strings or of rows of ids) hold any string.

    Example:
        >>> holds_strings([["a dog"], ["a cat"]]), holds_strings([[[5, 6]]])
        (True, False)
    """
    return isinstance(references, (list, tuple)) and any(
        isinstance(refs, str) or (isinstance(refs, (list, tuple)) and any(isinstance(ref, str) for ref in refs))
        for refs in references
    )
