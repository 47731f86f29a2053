"""Hypothesis strategies the differential tests share: token ids, padded and ragged corpora, corpora of words."""

from __future__ import annotations

from collections.abc import Callable

import torch
from hypothesis import strategies as st

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
#: The largest and smallest token ids: negative ids are never tokens (they are dropped as ignored ids are).
TOKEN_MIN, TOKEN_MAX = 0, INT64_MAX

#: The special ids of the padded corpora.
PAD, BOS, EOS = 0, 1, 2

#: Words of the text corpora: few, so that n-grams repeat, match and get clipped.
WORDS = ["a", "b", "c", "d", "e"]


class Draws:
    """Seeded random tensors, the same on every device: drawn on the CPU by a CPU generator, then moved to
    PyTorch's default device (where ``pytest --device cuda`` puts the tests' tensors)."""

    def __init__(self, seed: int) -> None:
        self.generator = torch.Generator().manual_seed(seed)

    def randint(self, low: int, high: int, shape: tuple[int, ...]) -> torch.Tensor:
        return torch.randint(low, high, shape, generator=self.generator, device="cpu").to(torch.get_default_device())

    def rand(self, *shape: int) -> torch.Tensor:
        return torch.rand(shape, generator=self.generator, device="cpu").to(torch.get_default_device())

    def randperm(self, count: int) -> torch.Tensor:
        return torch.randperm(count, generator=self.generator, device="cpu").to(torch.get_default_device())


def id_vocabularies(small: tuple[int, int] = (1, 6), max_size: int = 4) -> st.SearchStrategy[list[int]]:
    """A few distinct ids: small ones (n-grams repeat), or any token id (exactness at the extremes)."""
    return st.one_of(
        st.lists(st.integers(*small), min_size=1, max_size=max_size, unique=True),
        st.lists(st.integers(TOKEN_MIN, TOKEN_MAX), min_size=1, max_size=max_size, unique=True),
    )


@st.composite
def ragged_corpora(
    draw: st.DrawFn, max_batch: int = 5, max_len: int = 10, vocabularies: st.SearchStrategy[list[int]] | None = None
) -> tuple[list[list[int]], list[list[list[int]]]]:
    """Hypotheses and 1-3 references each, as nltk takes them (lists of lists of ids); some may be empty."""
    vocabulary = draw(vocabularies if vocabularies is not None else id_vocabularies())
    sentence = st.lists(st.sampled_from(vocabulary), max_size=max_len)
    batch = draw(st.integers(1, max_batch))
    hyps = draw(st.lists(sentence, min_size=batch, max_size=batch))
    refs = draw(st.lists(st.lists(sentence, min_size=1, max_size=3), min_size=batch, max_size=batch))
    return hyps, refs


def sentences_of_words(max_len: int) -> st.SearchStrategy[str]:
    """Lines of up to ``max_len`` words from :data:`WORDS`, empty lines included."""
    return st.lists(st.sampled_from(WORDS), min_size=0, max_size=max_len).map(" ".join)


@st.composite
def word_corpora(
    draw: st.DrawFn, sizes: tuple[int, int], systems: tuple[int, int], references: tuple[int, int], max_len: int
) -> tuple[list[list[str]], list[list[str]]]:
    """Several systems' outputs and several reference streams for the same sentences."""
    size = draw(st.integers(*sizes))
    line = sentences_of_words(max_len)
    outputs = draw(st.lists(st.lists(line, min_size=size, max_size=size), min_size=systems[0], max_size=systems[1]))
    refs = draw(st.lists(st.lists(line, min_size=size, max_size=size), min_size=references[0], max_size=references[1]))
    return outputs, refs


@st.composite
def padded_corpora(draw, max_batch=6, max_refs=3, max_len=14):
    """A padded batch with ignore ids mid-row, absent and empty references, ties and short rows."""
    batch = draw(st.integers(0, max_batch))
    num_refs = draw(st.integers(1, max_refs))
    pred_width = draw(st.integers(0, max_len))
    ref_width = draw(st.integers(0, max_len))
    # a small vocabulary makes repeats, matches and clipping common; large ids test exactness
    vocab = draw(
        st.one_of(
            st.lists(st.integers(3, 8), min_size=1, max_size=4, unique=True),
            st.lists(st.integers(TOKEN_MIN, TOKEN_MAX), min_size=1, max_size=6, unique=True),
        )
    )
    token = st.sampled_from([*vocab, PAD, BOS, EOS]) if draw(st.booleans()) else st.sampled_from(vocab)
    preds = draw(st.lists(st.lists(token, min_size=pred_width, max_size=pred_width), min_size=batch, max_size=batch))
    target = draw(
        st.lists(
            st.lists(st.lists(token, min_size=ref_width, max_size=ref_width), min_size=num_refs, max_size=num_refs),
            min_size=batch,
            max_size=batch,
        )
    )
    preds = torch.tensor(preds, dtype=torch.int64).reshape(batch, pred_width)
    target = torch.tensor(target, dtype=torch.int64).reshape(batch, num_refs, ref_width)
    return preds, target


#: Pieces of adversarial text: punctuation at word edges, contractions, numbers, odd whitespace,
#: accents, CJK, emoji, an HTML entity.
TEXT_PIECES = [
    *"abcab.,!?'\"()-",
    *("the", "The", "cat", "(hi)", "hi!", "!hi", "'s", "n't", "3.5", "1,000", "--", "é", "Ünïcode", "猫が"),
    *(" ", "  ", "\t", "\u00a0", "\u3000", "\n", "😀", "a-b", "...", "&amp;"),
]
#: Sentences of up to 14 such pieces (the empty one included).
text_sentences = st.lists(st.sampled_from(TEXT_PIECES), max_size=14).map("".join)


def chrf_options(min_char_order: int = 1) -> st.SearchStrategy[dict]:
    """Every option of sacrebleu's ``CHRF``, with at least one character or word order."""
    return st.fixed_dictionaries(
        {
            "char_order": st.integers(min_char_order, 6),
            "word_order": st.sampled_from([0, 1, 2]),
            "beta": st.sampled_from([1, 2, 3]),
            "whitespace": st.booleans(),
            "eps_smoothing": st.booleans(),
            "lowercase": st.booleans(),
        }
    ).filter(lambda options: options["char_order"] + options["word_order"] > 0)


@st.composite
def caption_corpora(
    draw: st.DrawFn,
    longest: int = 8,
    images: tuple[int, int] = (1, 6),
    references: int = 5,
    shortest: int = 0,
    empty_words: bool = False,
) -> tuple[list[str], list[list[str]]]:
    """Images of a 2- to 4-word vocabulary (n-grams repeat and clip, lengths tie), each with a caption and one to
    ``references`` references, of ``shortest`` to ``longest`` words; with ``empty_words``, some corpora have
    empty words among their words (double spaces, spaces at either end)."""
    vocabulary = ["a", "b", "c", "dog"][: draw(st.integers(2, 4))]
    words = st.sampled_from(vocabulary)
    if empty_words and draw(st.booleans()):
        words = words | st.just("")
    sentences = st.lists(words, min_size=shortest, max_size=longest).map(" ".join)
    count = draw(st.integers(*images))
    captions = draw(st.lists(sentences, min_size=count, max_size=count))
    refs = draw(st.lists(st.lists(sentences, min_size=1, max_size=references), min_size=count, max_size=count))
    return captions, refs


def seeded_captions(seed: int, words: list[str], longest: int) -> Callable[[], str]:
    """Captions of ``words``, 0 to ``longest`` of them, drawn by a generator seeded with ``seed``."""
    generator = torch.Generator().manual_seed(seed)

    def caption() -> str:
        length = int(torch.randint(0, longest + 1, (), generator=generator))
        return " ".join(words[int(i)] for i in torch.randint(0, len(words), (length,), generator=generator))

    return caption
