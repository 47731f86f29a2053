"""A training corpus' document frequencies counted from its references (self-critical.pytorch's
``prepro_ngrams.py``): once per training run, on the host."""

from __future__ import annotations

import itertools
from typing import Any, NamedTuple

import numpy as np
from torch import Tensor

from ...arrays import to_host
from ...errors import InputError
from ...inputs.ids import token_batch
from ...inputs.kinds import TokenIds
from ...text.vocabulary import Vocabulary
from ...threads import within_cpu_share
from .config import CaptionTokenizer, CIDErConfig
from .consensus import ORDERS
from .counting import holds_strings, id_captions, ptb_tokenized
from .document_frequency import DocumentFrequency


@within_cpu_share
def cider_document_frequency(
    references: Any,
    *,
    tokenize: CaptionTokenizer = "none",
    ignore_ids: Any = (),
    eos_id: Any = None,
    count_eos: bool = False,
) -> DocumentFrequency:
    """The document frequencies of a training corpus: for every n-gram of 1 to 4 words, how many images' references
    (as one set per image) hold it; self-critical.pytorch's ``prepro_ngrams.py``.

    Args:
        references: a list per image of its reference strings (words split on whitespace), or ids: ``(B, R, L)``
            (rows of ignored ids only are absent beside others) or a list per image of rows. Ids become the
            words ``str(id)``, as in self-critical.pytorch's ``-idxs`` pickle.
        tokenize: strings: ``"none"`` (tokenized already) or ``"ptb"`` (``COCOEvalCap``'s PTB tokenization first).
        ignore_ids, eos_id, count_eos: rows of ids, as :class:`~torch_bleu.CIDErConfig` reads them (with
            ``eos_id=0, count_eos=True``, the end token 0 is a word, as ``prepro_ngrams.py`` appends ``<eos>``).

    Example:
        >>> frequency = cider_document_frequency([["a dog runs", "a dog"], ["a cat"]])
        >>> frequency.images, frequency[("a",)], frequency[("a", "dog")], frequency[("dog", "runs")]
        (2, 2, 1, 1)
    """
    options: dict[str, Any] = {"tokenize": tokenize, "ignore_ids": ignore_ids, "eos_id": eos_id, "count_eos": count_eos}
    config = CIDErConfig.from_options(options)
    images = len(references)
    if images == 0:
        raise InputError("a document frequency needs the references of at least one image")
    if holds_strings(references):
        config.check_strings()
        texts = [[refs] if isinstance(refs, str) else list(refs) for refs in references]
        if not all(isinstance(ref, str) for refs in texts for ref in refs):
            raise InputError(
                "references hold strings and something else: give every image's references as strings, or every "
                "image's as rows of ids"
            )
        if tokenize == "ptb":
            texts = ptb_tokenized([""] * len(texts), texts)[1]
        sentences = _text_sentences(texts)
    else:
        sentences = _id_sentences(references, config)
    return _counted(sentences, images)


class _Sentences(NamedTuple):
    """References as word numbers end to end, and each word's string.

    Attributes:
        words: ``(T,)`` int64, each word's number (``0 .. V - 1``).
        lengths: ``(S,)`` int64, the words of each sentence.
        image: ``(S,)`` int64, the image each sentence is a reference of.
        vocabulary: the ``V`` words, by number.
    """

    words: np.ndarray
    lengths: np.ndarray
    image: np.ndarray
    vocabulary: list[str]


def _counted(sentences: _Sentences, images: int) -> DocumentFrequency:
    """The trie of every n-gram of 1 to 4 words, and the number of images whose references hold each.

    Words are numbered in the order of their strings; an n-gram of ``n`` words is keyed by its first ``n - 1``
    words' place among the keys of that order and its last word's number, and the sorted distinct keys of each
    order are its keys (:class:`~.document_frequency.DocumentFrequency`).
    """
    size = len(sentences.vocabulary)
    by_string = sorted(range(size), key=sentences.vocabulary.__getitem__)
    number = np.empty(size, dtype=np.int64)
    number[by_string] = np.arange(size)
    words = number[sentences.words]
    lengths = sentences.lengths
    starts = np.cumsum(lengths) - lengths
    words_left = np.repeat(starts + lengths, lengths) - np.arange(words.shape[0])
    image = np.repeat(sentences.image, lengths)
    keys, counts = [], []
    prefix = np.zeros_like(words)
    for order in range(ORDERS):
        valid = np.flatnonzero(words_left > order)
        key = prefix[valid] * size + words[valid + order]
        order_keys, place = np.unique(key, return_inverse=True)
        held = np.unique(place.reshape(-1) * images + image[valid])  # each image once per n-gram
        keys.append(order_keys)
        counts.append(np.bincount(held // images, minlength=order_keys.shape[0]))
        prefix = np.full_like(words, -1)
        prefix[valid] = place.reshape(-1)
    return DocumentFrequency.of_trie(tuple(sentences.vocabulary[index] for index in by_string), keys, counts, images)


def _text_sentences(texts: list[list[str]]) -> _Sentences:
    """Reference strings (per image) split on whitespace, their words numbered as first seen."""
    split = [ref.split() for refs in texts for ref in refs]
    vocabulary = Vocabulary()
    lengths = np.fromiter(map(len, split), dtype=np.int64, count=len(split))
    words = vocabulary.ids(itertools.chain.from_iterable(split), int(lengths.sum()))
    image = np.repeat(np.arange(len(texts)), [len(refs) for refs in texts])
    return _Sentences(words, lengths, image, vocabulary.words())


def _id_sentences(references: Any, config: CIDErConfig) -> _Sentences:
    """Each image's references that count, their kept ids numbered, each id the word ``str(id)``."""
    captions = references[:, 0] if isinstance(references, Tensor) else [refs[0] for refs in references]
    counted = id_captions(TokenIds(token_batch(captions, references), config), config)
    slots = counted.present.shape[1]
    tokens = to_host(counted.words[:, :slots])
    lengths = to_host(counted.lengths[:, :slots]) * to_host(counted.present)
    kept = np.arange(tokens.shape[-1]) < lengths[..., None]
    ids, words = np.unique(tokens[kept], return_inverse=True)
    image = np.repeat(np.arange(tokens.shape[0]), slots)
    return _Sentences(
        words.reshape(-1).astype(np.int64), lengths.reshape(-1), image, [str(id_) for id_ in ids.tolist()]
    )
