"""A training corpus' document frequencies, as self-critical sequence training scores CIDEr-D with them.

:class:`DocumentFrequency` holds, for every n-gram of 1 to 4 words of a corpus' references, the number of images
whose references hold it, and the number of images ``N``. It reads and writes the pickle of self-critical.pytorch's
``prepro_ngrams.py`` (``{"document_frequency": {n-gram tuple of words: count}, "ref_len": N}``, the words strings,
the ids as decimal strings in its ``-idxs`` file), and looks up the n-grams of padded rows of word ids on their
device with no host sync (:meth:`DocumentFrequency.frequencies`).

The n-grams are kept as a trie in sorted int64 keys: a word's number is its place in :attr:`~DocumentFrequency.words`,
an n-gram's number its place among the keys of its order, and the key of an n-gram of ``n`` words is
``number(first n - 1 words) x len(words) + number(last word)``.
"""

from __future__ import annotations

import hashlib
import io
import math
import pickle
from collections import defaultdict
from collections.abc import Iterable, Mapping
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor

from ...errors import InputError
from .consensus import ORDERS

if TYPE_CHECKING:
    from typing_extensions import Self

#: Ids up to this many are numbered through a dense table (8 bytes per id up to the largest id of the table).
DENSE_IDS = 1 << 22

#: What a self-critical.pytorch pickle may hold: its dict, defaultdict, tuples, strings and numbers.
_PICKLE_CLASSES = {("collections", "defaultdict"), ("builtins", "float"), ("builtins", "int"), ("__builtin__", "float")}


class DocumentFrequency:
    """The document frequencies of a training corpus' n-grams of 1 to 4 words, and its number of images.

    Build one with :func:`~torch_bleu.cider_document_frequency` (from references), :meth:`load` (from
    self-critical.pytorch's pickle) or from a mapping of n-grams (tuples of words) to counts; give it to the CIDEr
    functions, :class:`~torch_bleu.CIDErScore` and :func:`~torch_bleu.scst_reward` as ``document_frequency=``.

    Args:
        counts: the number of images whose references hold each n-gram (a tuple of 1 to 4 words).
        images: the number of images of the corpus (``N``, self-critical.pytorch's ``ref_len``).

    Example:
        >>> frequency = DocumentFrequency({("a",): 2, ("a", "dog"): 1, ("cat",): 1}, images=2)
        >>> len(frequency), frequency.images, frequency[("a", "dog")], frequency[("a", "cat")]
        (3, 2, 1, 0)
    """

    def __init__(self, counts: Mapping[tuple[str, ...], float], images: int) -> None:
        full = _with_prefixes(counts)
        words = tuple(sorted({ngram[-1] for ngram in full}))
        number = {word: index for index, word in enumerate(words)}
        keys: list[np.ndarray] = []
        frequencies: list[np.ndarray] = []
        previous: dict[tuple[str, ...], int] = {}
        for order in range(1, ORDERS + 1):
            ngrams = [ngram for ngram in full if len(ngram) == order]
            order_keys = np.array(
                [(previous[ngram[:-1]] if order > 1 else 0) * len(words) + number[ngram[-1]] for ngram in ngrams],
                dtype=np.int64,
            )
            sorting = np.argsort(order_keys, kind="stable")
            keys.append(order_keys[sorting])
            frequencies.append(np.array([full[ngrams[index]] for index in sorting], dtype=np.int64))
            previous = {ngrams[index]: place for place, index in enumerate(sorting)}
        self._hold(words, keys, frequencies, images)

    @classmethod
    def of_trie(cls, words: tuple[str, ...], keys: list[np.ndarray], counts: list[np.ndarray], images: int) -> Self:
        """The table of a trie counted already: ``words`` sorted, and per order its sorted int64 keys (module
        docstring) and their document frequencies.

        Example:
            >>> frequency = DocumentFrequency.of_trie(("a", "b"), [np.array([0, 1]), np.array([1])] + [np.zeros(0)] * 2,
            ...                                       [np.array([2, 1]), np.array([1])] + [np.zeros(0)] * 2, images=2)
            >>> frequency[("a", "b")], frequency[("b",)]
            (1, 1)
        """
        table = cls.__new__(cls)
        table._hold(words, keys, counts, images)
        return table

    def _hold(self, words: tuple[str, ...], keys: list[np.ndarray], counts: list[np.ndarray], images: int) -> None:
        if isinstance(images, bool) or not isinstance(images, (int, np.integer)) or images < 1:
            raise InputError(f"images must be a positive integer (the corpus' number of images), got {images!r}")
        self.images = int(images)
        self.words: tuple[str, ...] = words
        self._word_numbers = {word: index for index, word in enumerate(words)}
        self._keys = tuple(np.asarray(order_keys, dtype=np.int64) for order_keys in keys)
        self._counts = tuple(np.asarray(order_counts, dtype=np.int64) for order_counts in counts)
        self._on_device: dict[torch.device, tuple[Tensor, ...]] = {}

    @classmethod
    def load(cls, path: str | PathLike[str]) -> DocumentFrequency:
        """Read self-critical.pytorch's pickle (``coco-train-idxs.p``, ``coco-train-words.p``); only its dicts,
        tuples, strings and numbers are unpickled, nothing that runs code.

        Example:
            >>> import tempfile, os
            >>> path = os.path.join(tempfile.mkdtemp(), "corpus.p")
            >>> DocumentFrequency({("7",): 3, ("7", "0"): 1}, images=4).save(path)
            >>> DocumentFrequency.load(path)[("7", "0")]
            1
        """
        with open(path, "rb") as file:
            data = _SafeUnpickler(file, encoding="latin1").load()
        if not isinstance(data, Mapping) or "document_frequency" not in data or "ref_len" not in data:
            raise InputError(
                f"{path} is not a document frequency pickle: it must hold a dict with 'document_frequency' (n-gram "
                "tuples to counts) and 'ref_len' (the number of images), as self-critical.pytorch's prepro_ngrams.py "
                "writes"
            )
        counts = data["document_frequency"]
        images = data["ref_len"]
        if isinstance(images, float) and images.is_integer():
            images = int(images)
        return cls(_checked_counts(counts), images)

    def save(self, path: str | PathLike[str]) -> None:
        """Write self-critical.pytorch's pickle: ``document_frequency`` (a ``defaultdict(float)`` of n-gram tuples
        of words to counts) and ``ref_len`` (the number of images), pickle protocol 2 as its ``pickle_dump``."""
        counts: defaultdict[tuple[str, ...], float] = defaultdict(float)
        for ngram, count in self.items():
            counts[ngram] = float(count)
        Path(path).write_bytes(pickle.dumps({"document_frequency": counts, "ref_len": self.images}, protocol=2))

    def items(self) -> Iterable[tuple[tuple[str, ...], int]]:
        """Every n-gram held (a tuple of words) with its document frequency, by order, then by key."""
        for order in range(ORDERS):
            for ngram, count in zip(self._ngrams(order), self._counts[order].tolist()):
                if count:
                    yield ngram, count

    def _ngrams(self, order: int) -> list[tuple[str, ...]]:
        """The n-grams of ``order + 1`` words, in the order of their keys."""
        if order == 0:
            return [(self.words[int(key)],) for key in self._keys[0]]
        prefixes = self._ngrams(order - 1)
        size = len(self.words)
        return [prefixes[int(key) // size] + (self.words[int(key) % size],) for key in self._keys[order]]

    def __len__(self) -> int:
        return sum(int((counts > 0).sum()) for counts in self._counts)

    def __getitem__(self, ngram: tuple[str, ...]) -> int:
        """The document frequency of ``ngram`` (0 where the corpus has none)."""
        if not isinstance(ngram, tuple):
            raise TypeError(f"an n-gram is a tuple of words, such as ('a', 'dog'), got {type(ngram).__name__}")
        number = -1
        for order, word in enumerate(ngram):
            if word not in self._word_numbers or order >= ORDERS:
                return 0
            key = (number if order else 0) * len(self.words) + self._word_numbers[word]
            place = int(np.searchsorted(self._keys[order], key))
            if place == self._keys[order].shape[0] or self._keys[order][place] != key:
                return 0
            number = place
        return int(self._counts[len(ngram) - 1][number]) if ngram else 0

    def __repr__(self) -> str:
        return f"DocumentFrequency({len(self)} n-grams, images={self.images})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DocumentFrequency):
            return NotImplemented
        return self.fingerprint == other.fingerprint

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    @property
    def fingerprint(self) -> str:
        """A digest of the n-grams, their counts and the number of images (equal tables, equal digests)."""
        digest = hashlib.sha256(str(self.images).encode())
        digest.update("\n".join(self.words).encode("utf-8", "surrogatepass"))
        for keys, counts in zip(self._keys, self._counts):
            digest.update(keys.tobytes())
            digest.update(counts.tobytes())
        return digest.hexdigest()

    @property
    def vocabulary(self) -> Mapping[str, int]:
        """Each word's number (strings are numbered so before they are scored against the table)."""
        return self._word_numbers

    @property
    def log_images(self) -> float:
        """``log N``."""
        return math.log(self.images)

    def frequencies(self, words: Tensor, words_left: Tensor, of_ids: bool) -> Tensor:
        """``(ORDERS, P)`` int64: the document frequency of the n-gram of each order starting at each of ``P``
        positions (0 where the corpus has none, or fewer than ``order + 1`` words are left in its row).

        ``words`` ``(P,)`` are ids (``of_ids``: the words of the table that are decimal numbers match them) or
        the numbers of :attr:`vocabulary`; ``words_left`` ``(P,)`` counts the words from each position to its
        row's end.
        """
        tables = self._tables(words.device)
        size = len(self.words)
        if not of_ids:
            word_number = torch.where(words < size, words, -1)
        elif tables[0].shape[0] == 1:  # ids numbered by a dense table of every id up to the largest
            largest = tables[1].shape[0] - 1
            in_table = (words >= 0) & (words <= largest)
            word_number = torch.where(in_table, tables[1][words.clamp(0, largest)], -1)
        else:
            ids, numbers_of_ids = tables[0], tables[1]
            place = torch.searchsorted(ids, words).clamp(max=ids.shape[0] - 1)
            word_number = torch.where(ids[place] == words, numbers_of_ids[place], -1)
        # every word of the table has a unigram: the unigram's number is the word's
        known = (words_left > 0) & (word_number >= 0)
        number = torch.where(known, word_number, -1)
        result = [torch.where(known, tables[3][word_number.clamp(min=0)], 0)]
        for order in range(1, ORDERS):
            keys, counts = tables[2 + 2 * order], tables[3 + 2 * order]
            following = word_number.roll(-order)
            known = (words_left > order) & (number >= 0) & (following >= 0)
            key = torch.where(known, number * size + following, -1)
            place = torch.searchsorted(keys, key).clamp(max=keys.shape[0] - 1)
            found = known & (keys[place] == key)
            result.append(torch.where(found, counts[place], 0))
            number = torch.where(found, place, -1)
        return torch.stack(result)

    def _tables(self, device: torch.device) -> tuple[Tensor, ...]:
        """How ids find their words' numbers, then each order's keys and counts, on ``device`` (kept there).

        Ids up to :data:`DENSE_IDS` find them in a table of every id up to the largest (``-1`` for ids with no
        word), the first array then a placeholder of one value; larger ids by a search of the sorted ids, the
        first two arrays. The keys end with a value past all others, so a search never falls off their end."""
        if device not in self._on_device:
            ids, numbers = _word_ids(self.words)
            last = np.iinfo(np.int64).max
            if ids.shape[0] == 0 or ids[-1] < DENSE_IDS:
                dense = np.full(int(ids[-1]) + 1 if ids.shape[0] else 1, -1, dtype=np.int64)
                dense[ids] = numbers
                arrays = [np.zeros(1, dtype=np.int64), dense]
            else:
                arrays = [np.append(ids, last), np.append(numbers, -1)]
            for keys, counts in zip(self._keys, self._counts):
                arrays += [np.append(keys, last), np.append(counts, 0)]
            self._on_device[device] = tuple(torch.from_numpy(array).to(device) for array in arrays)
        return self._on_device[device]


def _word_ids(words: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The words that are decimal numbers as written by ``str(id)``, as sorted int64 ids, and their numbers."""
    pairs = sorted((int(word), number) for number, word in enumerate(words) if _is_id(word))
    return np.array([id_ for id_, _ in pairs], dtype=np.int64), np.array(
        [number for _, number in pairs], dtype=np.int64
    )


def _is_id(word: str) -> bool:
    """Whether ``word`` is ``str(id)`` of an int64 id (no sign, no leading zero, no spaces)."""
    return word.isascii() and word.isdigit() and (word == "0" or not word.startswith("0")) and int(word) < 2**63


def _with_prefixes(counts: Mapping[tuple[str, ...], float]) -> dict[tuple[str, ...], int]:
    """``counts`` as exact integers, with the first words of every n-gram, and each of its words, held too (at 0
    where missing: every n-gram a corpus holds has them, but a table made elsewhere may lack them)."""
    full: dict[tuple[str, ...], int] = {}
    for ngram, count in counts.items():
        full[ngram] = int(count)
    for ngram in list(full):
        for end in range(1, len(ngram)):
            full.setdefault(ngram[:end], 0)
        for word in ngram:
            full.setdefault((word,), 0)
    return full


def _checked_counts(counts: object) -> dict[tuple[str, ...], float]:
    """The pickle's n-gram counts, refused unless n-grams of 1 to 4 words map to non-negative whole numbers."""
    if not isinstance(counts, Mapping):
        raise InputError("the pickle's 'document_frequency' must be a dict of n-gram tuples to counts")
    for ngram, count in counts.items():
        if (
            not isinstance(ngram, tuple)
            or not 1 <= len(ngram) <= ORDERS
            or not all(isinstance(word, str) for word in ngram)
        ):
            raise InputError(f"document frequencies are keyed by tuples of 1 to {ORDERS} words, got {ngram!r}")
        if isinstance(count, bool) or not isinstance(count, (int, float)) or count < 0 or not float(count).is_integer():
            raise InputError(f"the document frequency of {ngram!r} must be a count of images, got {count!r}")
    return dict(counts)


class _SafeUnpickler(pickle.Unpickler):
    """Unpickles dicts, defaultdicts, tuples, strings and numbers only."""

    def __init__(self, file: io.BufferedReader | Any, **options: Any) -> None:
        super().__init__(file, **options)

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _PICKLE_CLASSES:
            return super().find_class(module, name)
        raise InputError(
            f"a document frequency pickle holds dicts, tuples, strings and numbers; it refers to {module}.{name}"
        )
