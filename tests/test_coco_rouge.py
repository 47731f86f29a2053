"""ROUGE-L under ``convention="coco"`` against pycocoevalcap 1.2's ``Rouge().compute_score``: captions of
tie-prone vocabularies (2 to 4 words), empty captions and references, double spaces, one to five references,
long captions; rows of ids equal to their strings (ignored ids, EOS, absent references, empty rows), counted
on the host and as on an accelerator; the metric over several updates equal to one call; options refused.

The default run keeps a few examples of each; ``--slow`` adds longer ones.
"""

from __future__ import annotations

import importlib.util

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import caption_corpora

from torch_bleu import ROUGEConfig, ROUGEScore, arrays, corpus_rouge, pairwise_rouge, sentence_rouge

rouge = pytest.importorskip("pycocoevalcap.rouge.rouge")

KEYS = ("rougeL_precision", "rougeL_recall", "rougeL_fmeasure")


@pytest.fixture(params=["sizes from data", "sizes from shapes"])
def sizes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Counted as on the CPU (the host's LCS) and as on an accelerator (the device's LCS, sizes from shapes)."""
    monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", request.param == "sizes from data")
    return str(request.param)


def expected_scores(captions: list[str], references: list[list[str]]) -> tuple[float, dict[str, list[float]]]:
    """pycocoevalcap's corpus score, and each image's best precision, best recall (of its ``my_lcs``) and F."""
    gts = dict(enumerate(references))
    res = {image: [caption] for image, caption in enumerate(captions)}
    corpus, fmeasures = rouge.Rouge().compute_score(gts, res)
    precisions, recalls = [], []
    for caption, refs in zip(captions, references):
        words = caption.split(" ")
        lcs = [rouge.my_lcs(ref.split(" "), words) for ref in refs]
        precisions.append(max(length / len(words) for length in lcs))
        recalls.append(max(length / len(ref.split(" ")) for length, ref in zip(lcs, refs)))
    return float(corpus), dict(zip(KEYS, (precisions, recalls, [float(value) for value in fmeasures])))


def assert_as_pycocoevalcap(captions: list[str], references: list[list[str]]) -> None:
    expected_corpus, expected = expected_scores(captions, references)
    scores = sentence_rouge(captions, references, convention="coco")
    assert set(scores) == set(KEYS)
    for key in KEYS:
        assert scores[key].dtype == torch.float64 and scores[key].shape == (len(captions),)
        assert scores[key].tolist() == expected[key]  # each image's scores: pycocoevalcap's, to the bit
    corpus = corpus_rouge(captions, references, convention="coco")
    assert corpus["rougeL_fmeasure"].dim() == 0
    assert corpus["rougeL_fmeasure"].item() == pytest.approx(expected_corpus, abs=1e-12, rel=1e-12)


def corpora(longest: int = 8) -> st.SearchStrategy[tuple[list[str], list[list[str]]]]:
    """Images of a 2- to 4-word vocabulary (many ties), each with a caption and one to five references, any
    of them empty; empty words among the words make double spaces and spaces at either end."""
    return caption_corpora(longest, empty_words=True)


@settings(max_examples=300, deadline=None)
@given(corpora())
def test_as_pycocoevalcap(corpus: tuple[list[str], list[list[str]]]) -> None:
    assert_as_pycocoevalcap(*corpus)


def test_edges() -> None:
    """Empty captions and references (one empty word each), double spaces, words as they are (case,
    punctuation, tabs and newlines inside words), best precision and best recall of different references."""
    assert_as_pycocoevalcap(["", "", "a", " "], [[""], ["a"], [""], ["  ", "a b"]])
    assert_as_pycocoevalcap(["a  dog", "A dog.", "a\tdog\nran"], [["a dog", "a  "], ["a dog."], ["a\tdog ran"]])
    assert_as_pycocoevalcap(["a b c"], [["a b c d e f", "a", "x"]])  # precision of the first, recall of the second
    assert_as_pycocoevalcap(["x y"], [["a", "b"]])  # no common word: 0


def test_no_image() -> None:
    assert sentence_rouge([], [], convention="coco")["rougeL_fmeasure"].shape == (0,)
    assert corpus_rouge([], [], convention="coco")["rougeL_fmeasure"].item() == 0.0


@pytest.mark.parametrize("longest", [60, pytest.param(500, marks=pytest.mark.slow)])
def test_long_captions(longest: int) -> None:
    words = ["a", "b", "c", "d", "e", "f", ""]
    generator = torch.Generator().manual_seed(longest)

    def caption() -> str:
        length = int(torch.randint(0, longest + 1, (), generator=generator))
        return " ".join(words[int(i)] for i in torch.randint(0, len(words), (length,), generator=generator))

    assert_as_pycocoevalcap([caption() for _ in range(12)], [[caption() for _ in range(1 + i % 5)] for i in range(12)])


def strings_of(rows: torch.Tensor, eos: int) -> list[str]:
    """The strings rows of ids stand for: ids 1 and 2 ignored, each row cut at ``eos``."""
    texts = []
    for row in rows.tolist():
        kept = row[: row.index(eos)] if eos in row else row
        texts.append(" ".join(str(token) for token in kept if token not in (1, 2)))
    return texts


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_ids_as_strings(sizes: str, data: st.DataObject) -> None:
    """Padded ids ``(B, L)`` and ``(B, R, L)``, equal to the strings of their ids joined by spaces: ignored
    ids dropped, rows cut at EOS, an empty row the empty caption ``""``; of several references, those left
    empty are absent (unless all are, when the first counts as one empty reference)."""
    batch, references, width = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4)), data.draw(st.integers(0, 7))
    values = st.integers(1, 6)  # 1, 2 ignored, 3 EOS

    def rows(*shape: int) -> torch.Tensor:
        count = torch.Size(shape).numel()
        return torch.tensor(data.draw(st.lists(values, min_size=count, max_size=count)), dtype=torch.int64).reshape(
            shape
        )

    preds, target = rows(batch, width), rows(batch, references, width)
    captions = strings_of(preds, 3)
    ref_texts = [strings_of(refs, 3) for refs in target]
    if references > 1:
        ref_texts = [[text for text in texts if text] or [""] for texts in ref_texts]
    _, expected = expected_scores(captions, ref_texts)
    scores = sentence_rouge(preds, target, convention="coco", ignore_ids=[1, 2], eos_id=3)
    assert {key: scores[key].tolist() for key in KEYS} == expected


def test_ragged_ids_as_strings(sizes: str) -> None:
    preds = [[5, 6, 7], [], [], [9, 9]]
    target = [[[5, 6], [7, 5, 6, 7]], [[8]], [[]], [[9], [9, 8, 9]]]
    _, expected = expected_scores(["5 6 7", "", "", "9 9"], [["5 6", "7 5 6 7"], ["8"], [""], ["9", "9 8 9"]])
    scores = sentence_rouge(preds, target, convention="coco")
    assert {key: scores[key].tolist() for key in KEYS} == expected
    no_ids = torch.zeros(2, 1, 0, dtype=torch.int64)
    empty = sentence_rouge(no_ids[:, 0], no_ids, convention="coco")
    assert empty["rougeL_fmeasure"].tolist() == [1.0, 1.0]  # "" against "": one empty word each


def test_ids_through_triton_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    """``TORCH_BLEU_KERNELS=triton``: the LCS of rows of ids by the Triton kernel (its interpreter on the CPU)."""
    if importlib.util.find_spec("triton") is None:
        pytest.skip("Triton is not installed")
    monkeypatch.setenv("TORCH_BLEU_KERNELS", "triton")
    if torch.get_default_device().type == "cpu":
        monkeypatch.setenv("TRITON_INTERPRET", "1")
    from torch_bleu.metrics.rouge import triton_lcs

    if not triton_lcs.runs_on(torch.get_default_device()):
        pytest.skip("Triton was imported before TRITON_INTERPRET=1 was set (tests/conftest.py sets it without a GPU)")
    preds = torch.tensor([[5, 6, 7, 0], [0, 0, 0, 0], [9, 0, 9, 0]])
    target = torch.tensor([[[5, 6, 0, 0], [7, 5, 6, 7]], [[8, 0, 0, 0], [0, 0, 0, 0]], [[9, 0, 0, 0], [9, 8, 9, 0]]])
    _, expected = expected_scores(["5 6 7", "", "9 9"], [["5 6", "7 5 6 7"], ["8"], ["9", "9 8 9"]])
    scores = sentence_rouge(preds, target, convention="coco", ignore_ids=[0])
    assert {key: scores[key].tolist() for key in KEYS} == expected


def test_metric_over_updates_equals_one_call() -> None:
    words = ["a", "b", "c", ""]
    generator = torch.Generator().manual_seed(0)

    def caption() -> str:
        length = int(torch.randint(0, 9, (), generator=generator))
        return " ".join(words[int(i)] for i in torch.randint(0, len(words), (length,), generator=generator))

    captions = [caption() for _ in range(30)]
    references = [[caption() for _ in range(1 + image % 5)] for image in range(30)]
    expected_corpus, _ = expected_scores(captions, references)
    whole, parts = ROUGEScore(convention="coco"), ROUGEScore(convention="coco")
    whole.update(captions, references)
    for start in range(0, 30, 7):
        parts.update(captions[start : start + 7], references[start : start + 7])
    assert all(torch.equal(getattr(whole, name), getattr(parts, name)) for name in ROUGEScore.state_names)
    result = parts.compute()
    assert result["rougeL_fmeasure"].item() == pytest.approx(expected_corpus, abs=1e-12, rel=1e-12)
    functional = corpus_rouge(captions, references, convention="coco")
    assert all(torch.equal(result[key], functional[key]) for key in KEYS)
    with pytest.raises(ValueError, match="counted otherwise"):
        parts.merge_state(ROUGEScore(rouge_types=("rougeL",)))


def test_kept_sentences_merge_and_interval() -> None:
    """Kept sentences are checked as what coco gives (scores not those of the statistics alone), merged, and
    resampled from their own scores."""
    captions, references = ["a b c", "a", "b a"], [["a b c d e f", "a"], ["a", "b"], ["a b"]]
    first = ROUGEScore(convention="coco", keep_sentences=True)
    second = first.clone()
    first.update(captions[:2], references[:2])
    second.update(captions[2:], references[2:])
    first.merge_state(second)
    _, expected = expected_scores(captions, references)
    assert first.compute()["rougeL_fmeasure"].item() == pytest.approx(sum(expected["rougeL_fmeasure"]) / 3, abs=1e-15)
    low, mid, high = first.confidence_interval(resamples=50, seed=0)["rougeL"]
    assert low.fmeasure <= mid.fmeasure <= high.fmeasure <= 1.0


def test_update_runs_on_meta() -> None:
    metric = ROUGEScore(convention="coco", ignore_ids=[0]).to("meta")
    metric.update(torch.tensor([[3, 4, 0]], device="meta"), torch.tensor([[[3, 0, 0], [4, 3, 0]]], device="meta"))
    assert metric.score_sums.device.type == "meta"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"rouge_types": ("rouge1", "rougeL")}, "ROUGE-L only: leave rouge_types out"),
        ({"rouge_types": "rougeLsum"}, "ROUGE-L only"),
        ({"use_stemmer": True}, "use_stemmer=True has no place there"),
        ({"tokenize": "char"}, "tokenize='char' has no place there"),
        ({"split_sentences": str.splitlines}, "split_sentences=.* has no place there"),
        ({"sentence_sep_id": 4}, "sentence_sep_id=4 has no place there"),
        ({"accumulate": "avg"}, "best precision and the best recall"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ROUGEConfig(convention="coco", **options)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        ROUGEScore(convention="coco", **options)  # type: ignore[arg-type]


def test_other_refusals() -> None:
    with pytest.raises(ValueError, match="unknown convention 'pycoco'"):
        sentence_rouge(["a"], ["a"], convention="pycoco")  # type: ignore[arg-type]
    assert ROUGEConfig(convention="coco", rouge_types="rougeL").types == ("rougeL",)
    from torch_bleu import Detokenizer

    with pytest.raises(ValueError, match="decode subword ids and pass the strings"):
        ROUGEConfig(convention="coco", detokenizer=Detokenizer((b"", b"a"), "per_byte"))
    with pytest.raises(ValueError, match="has no meaning for one pair"):
        pairwise_rouge([["a b", "b a"]], convention="coco")
    with pytest.raises(ValueError, match="needs at least one reference"):
        sentence_rouge(["a"], [[]], convention="coco")
