"""``coco_caption_scores`` against pycocoevalcap 1.2's scorers (``Bleu(4)``, ``Rouge``, ``Cider``) as
``COCOEvalCap.evaluate`` runs them, on tokenized captions; and, where Java runs, with its PTB tokenizer."""

from __future__ import annotations

import shutil

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import caption_corpora

from torch_bleu import coco_caption_scores
from torch_bleu.errors import InputError

pytest.importorskip("pycocoevalcap")
from pycocoevalcap.bleu.bleu import Bleu
from pycocoevalcap.cider.cider import Cider
from pycocoevalcap.rouge.rouge import Rouge


def coco_scores(captions: list[str], references: list[list[str]]) -> tuple[dict[str, float], dict[str, list[float]]]:
    """What ``COCOEvalCap.evaluate`` sets in ``eval`` and ``imgToEval`` for these tokenized captions."""
    gts = dict(enumerate(references))
    res = {image: [caption] for image, caption in enumerate(captions)}
    corpus: dict[str, float] = {}
    images: dict[str, list[float]] = {}
    bleu, bleu_images = Bleu(4).compute_score(gts, res)
    for order in range(4):
        corpus[f"Bleu_{order + 1}"] = bleu[order]
        images[f"Bleu_{order + 1}"] = bleu_images[order]
    corpus["ROUGE_L"], rouge_images = Rouge().compute_score(gts, res)
    images["ROUGE_L"] = list(rouge_images)
    if any(ref.split() for refs in references for ref in refs):
        corpus["CIDEr"], cider_images = Cider().compute_score(gts, res)
        images["CIDEr"] = list(cider_images)
    else:  # pycocoevalcap fails on an empty max
        corpus["CIDEr"], images["CIDEr"] = 0.0, [0.0] * len(captions)
    return corpus, images


def assert_as_coco(captions: list[str], references: list[list[str]]) -> None:
    expected_corpus, expected_images = coco_scores(captions, references)
    scores = coco_caption_scores(captions, references, tokenize="none")
    for name, value in expected_corpus.items():
        assert scores.corpus[name].item() == pytest.approx(value, abs=1e-12, rel=1e-12), name
        assert scores.images[name].tolist() == pytest.approx(expected_images[name], abs=1e-12, rel=1e-12), name


def corpora() -> st.SearchStrategy[tuple[list[str], list[list[str]]]]:
    """Two to five images of one to nine words each (no empty caption or reference: rows of ids hold them)."""
    return caption_corpora(9, images=(2, 5), references=4, shortest=1)


@settings(max_examples=60, deadline=None)
@given(corpora())
def test_as_coco_eval_cap(corpus: tuple[list[str], list[list[str]]]) -> None:
    assert_as_coco(*corpus)


def test_ids_as_their_strings() -> None:
    captions = torch.tensor([[4, 5, 6, 0], [7, 7, 0, 0]])
    references = torch.tensor([[[4, 5, 0, 0], [4, 6, 5, 0]], [[7, 8, 0, 0], [0, 0, 0, 0]]])
    ids = coco_caption_scores(captions, references, tokenize="none")
    strings = coco_caption_scores(
        ["4 5 6 0", "7 7 0 0"], [["4 5 0 0", "4 6 5 0"], ["7 8 0 0", "0 0 0 0"]], tokenize="none"
    )
    assert ids.corpus.keys() == strings.corpus.keys()
    for name in ids.corpus:
        assert ids.corpus[name].item() == pytest.approx(strings.corpus[name].item(), abs=1e-12), name


@pytest.mark.skipif(
    shutil.which("java") is None, reason="COCOEvalCap's PTB tokenizer runs Java, which is not installed"
)
def test_raw_captions_as_coco_eval_cap() -> None:
    """Raw captions through the Java PTB tokenizer and the scorers, as ``COCOEvalCap.evaluate`` runs them."""
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    captions = ["A man rides a horse on the beach.", "Two dogs play in the snow!", "A cat's toy, (red) & blue."]
    references = [
        ["A man riding a horse on a beach.", "A man rides a brown horse on the beach."],
        ["Two dogs play in the white snow.", "Dogs playing in snow..."],
        ["The cat's red-and-blue toy.", 'A "red" toy of a cat.'],
    ]
    tokenizer = PTBTokenizer()
    gts = tokenizer.tokenize({image: [{"caption": ref} for ref in refs] for image, refs in enumerate(references)})
    res = tokenizer.tokenize({image: [{"caption": caption}] for image, caption in enumerate(captions)})
    expected, _ = coco_scores([res[image][0] for image in range(3)], [gts[image] for image in range(3)])
    scores = coco_caption_scores(captions, references)
    for name, value in expected.items():
        assert scores.corpus[name].item() == pytest.approx(value, abs=1e-12, rel=1e-12), name


def test_ptb_needs_strings() -> None:
    with pytest.raises(InputError, match="tokenize='none'"):
        coco_caption_scores(torch.tensor([[1, 2]]), torch.tensor([[[1, 2]]]))
    with pytest.raises(InputError, match="tokenize must be"):
        coco_caption_scores(["a"], [["a"]], tokenize="13a")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("captions", "references"),
    [
        (["a  b", "b a"], [["a b", "b"], ["a  a", "b"]]),  # double spaces: ROUGE-L's words differ
        (["a b", "b a"], [["a b", ""], ["b", "a"]]),  # an empty reference still counts
        (["", "b a"], [["a b"], [" b", "a "]]),  # an empty caption, spaces at the ends
    ],
)
def test_text_that_ids_would_not_keep(captions: list[str], references: list[list[str]]) -> None:
    """Text the words of which cannot all go through rows of ids scores as pycocoevalcap scores it."""
    assert_as_coco(captions, references)
