"""CIDEr-D of padded captions and references, in PyTorch on their device, with no host sync.

Each image holds ``R`` reference slots and ``C`` captions, as rows of word ids (``(B, R + C, L)``, the
references first, each row's words at its start). N-grams of 1 to 4 words (:data:`ORDERS`) are identified
exactly: per order, one stable sort of every position's key (the rank of its ``n - 1``-word prefix and of its
last word) ranks the n-grams of the batch, and groups each n-gram's positions by sentence (its term frequency)
and by image. Then, as pycocoevalcap 1.2's ``CiderScorer`` computes it:

* the document frequency ``df`` of an n-gram is the number of images whose references, as one set, hold it
  (each image counted once per caption, as pycocoevalcap counts an image once per caption scored), or is given
  by a training corpus (:class:`~.document_frequency.DocumentFrequency`);
* an n-gram of a sentence weighs ``tf x (log N - log max(1, df))``, ``N`` the number of captions (or the training
  corpus' images);
* per order, a caption's similarity to a reference is ``sum min(w_cap, w_ref) x w_ref`` over their shared n-grams,
  divided by the product of the two vectors' norms where neither is 0, times ``exp(-delta^2 / (2 sigma^2))``,
  ``delta`` the difference of their numbers of bigrams;
* a caption's score is the mean over orders of the sum over its image's references, divided by their number,
  x 10.

Memory grows linearly with the positions: ``B (R + C) L`` of them, a few int64 and float64 values each (and ``C``
float64 per position for the captions' weights).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor

#: The n-gram orders, 1 to 4 words (pycocoevalcap counts n-grams of 4 words at most whatever its ``n``).
ORDERS = 4


class Captions(NamedTuple):
    """Images, each with its reference slots and its captions, as padded rows of word ids on one device.

    Attributes:
        words: ``(B, R + C, L)`` int64: each image's ``R`` references, then its ``C`` captions; a row's words
            first, anything after them.
        lengths: ``(B, R + C)`` int64, the words of each row (0 for an absent reference).
        present: ``(B, R)`` bool, the references that count (at least one per image).
    """

    words: Tensor
    lengths: Tensor
    present: Tensor

    @property
    def references(self) -> int:
        """``R``, the reference slots of each image."""
        return int(self.present.shape[1])

    @property
    def captions(self) -> int:
        """``C``, the captions of each image."""
        return int(self.words.shape[1]) - self.references


class TableFrequencies(NamedTuple):
    """Document frequencies given by a training corpus for the positions of :class:`Captions`.

    Attributes:
        counts: ``(ORDERS, B * (R + C) * L)`` int64, the document frequency of the n-gram of each order starting at
            each position (0 where the corpus has none, or no n-gram starts there).
        images: ``N``, the training corpus' images.
    """

    counts: Tensor
    images: int


def cider_d(captions: Captions, sigma: float = 6.0, table: TableFrequencies | None = None) -> Tensor:
    """``(B, C)`` float64 CIDEr-D of every caption against its image's references (module docstring).

    Example:
        >>> words = torch.tensor([[[0, 1], [2, 0], [0, 1]], [[0, 0], [0, 0], [3, 0]]])  # "a b" | "c a" ; "a b"
        >>> present = torch.tensor([[True, True], [True, False]])
        >>> captions = Captions(words, torch.tensor([[2, 2, 2], [1, 0, 2]]), present)
        >>> cider_d(captions).tolist()   # image 1: "d a" against "a"
        [[2.5], [0.0]]
    """
    words, lengths, present = captions
    images, rows, width = words.shape
    references, per_image = captions.references, captions.captions
    sentences = images * rows
    positions = sentences * width
    device = words.device
    lengths = torch.where(_slots(present, per_image), lengths, 0)

    sentence = torch.arange(sentences, device=device).repeat_interleave(width)
    words_left = words_to_end(captions._replace(lengths=lengths))
    flat_words = words.reshape(positions)
    corpus_size = images * per_image if table is None else table.images
    log_size = math.log(corpus_size) if corpus_size > 0 else 0.0

    norms = torch.zeros((ORDERS, sentences), dtype=torch.float64, device=device)
    dots = torch.zeros((ORDERS, sentences * per_image), dtype=torch.float64, device=device)
    # a training corpus gives the frequencies: n-grams need telling apart within each image only
    groups = images if table is not None and images else 1
    word_rank = prefix_rank = flat_words
    for order in range(ORDERS):
        valid = words_left > order
        keys = flat_words if order == 0 else prefix_rank * positions + word_rank.roll(-order)
        ngrams = _sorted_ngrams(torch.where(valid, keys, -1), valid, sentence, groups, rows)
        if order == 0:
            word_rank = ngrams.ranks
        prefix_rank = ngrams.ranks
        if table is None:
            frequency = _corpus_frequency(ngrams, references, per_image)
        else:
            frequency = table.counts[order].gather(0, ngrams.order)
        idf = log_size - torch.log(frequency.clamp(min=1).to(torch.float64))
        weight = torch.where(ngrams.first, ngrams.term_frequency * idf, 0.0)
        norms[order].scatter_add_(0, ngrams.sentence, weight.square())
        dots[order] = _clipped_dots(ngrams, weight, references, per_image, sentences)

    norm = norms.sqrt().reshape(ORDERS, images, rows)
    reference_norm = norm[:, :, :references, None]
    caption_norm = norm[:, :, None, references:]
    dot = dots.reshape(ORDERS, images, rows, per_image)[:, :, :references]
    both = (reference_norm != 0) & (caption_norm != 0)
    similarity = torch.where(both, dot / torch.where(both, reference_norm * caption_norm, 1.0), dot)
    bigrams = (lengths - 1).clamp(min=0)
    delta = (bigrams[:, None, references:] - bigrams[:, :references, None]).to(torch.float64)
    similarity = similarity * torch.pow(math.e, -delta.square() / (2 * sigma**2))
    similarity = torch.where(present[None, :, :, None], similarity, 0.0)
    counted = present.sum(1, keepdim=True).clamp(min=1)
    scores: Tensor = similarity.sum(2).mean(0) / counted * 10.0
    return scores


def words_to_end(captions: Captions) -> Tensor:
    """``(B * (R + C) * L,)`` int64: how many words each position's row holds from it on (0 or less past its end).

    Example:
        >>> words_to_end(Captions(torch.zeros(1, 2, 3), torch.tensor([[2, 0]]), torch.tensor([[True]]))).tolist()
        [2, 1, 0, 0, -1, -2]
    """
    width = captions.words.shape[-1]
    column = torch.arange(width, device=captions.words.device).repeat(captions.lengths.numel())
    return captions.lengths.reshape(-1).repeat_interleave(width) - column


class _SortedNgrams(NamedTuple):
    """The n-grams of one order at every position, sorted by n-gram, then sentence, then position (the
    positions where no n-gram starts first).

    Attributes:
        order: ``(P,)`` the position of each sorted entry.
        ranks: ``(P,)`` the dense rank of the n-gram at each position (not sorted).
        ngram: ``(P,)`` the rank of each sorted entry's n-gram.
        sentence: ``(P,)`` the sentence of each sorted entry.
        slot: ``(P,)`` its row within its image (the references' first).
        first: ``(P,)`` bool, the first entry of each (n-gram, sentence).
        term_frequency: ``(P,)`` float64, the count of each first entry's n-gram in its sentence.
        group: ``(P,)`` the (n-gram, image) group of each sorted entry, numbered in order.
        leads: ``(P,)`` bool, the first entry of each group (a reference's where the image's references hold
            the n-gram).
    """

    order: Tensor
    ranks: Tensor
    ngram: Tensor
    sentence: Tensor
    slot: Tensor
    first: Tensor
    term_frequency: Tensor
    group: Tensor
    leads: Tensor


def _sorted_ngrams(keys: Tensor, valid: Tensor, sentence: Tensor, groups: int, rows: int) -> _SortedNgrams:
    """Rank the n-grams of ``keys`` (non-negative; -1 where none starts) within each of ``groups`` equal parts
    (one per image, or one for the batch: sorting short rows is several times faster), and group them by
    sentence and by image (of ``rows`` sentences each)."""
    size = keys.shape[0]
    part = size // groups
    sorted_keys, order = torch.sort(keys.reshape(groups, part), dim=-1, stable=True)
    new_ngram = _changes(sorted_keys.reshape(size))
    if groups > 1:
        new_ngram.reshape(groups, part)[:, 0] = True
    order = (order + torch.arange(groups, device=keys.device)[:, None] * part).reshape(size)
    ngram = new_ngram.cumsum(0) - 1
    ranks = torch.empty_like(ngram).scatter_(0, order, ngram)
    sorted_sentence = sentence.gather(0, order)
    sorted_valid = valid.gather(0, order)
    new_entry = new_ngram | _changes(sorted_sentence)
    entry = new_entry.cumsum(0) - 1
    counts = torch.zeros(keys.shape, dtype=torch.float64, device=keys.device)
    counts.scatter_add_(0, entry, torch.ones_like(counts))
    image = torch.div(sorted_sentence, rows, rounding_mode="floor")
    new_group = new_ngram | _changes(image)
    return _SortedNgrams(
        order,
        ranks,
        ngram,
        sorted_sentence,
        sorted_sentence - image * rows,
        new_entry & sorted_valid,
        counts.gather(0, entry),
        new_group.cumsum(0) - 1,
        new_group & sorted_valid,
    )


def _changes(values: Tensor) -> Tensor:
    """Where each value differs from the one before it (the first always does)."""
    change = torch.ones(values.shape, dtype=torch.bool, device=values.device)
    change[1:] = values[1:] != values[:-1]
    return change


def _corpus_frequency(ngrams: _SortedNgrams, references: int, per_image: int) -> Tensor:
    """Each sorted entry's document frequency in the batch: the images whose references hold its n-gram, each
    counted once per caption it has."""
    counted = (ngrams.leads & (ngrams.slot < references)).to(torch.int64) * per_image
    frequency = torch.zeros_like(ngrams.ngram).scatter_add_(0, ngrams.ngram, counted)
    return frequency.gather(0, ngrams.ngram)


def _clipped_dots(ngrams: _SortedNgrams, weight: Tensor, references: int, per_image: int, sentences: int) -> Tensor:
    """``(sentences * C,)``: for each reference and each caption of its image, ``sum min(w_cap, w_ref) x w_ref``
    over their shared n-grams (zero for the captions' own rows).

    Within an n-gram, an image's entries are together: its references', then its captions'. Each caption's
    weight is spread over its (n-gram, image) group, which each reference entry of the group reads."""
    slot, group = ngrams.slot, ngrams.group
    size = weight.shape[0] * per_image
    caption_slot = torch.where(ngrams.first & (slot >= references), group * per_image + slot - references, size)
    caption_weight = torch.zeros(size + 1, dtype=torch.float64, device=weight.device)
    caption_weight.scatter_(0, caption_slot, weight)
    shared = caption_weight[:size].reshape(-1, per_image).index_select(0, group)
    reference_weight = torch.where(ngrams.first & (slot < references), weight, 0.0)[:, None]
    contribution = torch.minimum(shared, reference_weight) * reference_weight
    target = ngrams.sentence[:, None] * per_image + torch.arange(per_image, device=weight.device)
    dots = torch.zeros(sentences * per_image, dtype=torch.float64, device=weight.device)
    return dots.scatter_add_(0, target.reshape(-1), contribution.reshape(-1))


def _slots(present: Tensor, per_image: int) -> Tensor:
    """``(B, R + C)`` bool: the rows that count, every caption's included."""
    return torch.cat([present, present.new_ones((present.shape[0], per_image))], dim=1)
