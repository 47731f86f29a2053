"""CIDEr-D of a flat corpus of word ids, in NumPy: every image's caption against its references.

The corpus is its sentences end to end (:class:`Sentences`): each image's caption, then its references.
N-grams of 1 to 4 words (:data:`ORDERS`) are numbered exactly (an n-gram's number is that of the pair of its first
``n - 1`` words' number and its last word, made dense by :func:`numpy.unique`), so no two n-grams share one.
Then, as pycocoevalcap 1.2's ``CiderScorer`` computes it:

* the document frequency ``df`` of an n-gram is the number of images whose references, as one set, hold it;
* an n-gram of a sentence weighs ``tf x (log N - log max(1, df))``, ``N`` the number of images;
* per order, a caption's similarity to a reference is ``sum min(w_cap, w_ref) x w_ref`` over the n-grams of the
  caption, divided by the product of the two vectors' norms where neither is 0, times
  ``exp(-delta^2 / (2 sigma^2))``, ``delta`` the difference of their numbers of bigrams;
* an image's score is the mean over orders of the sum over its references, divided by their number, x 10.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: The n-gram orders, 1 to 4 words (pycocoevalcap counts n-grams of 4 words at most whatever its ``n``).
ORDERS = 4


class Sentences(NamedTuple):
    """A corpus of captions and references, their words as ids, sentence after sentence.

    Attributes:
        words: ``(T,)`` int64, the word ids of every sentence, one sentence after the other.
        lengths: ``(S,)`` int64, the number of words of each sentence.
        image: ``(S,)`` int64, the image (``0 .. B - 1``) each sentence describes, in order.
        is_caption: ``(S,)`` bool, which sentences are the captions scored (one per image, the rest references).
    """

    words: np.ndarray
    lengths: np.ndarray
    image: np.ndarray
    is_caption: np.ndarray


def cider_d(sentences: Sentences, images: int, sigma: float = 6.0) -> np.ndarray:
    """``(images,)`` float64 CIDEr-D of every image's caption against its references (module docstring).

    Example:
        >>> sentences = Sentences(
        ...     words=np.array([0, 1, 0, 1, 2, 0, 3, 0, 0]),   # "a b" | "a b" | "c a" ; "d a" | "a"
        ...     lengths=np.array([2, 2, 2, 2, 1]),
        ...     image=np.array([0, 0, 0, 1, 1]),
        ...     is_caption=np.array([True, False, False, True, False]))
        >>> cider_d(sentences, 2).round(6).tolist()
        [2.5, 0.0]
    """
    words, lengths, image, is_caption = sentences
    count = lengths.shape[0]
    if images == 0:
        return np.zeros(0)
    sentence, order, ngram = _ngrams(words, lengths, ORDERS)
    distinct = int(ngram.max(initial=-1)) + 1
    # the term frequency of each n-gram in each sentence, sorted by sentence then n-gram
    keys, term_frequency = np.unique(sentence * distinct + ngram, return_counts=True)
    entry_sentence, entry_ngram = np.divmod(keys, distinct)
    entry_image = image[entry_sentence]
    entry_order = order_of(entry_ngram, order, ngram, distinct)
    of_reference = ~is_caption[entry_sentence]
    images_with = _distinct(entry_image[of_reference] * distinct + entry_ngram[of_reference]) % distinct
    document_frequency = np.bincount(images_with, minlength=distinct).astype(np.float64)
    weight = term_frequency * (np.log(float(images)) - np.log(np.maximum(1.0, document_frequency[entry_ngram])))
    slot = entry_sentence * ORDERS + entry_order
    norm = np.sqrt(np.bincount(slot, weight**2, minlength=count * ORDERS)).reshape(count, ORDERS)

    caption_keys = (entry_image * distinct + entry_ngram)[~of_reference]  # sorted: one caption per image
    reference_keys = (entry_image * distinct + entry_ngram)[of_reference]
    found = np.searchsorted(caption_keys, reference_keys)
    shared = np.append(caption_keys, -1)[found] == reference_keys  # -1: past the last caption's, no key
    caption_weight = weight[~of_reference][found[shared]]
    reference_weight = weight[of_reference][shared]
    dot = np.bincount(
        slot[of_reference][shared],
        np.minimum(caption_weight, reference_weight) * reference_weight,
        minlength=count * ORDERS,
    ).reshape(count, ORDERS)

    caption_of_image = np.zeros(images, dtype=np.int64)
    caption_of_image[image[is_caption]] = np.flatnonzero(is_caption)
    references = np.flatnonzero(~is_caption)
    caption = caption_of_image[image[references]]
    norms = norm[caption] * norm[references]
    similarity = np.where(norms != 0, dot[references] / np.where(norms != 0, norms, 1.0), dot[references])
    bigrams = np.maximum(lengths - 1, 0)
    delta = (bigrams[caption] - bigrams[references]).astype(np.float64)
    similarity *= np.power(np.e, -(delta**2) / (2 * sigma**2))[:, None]
    per_order = np.zeros((images, ORDERS))
    np.add.at(per_order, image[references], similarity)
    reference_counts = np.bincount(image[references], minlength=images)
    scores: np.ndarray = per_order.mean(-1) / reference_counts * 10.0
    return scores


def _ngrams(words: np.ndarray, lengths: np.ndarray, n_gram: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every n-gram of 1 to ``n_gram`` words of every sentence: its sentence, its order (0 for unigrams) and its
    number, numbered apart by order (the unigrams first).

    Example:
        >>> [part.tolist() for part in _ngrams(np.array([7, 8, 7, 9]), np.array([3, 1]), 2)]
        [[0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 1, 1], [0, 1, 0, 2, 3, 4]]
    """
    starts = np.cumsum(lengths) - lengths
    sentence_of_word = np.repeat(np.arange(lengths.shape[0]), lengths)
    words_left = starts[sentence_of_word] + lengths[sentence_of_word] - np.arange(words.shape[0])
    word_number = np.unique(words, return_inverse=True)[1].reshape(-1).astype(np.int64)
    vocabulary = int(word_number.max(initial=-1)) + 1
    sentences, orders, ngrams = [], [], []
    prefix = word_number
    offset = 0
    for order in range(n_gram):
        if order:
            # the n-gram starting at each word: its first order words' number, then its last word
            prefix = prefix[:-1] * vocabulary + word_number[order:]
        valid = words_left[: prefix.shape[0]] > order
        distinct, number = np.unique(np.where(valid, prefix, -1), return_inverse=True)
        number = number.reshape(-1) - int(distinct.shape[0] and distinct[0] == -1)
        prefix = np.where(valid, number, 0)
        sentences.append(sentence_of_word[: prefix.shape[0]][valid])
        orders.append(np.full(int(valid.sum()), order))
        ngrams.append(number[valid] + offset)
        offset += int(number.max(initial=-1)) + 1
    return np.concatenate(sentences), np.concatenate(orders), np.concatenate(ngrams)


def _distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct values of ``keys``, sorted (as :func:`numpy.unique`, whose hash table is slower on many
    large keys than sorting them).

    Example:
        >>> _distinct(np.array([5, 2, 5, 9])).tolist()
        [2, 5, 9]
    """
    ordered = np.sort(keys)
    first = np.ones(ordered.shape, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    distinct: np.ndarray = ordered[first]
    return distinct


def order_of(entry_ngram: np.ndarray, order: np.ndarray, ngram: np.ndarray, distinct: int) -> np.ndarray:
    """The order of each n-gram number in ``entry_ngram``, as ``order`` and ``ngram`` pair them."""
    of_ngram = np.zeros(distinct, dtype=np.int64)
    of_ngram[ngram] = order
    result: np.ndarray = of_ngram[entry_ngram]
    return result
