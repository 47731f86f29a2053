"""``convention="coco"`` against pycocoevalcap 1.2's ``Bleu(n).compute_score``: captions of tie-prone vocabularies
(2 to 4 words), empty captions and references, one image or many, one to five references, long captions,
reference length ties; rows of ids equal to their strings; ``BLEUScore`` over updates equal to one call;
``bleu_by_order`` under every convention; options and input refused with advice.

The default run keeps a few examples of each; ``--slow`` adds more and longer ones.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import as_words
from strategies import caption_corpora, ragged_corpora, seeded_captions

from torch_bleu import (
    BLEUConfig,
    BLEUScore,
    bleu_by_order,
    bleu_from_statistics,
    corpus_bleu,
    pairwise_bleu,
    sentence_bleu,
)
from torch_bleu.errors import InputError
from torch_bleu.metrics.bleu.score import bleu_parts

bleu = pytest.importorskip("pycocoevalcap.bleu.bleu")

Corpus = tuple[list[str], list[list[str]]]


def reference_scores(captions: list[str], references: list[list[str]], orders: int = 4) -> tuple[list[float], list]:
    """pycocoevalcap's BLEU-1..n of the corpus, and per image (``(B, n)``), the images numbered in order."""
    gts = {image: refs for image, refs in enumerate(references)}
    res = {image: [caption] for image, caption in enumerate(captions)}
    corpus, per_order = bleu.Bleu(orders).compute_score(gts, res, verbose=0)
    return [float(score) for score in corpus], [list(scores) for scores in zip(*per_order)]


def assert_as_pycocoevalcap(captions: list[str], references: list[list[str]], orders: int = 4) -> None:
    expected_corpus, expected = reference_scores(captions, references, orders)
    options = {"convention": "coco", "max_order": orders}
    scores = bleu_by_order(captions, references, **options)
    assert scores.corpus.dtype == torch.float64 and scores.corpus.shape == (orders,)
    assert scores.sentences.dtype == torch.float64 and scores.sentences.shape == (len(captions), orders)
    assert scores.corpus.tolist() == pytest.approx(expected_corpus, abs=1e-12, rel=1e-12)
    for row, expected_row in zip(scores.sentences.tolist(), expected):
        assert row == pytest.approx(expected_row, abs=1e-12, rel=1e-12)
    assert corpus_bleu(captions, references, **options).item() == pytest.approx(expected_corpus[-1], abs=1e-12)
    per_image = sentence_bleu(captions, references, **options).tolist()
    assert per_image == pytest.approx([row[-1] for row in expected], abs=1e-12, rel=1e-12)


@settings(max_examples=400, deadline=None)
@given(caption_corpora())
def test_as_pycocoevalcap(corpus: Corpus) -> None:
    assert_as_pycocoevalcap(*corpus)


@settings(max_examples=100, deadline=None)
@given(caption_corpora(), st.integers(1, 3))
def test_other_orders_as_pycocoevalcap(corpus: Corpus, orders: int) -> None:
    """``Bleu(n)`` for other ``n`` is ``max_order=n`` (past 4, pycocoevalcap fails, and ``max_order`` is refused)."""
    assert_as_pycocoevalcap(*corpus, orders=orders)


@pytest.mark.parametrize("longest", [60, pytest.param(400, marks=pytest.mark.slow)])
def test_long_captions(longest: int) -> None:
    caption = seeded_captions(longest, ["a", "b", "c", "d"], longest)
    captions = [caption() for _ in range(20)]
    assert_as_pycocoevalcap(captions, [[caption() for _ in range(1 + image % 5)] for image in range(20)])


@pytest.mark.parametrize("images", [300, pytest.param(5000, marks=pytest.mark.slow)])
def test_many_images(images: int) -> None:
    """A validation split's worth: 50 words, five references per image."""
    caption = seeded_captions(images, [f"w{number}" for number in range(50)], 15)
    assert_as_pycocoevalcap([caption() for _ in range(images)], [[caption() for _ in range(5)] for _ in range(images)])


def test_one_image_takes_the_closest_length() -> None:
    """``Bleu`` asks its scorer for the closest reference length even for a single image (the scorer's own
    default there, the references' mean length, is not what ``Bleu`` computes)."""
    caption, references = "a man rides a horse on the beach", ["a man riding a horse on a beach", "a horse"]
    assert_as_pycocoevalcap([caption], [references])
    closest = corpus_bleu([caption], [references], convention="coco").item()
    assert closest == pytest.approx(reference_scores([caption], [references])[0][3], abs=1e-15)


def test_reference_length_ties_and_edges() -> None:
    """Equally close references (the shorter counts), a caption as long as its reference (a hair of penalty),
    empty captions and references, words split on any whitespace, one reference or five."""
    assert_as_pycocoevalcap(["a b c d"], [["a b c", "a b c d e"]])  # 3 and 5 are as close: 3
    assert_as_pycocoevalcap(["a b c d", "a b"], [["a b c e f", "a b c"], ["b a", "a b b"]])
    assert_as_pycocoevalcap(["a b c d"], [["a b c d"]])
    assert_as_pycocoevalcap(["", "a"], [["", "a"], [""]])
    assert_as_pycocoevalcap([""], [[""]])
    assert_as_pycocoevalcap(["a  dog\tran\n", " ", "a\u3000b\x1cc"], [["a dog ran", " a\u2028dog "], ["a"], ["a b c"]])
    assert_as_pycocoevalcap(["a b a b"], [["a b", "b a", "a a b b", "b b", "a b a b a"]])


def test_no_image() -> None:
    """No image: pycocoevalcap's offsets give 0 (``(0 + 1e-15) / (0 + 1e-9)`` is a ratio below 1)."""
    assert corpus_bleu([], [], convention="coco").item() == 0.0
    assert sentence_bleu([], [], convention="coco").shape == (0,)
    assert bleu_by_order([], [], convention="coco").corpus.tolist() == [0.0] * 4


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_ids_as_strings(data: st.DataObject) -> None:
    """Padded ids ``(B, R, L)``: ignored ids dropped, rows cut at EOS; of several references, those left empty
    are absent (unless all are, when they count as one empty reference)."""
    batch, references, width = data.draw(st.integers(1, 5)), data.draw(st.integers(1, 4)), data.draw(st.integers(0, 7))
    values = st.integers(1, 6)  # 1, 2 ignored, 3 EOS
    rows = st.lists(values, min_size=width, max_size=width)
    preds = torch.tensor(data.draw(st.lists(rows, min_size=batch, max_size=batch)), dtype=torch.int64)
    target = torch.tensor(
        data.draw(st.lists(st.lists(rows, min_size=references, max_size=references), min_size=batch, max_size=batch)),
        dtype=torch.int64,
    )
    preds, target = preds.reshape(batch, width), target.reshape(batch, references, width)
    captions = [as_words(row, {1, 2}, 3) for row in preds.tolist()]
    ref_texts = [[as_words(row, {1, 2}, 3) for row in group] for group in target.tolist()]
    if references > 1:
        ref_texts = [[text for text in texts if text] or [""] for texts in ref_texts]
    options = {"ignore_ids": [1, 2], "eos_id": 3, "convention": "coco"}
    expected = bleu_by_order(captions, ref_texts, convention="coco")
    scores = bleu_by_order(preds, target, **options)
    assert scores.corpus.tolist() == expected.corpus.tolist()
    assert scores.sentences.tolist() == expected.sentences.tolist()
    assert_as_pycocoevalcap(captions, ref_texts)


def test_ragged_ids_as_strings() -> None:
    preds = [[5, 6, 7], [], [9, 9]]
    target = [[[5, 6], [7, 5, 6, 7]], [[8]], [[9, 9, 9], []]]
    expected = sentence_bleu(["5 6 7", "", "9 9"], [["5 6", "7 5 6 7"], ["8"], ["9 9 9", ""]], convention="coco")
    assert sentence_bleu(preds, target, convention="coco").tolist() == expected.tolist()


def test_ids_on_meta() -> None:
    """Scores from shapes only: the ``meta`` device gives ``meta`` scores of the right shapes."""
    ids = torch.zeros((2, 3, 5), dtype=torch.int64, device="meta")
    scores = bleu_by_order(ids[:, 0], ids, convention="coco", ignore_ids=[0])
    assert scores.corpus.shape == (4,) and scores.sentences.shape == (2, 4)
    assert scores.sentences.device.type == "meta"


def test_metric_over_updates() -> None:
    """Images added over several updates score as one call (bit for bit), forward gives the batch's own score,
    weights repeat or leave out images, and a rejected update changes nothing."""
    captions = ["a b c", "b c", "", "c a b b", "a b c d e f"]
    references = [["a b", "c"], ["b c a"], ["a"], ["c a", "b b", ""], ["a b c d e", "a b c d e f g"]]
    metric = BLEUScore(convention="coco")
    assert metric(captions[:2], references[:2]).item() == corpus_bleu(captions[:2], references[:2], convention="coco")
    metric.update(captions[2:3], references[2:3])
    with pytest.raises(ValueError, match="batch sizes differ"):
        metric.update(["a b"], [])
    metric.update(captions[3:], references[3:])
    assert metric.compute().item() == corpus_bleu(captions, references, convention="coco").item()
    assert metric.compute().item() == pytest.approx(reference_scores(captions, references)[0][3], abs=1e-12)
    weighted = BLEUScore(convention="coco")
    weighted.update(captions, references, weight=torch.tensor([2, 1, 0, 1, 1]))
    repeated = [0, 0, 1, 3, 4]
    expected = reference_scores([captions[i] for i in repeated], [references[i] for i in repeated])[0][3]
    assert weighted.compute().item() == pytest.approx(expected, abs=1e-12)


def test_metric_of_ids_and_merged_states() -> None:
    preds, target = torch.tensor([[5, 6, 0], [7, 0, 0]]), torch.tensor([[[5, 6, 7], [6, 0, 0]], [[7, 5, 0], [0, 0, 0]]])
    first, second = BLEUScore(convention="coco", ignore_ids=[0]), BLEUScore(convention="coco", ignore_ids=[0])
    first.update(preds[:1], target[:1])
    second.update(preds[1:], target[1:])
    first.merge_state(second)
    assert first.numerator.dtype == torch.int64
    expected = reference_scores(["5 6", "7"], [["5 6 7", "6"], ["7 5"]])[0][3]
    assert first.compute().item() == pytest.approx(expected, abs=1e-12)
    with pytest.raises(ValueError, match="counted"):
        BLEUScore(ignore_ids=[0]).merge_state(first)


@settings(max_examples=40, deadline=None)
@given(ragged_corpora(), st.sampled_from([{}, {"smoothing": "exp"}, {"convention": "nltk", "smoothing": "method4"}]))
def test_by_order_under_other_conventions(corpus: tuple[list, list], options: dict[str, str]) -> None:
    """BLEU-k of ``bleu_by_order`` is the score with ``max_order=k`` under sacrebleu's and nltk's conventions."""
    preds, target = corpus
    scores = bleu_by_order(preds, target, max_order=4, **options)
    for order in range(1, 5):
        corpus_k = corpus_bleu(preds, target, max_order=order, **options).item()
        assert scores.corpus[order - 1].item() == pytest.approx(corpus_k, abs=1e-15, rel=1e-13)
        sentences = sentence_bleu(preds, target, max_order=order, **options).tolist()
        assert scores.sentences[:, order - 1].tolist() == pytest.approx(sentences, abs=1e-15, rel=1e-13)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"smoothing": "floor"}, "pycocoevalcap's BLEU has no smoothing"),
        ({"smoothing": "method1"}, "does not belong to convention 'coco'"),
        ({"smooth_value": 0.1}, "no smoothing, so no smooth_value"),
        ({"effective_order": True}, "convention='coco' has none"),
        ({"weights": (0.5, 0.5, 0, 0)}, "pass max_order=4 instead of weights"),
        ({"ref_length": "shortest"}, "closest reference length"),
        ({"tokenize": "13a"}, "splits captions on whitespace"),
        ({"lowercase": True}, "pass tokenize='none' with it"),
        ({"convention": "cocoa"}, "unknown convention 'cocoa'"),
        ({"max_order": 5}, "has orders 1..4"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    settings_ = {"convention": "coco", **options}
    with pytest.raises(ValueError, match=message):
        corpus_bleu(["a b"], [["a b"]], **settings_)
    with pytest.raises(ValueError, match=message):
        BLEUScore(**settings_)


def test_options_that_hold() -> None:
    """Equal weights are ``max_order``'s; ``tokenize="none"`` reads strings only, and may lowercase them."""
    captions, references = ["A b c", "b C"], [["a b c"], ["b c", "c"]]
    expected = corpus_bleu(captions, references, convention="coco").item()
    assert corpus_bleu(captions, references, convention="coco", weights=(0.25,) * 4).item() == expected
    assert corpus_bleu(captions, references, convention="coco", tokenize="none").item() == expected
    lowered = [caption.lower() for caption in captions]
    assert corpus_bleu(captions, references, convention="coco", tokenize="none", lowercase=True).item() == (
        corpus_bleu(lowered, references, convention="coco").item()
    )
    with pytest.raises(TypeError, match="with tokenize=, BLEU scores strings"):
        corpus_bleu(torch.tensor([[1]]), torch.tensor([[1]]), convention="coco", tokenize="none")


def test_bad_input_and_other_entry_points() -> None:
    with pytest.raises(InputError, match="ignore_ids applies to rows of token ids"):
        corpus_bleu(["a b"], [["a b"]], convention="coco", ignore_ids=[0])
    with pytest.raises(ValueError, match="batch sizes differ"):
        corpus_bleu(["a b", "c"], [["a b"]], convention="coco")
    with pytest.raises(InputError, match="pass max_order=2 instead of weights"):
        bleu_by_order(["a b"], [["a b"]], tokenize="none", weights=(0.7, 0.3))
    with pytest.raises(ValueError, match="sentence-level only"):
        bleu_by_order(["a b"], [["a b"]], tokenize="none", convention="nltk", smoothing="method5")
    with pytest.raises(InputError, match=r"use torch_bleu\.sentence_bleu or torch_bleu\.corpus_bleu"):
        pairwise_bleu([["a b", "b c"]], convention="coco")
    stats = torch.tensor([1, 0, 0, 0]), torch.tensor([1, 0, 0, 0]), torch.tensor(1), torch.tensor(1)
    with pytest.raises(ValueError, match="no smoothed precisions"):
        bleu_parts(*stats, BLEUConfig(convention="coco"))
    with pytest.raises(ValueError, match="statistics must have 4 orders"):
        bleu_from_statistics(stats[0][:2], stats[1][:2], *stats[2:], BLEUConfig(convention="coco"))
