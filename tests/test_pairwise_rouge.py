"""Pairwise ROUGE against rouge-score's ``score(reference, candidate)`` of every pair, and MBR with it.

Random and adversarial groups of strings (case, punctuation, other scripts, words the stemmer changes,
newlines that split ``rougeLsum``'s summaries), ragged numbers of candidates and references per source,
the candidates against themselves; rows of plain ids (padding, EOS, sentence separators) and subword
ids through each test tokenizer; pairs in many small chunks; counted as on an accelerator; WMT17
systems' lines as summaries (slow).
"""

from __future__ import annotations

import random

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_data import WMT17

from torch_bleu import arrays, mbr_select, pairwise_rouge, sentence_rouge
from torch_bleu.engine import cross_matches
from torch_bleu.errors import InputError
from torch_bleu.pairwise import rouge

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

TYPES = ("rouge1", "rouge2", "rouge3", "rouge9", "rougeL", "rougeLsum")
#: Pieces of text rouge-score reads in surprising ways, and newlines (rougeLsum's sentence breaks).
PIECES = [
    "the", "The", "cat", "cats", "running", "ran", "a", "b", "12", "x9", " ", ",", ".", "'s", "\n", "\n\n",
    "\r\n", "Cristóbal", "\u212a", "Москва", "東京", "generously", "general", "caresses", "ponies",
]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=12).map(" ".join) | st.lists(
    st.sampled_from(PIECES), max_size=6
).map("".join)
groups = st.lists(st.lists(texts, max_size=4), min_size=1, max_size=3)


def expected_scores(candidates, references, rouge_type, use_stemmer=False):
    """rouge-score's F-measure of every pair, ``[source][candidate][reference]``."""
    scorer = rouge_scorer.RougeScorer([rouge_type], use_stemmer=use_stemmer)
    return [
        [[scorer.score(reference, candidate)[rouge_type].fmeasure for reference in refs] for candidate in cands]
        for cands, refs in zip(candidates, references)
    ]


def assert_equal_where_present(scores: torch.Tensor, expected) -> None:
    """Each source's own block equals ``expected`` exactly; the rest of the tensor is NaN."""
    assert scores.dtype == torch.float64
    for source, block in enumerate(expected):
        rows, columns = len(block), len(block[0]) if block else 0
        got = scores[source, :rows, :columns]
        assert got.tolist() == torch.tensor(block, dtype=torch.float64).reshape(rows, columns).tolist()
        padding = torch.ones(scores.shape[1:], dtype=torch.bool, device=scores.device)
        padding[:rows, :columns] = False
        assert scores[source][padding].isnan().all()


@pytest.fixture(params=["sizes from data", "static sizes"])
def sizes(request, monkeypatch):
    """Counted as on the CPU (groups of similar lengths) and as on an accelerator (sizes from shapes)."""
    monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", request.param == "sizes from data")
    return request.param


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    candidates=groups, references=groups, rouge_type=st.sampled_from(TYPES), use_stemmer=st.booleans()
)  # fmt: skip
def test_every_pair_is_rouge_scores_score(sizes, candidates, references, rouge_type, use_stemmer):
    references = (references * len(candidates))[: len(candidates)]
    options = {"rouge_type": rouge_type, "use_stemmer": use_stemmer}
    assert_equal_where_present(
        pairwise_rouge(candidates, references, **options),
        expected_scores(candidates, references, rouge_type, use_stemmer),
    )
    assert_equal_where_present(
        pairwise_rouge(candidates, **options), expected_scores(candidates, candidates, rouge_type, use_stemmer)
    )


def test_summaries_split_at_newlines_and_self_pairs():
    candidates = [
        ["the cat sat.\nthe dog ran", "the dog ran\nthe cat sat.", "a cat\n\nsat on the mat\n", "", "\n\n"],
        ["police killed the gunman", "the gunman killed police\nthe police were killed"],
    ]
    for rouge_type in TYPES:
        scores = pairwise_rouge(candidates, rouge_type=rouge_type)
        assert_equal_where_present(scores, expected_scores(candidates, candidates, rouge_type))
        diagonal = scores.diagonal(dim1=1, dim2=2)[0].tolist()  # a summary against itself
        assert diagonal == ([1.0, 1.0, 1.0, 0.0, 0.0] if rouge_type != "rouge9" else [0.0] * 5)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    candidates=st.lists(
        st.lists(st.lists(st.integers(0, 7), max_size=10), min_size=3, max_size=3), min_size=1, max_size=2
    ),
    dtype=st.sampled_from([torch.int64, torch.int32, torch.uint8]),
    rouge_type=st.sampled_from(TYPES),
)
def test_ids_are_words(sizes, candidates, dtype, rouge_type):
    """Rows of ids score as rouge-score scores their ids written as words: 0 pads, 6 ends a row (EOS),
    7 separates sentences (a newline)."""
    width = max(len(row) for rows in candidates for row in rows)
    ids = torch.tensor([[row + [0] * (width - len(row)) for row in rows] for rows in candidates], dtype=dtype)

    def text(row):
        row = row[: row.index(6)] if 6 in row else row
        return " ".join("\n" if token == 7 else f"w{token}" for token in row if token != 0)

    options = {"ignore_ids": [0], "eos_id": 6, "sentence_sep_id": 7, "rouge_type": rouge_type}
    texts = [[text(row) for row in rows] for rows in candidates]
    assert_equal_where_present(pairwise_rouge(ids, **options), expected_scores(texts, texts, rouge_type))
    references = [rows[:2] for rows in texts]
    assert_equal_where_present(
        pairwise_rouge(ids, ids[:, :2], **options), expected_scores(texts, references, rouge_type)
    )


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), rouge_type=st.sampled_from(TYPES))
def test_subword_ids_score_as_their_decoded_text(vocabulary, seed, rouge_type):
    rng = random.Random(seed)
    pad = vocabulary.pad
    ids, texts = vocabulary.padded_groups(rng)
    scores = pairwise_rouge(
        ids, ids[:, :2], rouge_type=rouge_type, detokenizer=vocabulary.detokenizer, ignore_ids=[pad]
    )
    assert_equal_where_present(scores, expected_scores(texts, [group[:2] for group in texts], rouge_type))


def test_pairs_in_many_small_chunks_are_the_same(monkeypatch):
    candidates = [["the cat sat on the mat", "a cat sat", "", "the the the cat\ncat"], ["dogs bark", "a dog barks"]]
    references = [["the cat is on the mat", "cats"], ["dogs bark loudly", "", "a dog\nbarks"]]
    whole = [pairwise_rouge(candidates, references, rouge_type=rouge_type) for rouge_type in TYPES]
    monkeypatch.setattr(rouge, "CHUNK_WORDS", 5)
    monkeypatch.setattr(cross_matches, "BLOCK_CELLS", 7)
    for rouge_type, expected in zip(TYPES, whole):
        got = pairwise_rouge(candidates, references, rouge_type=rouge_type)
        assert torch.equal(got.isnan(), expected.isnan())
        assert torch.equal(got.nan_to_num(), expected.nan_to_num())


def test_equals_sentence_rouge_of_each_pair():
    candidates = [["The cat sat on the mat.", "A cat sat\non a mat", "mats"]]
    references = [["the cat is on the mat", "cat mat"]]
    for rouge_type in TYPES:
        scores = pairwise_rouge(candidates, references, rouge_type=rouge_type, use_stemmer=True)
        pairs = [(c, r) for c in candidates[0] for r in references[0]]
        expected = sentence_rouge(
            [c for c, _ in pairs], [r for _, r in pairs], rouge_types=(rouge_type,), use_stemmer=True
        )[f"{rouge_type}_fmeasure"]
        assert scores[0].reshape(-1).tolist() == expected.tolist()


def test_mbr_picks_the_candidate_of_highest_mean_rouge():
    samples = [
        ["the cat sat on the mat", "a cat sat on the mat", "the cat is on a mat", "dogs run"],
        ["police killed the gunman", "the gunman was killed", "gunman police killed the"],
    ]
    utilities = pairwise_rouge(samples, rouge_type="rouge2")
    for source, group in enumerate(samples):
        scorer = rouge_scorer.RougeScorer(["rouge2"])
        means = [sum(scorer.score(r, c)["rouge2"].fmeasure for r in group) / len(group) for c in group]
        assert mbr_select(utilities)[source].item() == max(range(len(group)), key=lambda i: (means[i], -i))


def test_empty_and_wrong_input():
    assert pairwise_rouge([[]]).shape == (1, 0, 0)
    assert pairwise_rouge([["a"]], [[]]).shape == (1, 1, 0)
    assert pairwise_rouge([[""]]).tolist() == [[[0.0]]]
    assert pairwise_rouge(torch.zeros((2, 0, 4), dtype=torch.long)).shape == (2, 0, 0)
    assert pairwise_rouge(torch.zeros((1, 2, 0), dtype=torch.long), rouge_type="rougeLsum").tolist() == [
        [[0.0, 0.0], [0.0, 0.0]]
    ]
    with pytest.raises(ValueError, match="pass rouge_type='rougeL'"):
        pairwise_rouge([["a"]], rouge_types=("rouge1",))
    with pytest.raises(ValueError, match="unknown ROUGE type 'rouge10'"):
        pairwise_rouge([["a"]], rouge_type="rouge10")
    with pytest.raises(ValueError, match="rouge_type must be one ROUGE type"):
        pairwise_rouge([["a"]], rouge_type=["rouge1"])
    with pytest.raises(ValueError, match="rows of plain ids are words already"):
        pairwise_rouge(torch.zeros((1, 1, 2), dtype=torch.long), use_stemmer=True)
    with pytest.raises(InputError, match="list of strings per source"):
        pairwise_rouge(["a", "b"])
    with pytest.raises(InputError, match="2 sources, references of 1"):
        pairwise_rouge([["a"], ["b"]], [["a"]])
    with pytest.raises(InputError, match="integer tensor"):
        pairwise_rouge(torch.zeros(2, 3))
    with pytest.raises(InputError, match="must hold integer token ids"):
        pairwise_rouge(torch.zeros((1, 2, 3), dtype=torch.bool))


@pytest.mark.slow
@pytest.mark.skipif(not WMT17.is_dir(), reason="no WMT17 data beside this checkout (../shared/data)")
def test_wmt17_summaries():
    """Systems' lines as candidates, two or three lines to a summary (rougeLsum's sentences)."""
    systems = [path.read_text(encoding="utf-8").splitlines() for path in sorted(WMT17.glob("sys.*.de"))[:8]]
    candidates = [["\n".join(system[start : start + 2 + start % 2]) for system in systems] for start in (0, 7, 30)]
    for rouge_type in ("rouge2", "rougeL", "rougeLsum"):
        for use_stemmer in (False, True):
            scores = pairwise_rouge(candidates, rouge_type=rouge_type, use_stemmer=use_stemmer)
            assert_equal_where_present(scores, expected_scores(candidates, candidates, rouge_type, use_stemmer))
