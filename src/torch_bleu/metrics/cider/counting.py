"""A batch of captions as CIDEr-D's flat corpus (:class:`~.consensus.Sentences`): input checked by its kind,
then its words as ids, on the host.

Strings are split on whitespace, as pycocoevalcap splits them, and their words numbered; rows of token ids
keep their ids, the ignored ids dropped, each row cut at its first EOS and absent references (rows of
ignored ids only, beside others) left out (:class:`~torch_bleu.inputs.kinds.TokenIds`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...arrays import to_host
from ...errors import InputError
from ...inputs.kinds import Text, TokenIds, read_input
from .config import CIDErConfig
from .consensus import Sentences


def corpus_sentences(preds: Any, target: Any, config: CIDErConfig) -> tuple[Sentences, int]:
    """The batch as its flat corpus of word ids, and its number of images (one per hypothesis).

    Example:
        >>> sentences, images = corpus_sentences(["a b"], [["b", "a c"]], CIDErConfig())
        >>> sentences.words.tolist(), sentences.lengths.tolist(), images
        ([0, 1, 1, 0, 2], [2, 1, 2], 1)
    """
    match read_input(preds, target, config):
        case Text(hypotheses, references):
            return text_sentences(hypotheses, references), len(hypotheses)
        case ids:
            return ids_sentences(ids), ids.batch.preds.shape[0]


def text_sentences(hypotheses: list[str], references: list[list[str]]) -> Sentences:
    """Strings as the flat corpus: each hypothesis, then its references, their words numbered as first seen.

    Example:
        >>> text_sentences(["x y"], [["y", ""]]).is_caption.tolist()
        [True, False, False]
    """
    split, is_caption = split_sentences(hypotheses, references)
    lengths = np.array([len(words) for words in split], dtype=np.int64)
    return Sentences(numbered([word for words in split for word in words]), lengths, image_of(is_caption), is_caption)


def split_sentences(hypotheses: list[str], references: list[list[str]]) -> tuple[list[list[str]], np.ndarray]:
    """The words of each hypothesis and then of each of its references (split on whitespace, as
    pycocoevalcap splits them), and which of them are hypotheses.

    Example:
        >>> split_sentences(["x  y"], [["y"]])
        ([['x', 'y'], ['y']], array([ True, False]))
    """
    split = [text.split() for hypothesis, refs in zip(hypotheses, references) for text in (hypothesis, *refs)]
    per_image = np.array([1 + len(refs) for refs in references], dtype=np.int64)
    is_caption = np.zeros(len(split), dtype=bool)
    is_caption[np.cumsum(per_image) - per_image] = True
    return split, is_caption


def numbered(words: list[str]) -> np.ndarray:
    """Each word's number, the words numbered as first seen (int64).

    Example:
        >>> numbered(["b", "a", "b"]).tolist()
        [0, 1, 0]
    """
    numbers: dict[str, int] = {}
    return np.array([numbers.setdefault(word, len(numbers)) for word in words], dtype=np.int64)


def image_of(is_caption: np.ndarray) -> np.ndarray:
    """The image of each sentence of a corpus whose images begin each with its caption.

    Example:
        >>> image_of(np.array([True, False, True])).tolist()
        [0, 0, 1]
    """
    image: np.ndarray = np.cumsum(is_caption, dtype=np.int64) - 1
    return image


def ids_sentences(ids: TokenIds) -> Sentences:
    """Rows of ids as the flat corpus: each hypothesis' kept ids, then those of its references that count (read
    on the host: a batch on an accelerator waits for its device here).

    Example:
        >>> import torch
        >>> from torch_bleu.inputs.ids import token_batch
        >>> config = CIDErConfig(ignore_ids=[0])
        >>> batch = token_batch(torch.tensor([[5, 6, 0]]), torch.tensor([[[6, 0], [0, 0], [7, 5]]]))
        >>> sentences = ids_sentences(TokenIds(batch, config))
        >>> sentences.words.tolist(), sentences.lengths.tolist()
        ([5, 6, 6, 7, 5], [2, 1, 2])
    """
    if ids.batch.preds.device.type == "meta":
        raise InputError(
            "CIDEr scores the values of ids (its document frequencies count every image's n-grams), which ids on "
            "the meta device have none of; pass ids on the CPU or an accelerator"
        )
    rows = ids.rows
    tokens = to_host(rows.tokens).astype(np.int64, copy=False)
    lengths = to_host(rows.lengths).astype(np.int64, copy=False)
    batch, sources, width = tokens.shape
    keep = np.arange(width) < lengths[..., None] if rows.keep is None else to_host(rows.keep).astype(bool)
    present = np.ones((batch, sources), dtype=bool)
    if ids.present is not None:
        present[:, 1:] = to_host(ids.present)
    keep = keep & present[..., None]
    image = np.broadcast_to(np.arange(batch)[:, None], (batch, sources))[present]
    is_caption = np.broadcast_to(np.arange(sources) == 0, (batch, sources))[present]
    return Sentences(tokens[keep], keep.sum(-1)[present].astype(np.int64), image, is_caption)
