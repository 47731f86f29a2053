"""The SCST reward and training-corpus document frequencies against self-critical.pytorch's recipe, run here
with pycocoevalcap 1.2's ``CiderScorer`` (the same CIDEr-D code as the recipe's ``CiderD``): its sentences
written as its ``array_to_str`` writes them (ids up to and including the first end token 0), the document
frequencies and ``ref_len`` read back from the pickle :meth:`DocumentFrequency.save` writes.
"""

from __future__ import annotations

import pickle
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from torch_bleu import CIDErScore, DocumentFrequency, cider_document_frequency, scst_reward, sentence_cider
from torch_bleu.errors import InputError

cider_scorer = pytest.importorskip("pycocoevalcap.cider.cider_scorer")


class _TrainingImages(list):  # type: ignore[type-arg]
    """The references of the images scored, counting as the training corpus' images (``len``), as ``CiderD``
    with a cached pickle sets its ``ref_len``."""

    def __init__(self, items: list[Any], images: int) -> None:
        super().__init__(items)
        self.images = images

    def __len__(self) -> int:
        return self.images


def recipe_scores(captions: list[str], references: list[list[str]], pickle_path: Path | None) -> np.ndarray:
    """CIDEr-D of each caption, as ``CiderD(df=...)`` scores them with the pickle (``None``: ``df="corpus"``)."""
    scorer = cider_scorer.CiderScorer(n=4, sigma=6.0)
    for caption, refs in zip(captions, references):
        scorer.cook_append(caption, refs)
    if pickle_path is None:
        if not any(ref.split() for refs in references for ref in refs):
            return np.zeros(len(captions))
        return np.array(scorer.compute_score()[1])
    with open(pickle_path, "rb") as file:
        cached = pickle.load(file, encoding="latin1")
    scorer.document_frequency = cached["document_frequency"]
    scorer.crefs = _TrainingImages(scorer.crefs, cached["ref_len"])
    return np.array(scorer.compute_cider())


def as_recipe_string(row: list[int]) -> str:
    """A row of ids as the recipe's ``array_to_str`` writes it: up to and including the first 0."""
    end = row.index(0) + 1 if 0 in row else len(row)
    return " ".join(str(token) for token in row[:end])


def recipe_reward(
    samples: list[list[int]],
    greedy: list[list[int]] | None,
    references: list[list[list[int]]],
    pickle_path: Path | None,
) -> np.ndarray:
    """``get_self_critical_reward`` (with greedy captions) or the ``new_self_critical`` baseline (without)."""
    images = len(references)
    per_image = len(samples) // images
    captions = [as_recipe_string(row) for row in samples] + [as_recipe_string(row) for row in greedy or []]
    written = [[as_recipe_string(row) for row in refs] for refs in references]
    refs_of = [written[index // per_image] for index in range(len(samples))] + (written if greedy else [])
    scores = recipe_scores(captions, refs_of, pickle_path)
    sample_scores = scores[: len(samples)].reshape(images, per_image)
    if greedy is not None:
        return (sample_scores - scores[len(samples) :][:, None]).reshape(-1)
    baseline = (sample_scores.sum(1, keepdims=True) - sample_scores) / (per_image - 1)
    return (sample_scores - baseline).reshape(-1)


def rows_of(vocabulary: int, longest: int) -> st.SearchStrategy[list[int]]:
    """Rows of ids ``1 .. vocabulary`` ending in the end token 0 and padding (or not ending: full rows)."""
    words = st.lists(st.integers(1, vocabulary), max_size=longest)
    return st.tuples(words, st.integers(0, 2)).map(lambda pair: pair[0] + [0] * pair[1])


@st.composite
def batches(draw: st.DrawFn) -> dict[str, Any]:
    vocabulary = draw(st.integers(1, 3))
    rows = rows_of(vocabulary, 6)
    images = draw(st.integers(1, 3))
    per_image = draw(st.integers(1, 3))
    references = draw(st.lists(st.lists(rows, min_size=1, max_size=3), min_size=images, max_size=images))
    training = draw(st.lists(st.lists(rows, min_size=1, max_size=3), min_size=1, max_size=4))
    samples = draw(st.lists(rows, min_size=images * per_image, max_size=images * per_image))
    greedy = draw(st.one_of(st.none(), st.lists(rows, min_size=images, max_size=images)))
    if greedy is None and per_image < 2:
        per_image, samples = 2, samples + samples
    return {"references": references, "training": training + references, "samples": samples, "greedy": greedy}


def padded(rows: list[list[int]], fill: int = 0) -> torch.Tensor:
    width = max((len(row) for row in rows), default=0)
    return torch.tensor([row + [fill] * (width - len(row)) for row in rows], dtype=torch.int64).reshape(
        len(rows), width
    )


@settings(max_examples=150, deadline=None)
@given(batches(), st.booleans())
def test_reward_as_recipe(tmp_path_factory: pytest.TempPathFactory, batch: dict[str, Any], of_training: bool) -> None:
    """Advantages equal the recipe's, with a training corpus' pickle or the batch's own frequencies."""
    path = None
    frequency = None
    if of_training:
        frequency = cider_document_frequency(
            [[torch.tensor(row, dtype=torch.int64) for row in refs] for refs in batch["training"]],
            eos_id=0,
            count_eos=True,
        )
        path = tmp_path_factory.mktemp("df") / "coco-train-idxs.p"
        frequency.save(path)
    references = [[torch.tensor(row, dtype=torch.int64) for row in refs] for refs in batch["references"]]
    samples = padded(batch["samples"])  # the recipe's ids are padded with its end token too
    greedy = None if batch["greedy"] is None else padded(batch["greedy"])
    reward = scst_reward(samples, references, frequency, greedy=greedy)
    expected = recipe_reward(samples.tolist(), None if greedy is None else greedy.tolist(), batch["references"], path)
    assert reward.advantages.dtype == torch.float64
    assert reward.advantages.tolist() == pytest.approx(expected.tolist(), abs=1e-12, rel=1e-12)
    assert (reward.scores - reward.baselines).tolist() == pytest.approx(reward.advantages.tolist(), abs=1e-12)


def test_document_frequency_of_strings_as_recipe(tmp_path: Path) -> None:
    """Word n-grams (the ``-words`` pickle): strings scored with a training corpus' frequencies."""
    training = [["a dog runs on grass", "the dog runs"], ["a cat is sleeping", "the cat sleeps"], ["a dog sleeps"]]
    frequency = cider_document_frequency(training)
    path = tmp_path / "coco-train-words.p"
    frequency.save(path)
    captions, references = ["a dog runs", "a cat naps"], [["a dog runs fast", "the dog"], ["the cat sleeps"]]
    expected = recipe_scores(captions, references, path)
    scores = sentence_cider(captions, references, document_frequency=DocumentFrequency.load(path))
    assert scores.tolist() == pytest.approx(expected.tolist(), abs=1e-12, rel=1e-12)
    metric = CIDErScore(document_frequency=frequency)
    for caption, refs in zip(captions, references):
        metric.update([caption], [refs])
    assert metric.compute().item() == pytest.approx(float(expected.mean()), abs=1e-12)


def test_pickle_round_trip(tmp_path: Path) -> None:
    """A pickle as ``prepro_ngrams.py`` writes it (a ``defaultdict(float)``, counts as floats) loads, and saves
    back the same n-grams and counts; n-grams whose prefixes are missing still count."""
    counts: defaultdict[tuple[str, ...], float] = defaultdict(float)
    counts.update({("12",): 3.0, ("12", "0"): 2.0, ("7", "12", "0"): 1.0, ("7",): 1.0})
    path = tmp_path / "coco-train-idxs.p"
    path.write_bytes(pickle.dumps({"document_frequency": counts, "ref_len": 4}, protocol=2))
    frequency = DocumentFrequency.load(path)
    assert frequency.images == 4 and frequency[("7", "12", "0")] == 1 and frequency[("7", "12")] == 0
    again = tmp_path / "again.p"
    frequency.save(again)
    saved = pickle.loads(again.read_bytes())
    assert dict(saved["document_frequency"]) == dict(counts) and saved["ref_len"] == 4
    assert DocumentFrequency.load(again) == frequency


def test_pickle_that_runs_code_refused(tmp_path: Path) -> None:
    path = tmp_path / "evil.p"
    path.write_bytes(pickle.dumps({"document_frequency": {("a",): Path("x")}, "ref_len": 1}))
    with pytest.raises(InputError, match="refers to pathlib"):
        DocumentFrequency.load(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"ref_len": 2}, "not a document frequency pickle"),
        ({"document_frequency": {"a": 1.0}, "ref_len": 2}, "tuples of 1 to 4 words"),
        ({"document_frequency": {("a",): -1.0}, "ref_len": 2}, "count of images"),
        ({"document_frequency": {("a",): 1.0}, "ref_len": 0}, "positive integer"),
    ],
)
def test_bad_pickles_refused(tmp_path: Path, data: dict[str, Any], message: str) -> None:
    path = tmp_path / "bad.p"
    path.write_bytes(pickle.dumps(data))
    with pytest.raises(InputError, match=message):
        DocumentFrequency.load(path)


def test_reward_on_meta() -> None:
    """No value is read back: on ``meta`` the reward has its shapes."""
    samples = torch.zeros((6, 5), dtype=torch.int64, device="meta")
    references = torch.zeros((3, 2, 4), dtype=torch.int64, device="meta")
    frequency = DocumentFrequency({("1",): 1}, images=2)
    reward = scst_reward(samples, references, frequency, greedy=torch.zeros((3, 5), dtype=torch.int64, device="meta"))
    assert reward.advantages.shape == (6,) and reward.advantages.device.type == "meta"


@pytest.mark.parametrize(
    ("samples", "greedy", "message"),
    [
        (torch.zeros((5, 3), dtype=torch.int64), None, "k samples per image"),
        (torch.zeros((2, 3), dtype=torch.int64), None, "k >= 2"),
        (torch.zeros((4, 3), dtype=torch.int64), torch.zeros((3, 3), dtype=torch.int64), "one per image"),
        (torch.zeros(4, dtype=torch.int64), None, r"\(B \* k, L\) tensor"),
        (torch.zeros((4, 3)), None, "samples must hold integer token ids"),
        (torch.zeros((4, 3), dtype=torch.int64), torch.zeros((2, 3)), "greedy must hold integer token ids"),
    ],
)
def test_reward_bad_shapes(samples: torch.Tensor, greedy: torch.Tensor | None, message: str) -> None:
    references = torch.ones((2, 1, 3), dtype=torch.int64)
    with pytest.raises(InputError, match=message):
        scst_reward(samples, references, greedy=greedy)


def held_ngrams(references: list[list[list[str]]]) -> dict[tuple[str, ...], int]:
    """How many images' references hold each n-gram of 1 to 4 words, counted as ``prepro_ngrams.py`` counts."""
    counts: dict[tuple[str, ...], int] = defaultdict(int)
    for refs in references:
        held = {
            tuple(words[start : start + order])
            for words in refs
            for order in range(1, 5)
            for start in range(len(words) - order + 1)
        }
        for ngram in held:
            counts[ngram] += 1
    return dict(counts)


IMAGES = st.lists(
    st.lists(st.lists(st.sampled_from(["a", "b", "c"]), max_size=7), min_size=1, max_size=3), min_size=1, max_size=5
)


@settings(max_examples=100, deadline=None)
@given(IMAGES)
def test_document_frequency_as_prepro_ngrams(images: list[list[list[str]]]) -> None:
    """Strings and rows of ids count every image's n-grams once, as ``prepro_ngrams.py`` does."""
    frequency = cider_document_frequency([[" ".join(words) for words in refs] for refs in images])
    assert dict(frequency.items()) == held_ngrams(images) and frequency.images == len(images)
    as_ids = [[torch.tensor([ord(word) for word in words], dtype=torch.int64) for words in refs] for refs in images]
    as_id_words = [[[str(ord(word)) for word in words] for words in refs] for refs in images]
    assert dict(cider_document_frequency(as_ids).items()) == held_ngrams(as_id_words)


def test_reward_of_reference_strings_refused() -> None:
    with pytest.raises(InputError, match="scst_reward scores ids"):
        scst_reward(torch.zeros((2, 3), dtype=torch.int64), [["a b"]])


def test_mixed_references_and_lookups_refused() -> None:
    with pytest.raises(InputError, match="strings and something else"):
        cider_document_frequency([["a"], [torch.tensor([1])]])
    with pytest.raises(TypeError, match="an n-gram is a tuple of words"):
        DocumentFrequency({("a",): 1}, images=1)["a"]  # type: ignore[index]
