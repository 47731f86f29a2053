"""Aggregate chrF against fastchrf's ``aggregate_chrf`` (character n-grams, unweighted) and against a
pure-Python reference built from sacrebleu's own n-gram extraction (every option, chrF++, weights,
ragged groups, subword ids); MBR selection of expected utilities; the sparse columns of the pairwise
products.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_data import WMT17
from strategies import chrf_options, text_sentences

from torch_bleu import aggregate_chrf, mbr_select, pairwise_bleu, pairwise_chrf
from torch_bleu.engine import cross_matches
from torch_bleu.errors import InputError

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import CHRF  # noqa: E402
from sacrebleu.metrics.helpers import extract_all_char_ngrams, extract_word_ngrams  # noqa: E402

groups = st.lists(st.lists(text_sentences, max_size=4), min_size=1, max_size=3)
#: Python's str.split splits at U+001C to U+001F; Rust's split_whitespace (fastchrf's) does not.
SEPARATORS = "\x1c\x1d\x1e\x1f"


def reference_aggregate(candidates, references, weights=None, **options) -> list[list[float]]:
    """Each candidate's chrF against its source's weighted mean reference n-gram counts, from sacrebleu's
    n-gram extraction, in exact fractions until the F-score."""
    chrf = CHRF(**options)

    def ngrams(text: str) -> list[Counter]:
        text = text.lower() if chrf.lowercase else text
        grams = extract_all_char_ngrams(text, chrf.char_order, chrf.whitespace)
        words = chrf._remove_punctuation(text)
        return grams + [extract_word_ngrams(words, n) for n in range(1, chrf.word_order + 1)]

    result = []
    for source, (cands, refs) in enumerate(zip(candidates, references)):
        if not refs:
            result.append([float("nan")] * len(cands))
            continue
        given = [Fraction(1)] * len(refs) if weights is None else [Fraction(float(w)) for w in weights[source]]
        total = sum(given[: len(refs)])
        shares = [weight / total for weight in given[: len(refs)]]
        counted = [ngrams(ref) for ref in refs]
        expected, lengths = [], []
        for order in range(chrf.order):
            mean: dict = {}
            for share, grams in zip(shares, counted):
                for gram, count in grams[order].items():
                    mean[gram] = mean.get(gram, 0) + share * count
            expected.append(mean)
            lengths.append(sum(share * sum(grams[order].values()) for share, grams in zip(shares, counted)))
        scores = []
        for cand in cands:
            statistics: list = []
            for order, grams in enumerate(ngrams(cand)):
                hyp = sum(grams.values()) if lengths[order] > 0 else 0
                match = sum(min(count, expected[order].get(gram, 0)) for gram, count in grams.items())
                statistics += [hyp, lengths[order], match]
            scores.append(chrf._compute_f_score(statistics) / 100)
        result.append(scores)
    return result


def _assert_close_where_present(scores: torch.Tensor, expected: list[list[float]], atol: float = 1e-12) -> None:
    assert scores.dtype == torch.float64 and scores.dim() == 2
    for source, row in enumerate(expected):
        got = scores[source, : len(row)]
        expected_row = torch.tensor(row, dtype=torch.float64, device=scores.device)
        torch.testing.assert_close(got, expected_row, rtol=0, atol=atol, equal_nan=True)
        assert scores[source, len(row) :].isnan().all()


def _fastchrf_options(options: dict) -> dict:
    return {
        "char_order": options["char_order"],
        "beta": float(options["beta"]),
        "remove_whitespace": not options["whitespace"],
        "eps_smoothing": options["eps_smoothing"],
    }


char_options = chrf_options().map(lambda options: {**options, "word_order": 0})
nonempty_groups = st.lists(st.lists(text_sentences, min_size=1, max_size=4), min_size=1, max_size=3)


@settings(max_examples=40, deadline=None)
@given(candidates=groups, references=nonempty_groups, chosen=char_options)
def test_character_chrf_is_fastchrfs_aggregate_chrf(candidates, references, chosen):
    fastchrf = pytest.importorskip("fastchrf")
    references = (references * len(candidates))[: len(candidates)]
    lowered = {
        name: [[text.lower() for text in group] for group in value] if chosen["lowercase"] else value
        for name, value in (("candidates", candidates), ("references", references))
    }
    expected = fastchrf.aggregate_chrf(lowered["candidates"], lowered["references"], **_fastchrf_options(chosen))
    _assert_close_where_present(
        aggregate_chrf(candidates, references, **chosen), [[s / 100 for s in row] for row in expected], atol=1e-9
    )
    if all(candidates):  # fastchrf scores a source against its own candidates only when it has some
        expected = fastchrf.aggregate_chrf(lowered["candidates"], lowered["candidates"], **_fastchrf_options(chosen))
        _assert_close_where_present(
            aggregate_chrf(candidates, **chosen), [[s / 100 for s in row] for row in expected], atol=1e-9
        )


weights_of = st.lists(st.sampled_from([0.0, 0.25, 1.0, 3.0, 1e-3, 0.7]), min_size=5, max_size=5)


@settings(max_examples=50, deadline=None)
@given(
    candidates=groups,
    references=groups,
    chosen=chrf_options(min_char_order=0),
    drawn=st.lists(weights_of, min_size=3, max_size=3),
)
def test_every_option_and_weights_match_the_python_reference(candidates, references, chosen, drawn):
    references = (references * len(candidates))[: len(candidates)]
    _assert_close_where_present(
        aggregate_chrf(candidates, references, **chosen), reference_aggregate(candidates, references, **chosen)
    )
    height = max(len(group) for group in references)
    weights = [row[:height] for row in drawn[: len(candidates)]]
    for source, group in enumerate(references):
        if group and not any(weights[source][: len(group)]):
            weights[source][0] = 0.5
    tensor = torch.tensor(weights, dtype=torch.float64).reshape(len(candidates), height)
    _assert_close_where_present(
        aggregate_chrf(candidates, references, tensor, **chosen),
        reference_aggregate(candidates, references, weights, **chosen),
    )
    width = max(len(group) for group in candidates)
    own = [row[:width] + [0.0] * (width - len(row[:width])) for row in drawn[: len(candidates)]]
    for source, group in enumerate(candidates):
        if group and not any(own[source][: len(group)]):
            own[source][0] = 1.0
    _assert_close_where_present(
        aggregate_chrf(
            candidates, None, torch.tensor(own, dtype=torch.float64).reshape(len(candidates), width), **chosen
        ),
        reference_aggregate(candidates, candidates, own, **chosen),
    )


@settings(max_examples=25, deadline=None)
@given(
    candidates=st.lists(
        st.lists(st.sampled_from(["a", "b", " ", *SEPARATORS, "ab.", "x"]), max_size=8).map("".join),
        min_size=1,
        max_size=4,
    ),
    chosen=chrf_options(),
)
def test_whitespace_is_pythons_str_split(candidates, chosen):
    expected = reference_aggregate([candidates], [candidates], **chosen)
    _assert_close_where_present(aggregate_chrf([candidates], **chosen), expected)


def test_fastchrf_keeps_the_information_separators():
    fastchrf = pytest.importorskip("fastchrf")
    candidates = [["a\x1fb", "ab"]]
    assert aggregate_chrf(candidates)[0, 0].item() == 1.0  # U+001F is whitespace, as to str.split
    assert fastchrf.aggregate_chrf(candidates, candidates)[0][0] < 100


def test_uniform_weights_and_weights_scaled_alike_give_the_same_scores():
    candidates = [["the cat sat on the mat", "a cat sat", "the dog", ""], ["one", "two"]]
    plain = aggregate_chrf(candidates, word_order=2)
    weights = torch.tensor([[2.0, 2.0, 2.0, 2.0], [0.5, 0.5, 7.0, -1.0]])  # past a source's own: ignored
    torch.testing.assert_close(
        aggregate_chrf(candidates, None, weights, word_order=2), plain, rtol=0, atol=1e-15, equal_nan=True
    )
    scaled = torch.tensor([[1.0, 3.0, 0.0, 2.0], [1.0, 2.0, 0.0, 0.0]])
    torch.testing.assert_close(
        aggregate_chrf(candidates, None, scaled * 1000, word_order=2),
        aggregate_chrf(candidates, None, scaled, word_order=2),
        rtol=0,
        atol=1e-15,
        equal_nan=True,
    )
    one = torch.tensor([[0.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]])  # one reference: its pairwise chrF
    pairwise = pairwise_chrf(candidates, word_order=2)
    expected = torch.stack([pairwise[0, :, 1], pairwise[1, :, 0]])
    assert torch.equal(aggregate_chrf(candidates, None, one, word_order=2).nan_to_num(-1), expected.nan_to_num(-1))


def test_ragged_groups_empty_groups_and_bad_weights():
    scores = aggregate_chrf([["a b", "c"], [], ["x"]], [["a"], ["z"], []])
    assert scores.shape == (3, 2)
    assert scores[0].tolist() == pytest.approx(reference_aggregate([["a b", "c"]], [["a"]])[0])
    assert scores[1:].isnan().all()  # no candidate; no reference
    assert aggregate_chrf([[]]).shape == (1, 0)
    assert aggregate_chrf([[""]]).tolist() == [[0.0]]
    with pytest.raises(InputError, match=r"shape \(S, M\) = \(1, 2\)"):
        aggregate_chrf([["a", "b"]], reference_weights=torch.ones(1, 3))
    with pytest.raises(InputError, match="sum to 0 over the references of source 1"):
        aggregate_chrf([["a"], ["b", "c"]], reference_weights=torch.tensor([[1.0, 0.0], [0.0, 0.0]]))
    with pytest.raises(InputError, match="finite and >= 0"):
        aggregate_chrf([["a", "b"]], reference_weights=torch.tensor([[1.0, -1.0]]))
    with pytest.raises(InputError, match="finite and >= 0"):
        aggregate_chrf([["a", "b"]], reference_weights=torch.tensor([[1.0, float("nan")]]))
    with pytest.raises(InputError, match="real tensor"):
        aggregate_chrf([["a", "b"]], reference_weights=[[1.0, 1.0]])
    with pytest.raises(InputError, match="real tensor"):
        aggregate_chrf([["a", "b"]], reference_weights=torch.ones(1, 2, dtype=torch.bool))
    with pytest.raises(InputError, match="list of strings per source"):
        aggregate_chrf(["a", "b"])
    with pytest.raises(InputError, match="pass detokenizer="):
        aggregate_chrf(torch.zeros(1, 2, 3, dtype=torch.long))
    assert aggregate_chrf([["a", "b"]], reference_weights=torch.tensor([[1, 0]])).tolist() == [[1.0, 0.0]]


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_subword_ids_score_as_their_decoded_text(vocabulary, seed):
    rng = random.Random(seed)
    pad = vocabulary.pad
    ids, texts = vocabulary.padded_groups(rng)
    weights = torch.tensor([[1.0, 2.0], [0.0, 1.0]])
    got = aggregate_chrf(ids, ids[:, :2], weights, detokenizer=vocabulary.detokenizer, ignore_ids=[pad], word_order=2)
    expected = reference_aggregate(texts, [group[:2] for group in texts], weights.tolist(), word_order=2)
    _assert_close_where_present(got, expected)
    # ids give scores on their device, strings on the CPU
    assert torch.equal(got.cpu(), aggregate_chrf(texts, [group[:2] for group in texts], weights, word_order=2))
    mbr = aggregate_chrf(ids, detokenizer=vocabulary.detokenizer, ignore_ids=[pad])
    _assert_close_where_present(mbr, reference_aggregate(texts, texts))


nan, inf = float("nan"), float("inf")


@settings(max_examples=60, deadline=None)
@given(
    means=st.lists(
        st.lists(st.sampled_from([nan, inf, -inf, 0.0, 0.5, 1.0, -2.0]), min_size=3, max_size=3), min_size=1, max_size=4
    )
)
def test_mbr_select_of_expected_utilities(means):
    got = mbr_select(torch.tensor(means, dtype=torch.float64)).tolist()
    for row, index in zip(means, got):
        defined = [(value, -position) for position, value in enumerate(row) if value == value]
        assert index == (-max(defined)[1] if defined else -1)
    # a mean as its own single utility: the same choice as from (S, N, 1)
    assert mbr_select(torch.tensor(means)[..., None]).tolist() == got


def test_mbr_select_of_aggregate_chrf():
    candidates = [["the cat sat", "a cat sat on it", "the cat sat down", "dogs"], ["x", "y y"]]
    chosen = mbr_select(aggregate_chrf(candidates, word_order=2)).tolist()
    expected = []
    for group, scores in zip(candidates, reference_aggregate(candidates, candidates, word_order=2)):
        expected.append(max(range(len(group)), key=lambda i: (scores[i], -i)))
    assert chosen == expected


def test_aggregate_chrf_runs_within_the_cpu_share(monkeypatch):
    from torch_bleu.pairwise import aggregate_chrf as module

    seen: list[int] = []
    original = module.numbered_ngrams

    def recording(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return original(*args, **kwargs)

    monkeypatch.setattr(module, "numbered_ngrams", recording)
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        aggregate_chrf([["a cat", "a hat"]])
        assert seen == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize("share", [0, 1, 4])
def test_sparse_columns_count_the_same_pairs(monkeypatch, share):
    """Columns counted pair by pair (all of them with share 0) and in the products give the same matches."""
    rng = random.Random(share)
    words = ["the", "cat", "sat", "on", "a", "mat", "dog", "(hi)", "x"]
    candidates = [
        [" ".join(rng.choices(words, k=rng.randint(0, 9))) for _ in range(rng.randint(0, 7))] for _ in range(4)
    ]
    references = [
        [" ".join(rng.choices(words, k=rng.randint(0, 9))) for _ in range(rng.randint(0, 5))] for _ in range(4)
    ]
    whole = [
        pairwise_chrf(candidates, references, word_order=2),
        pairwise_chrf(candidates, word_order=2),
        pairwise_bleu(candidates, references),
        pairwise_bleu(candidates),
    ]
    monkeypatch.setattr(cross_matches, "SPARSE_FACTOR", share)
    monkeypatch.setattr(cross_matches, "SPARSE_MIN_PAIRS", 0)
    monkeypatch.setattr(cross_matches, "PAIR_BLOCK", 5)
    sparse = [
        pairwise_chrf(candidates, references, word_order=2),
        pairwise_chrf(candidates, word_order=2),
        pairwise_bleu(candidates, references),
        pairwise_bleu(candidates),
    ]
    for first, second in zip(whole, sparse):
        assert torch.equal(first.nan_to_num(-1.0), second.nan_to_num(-1.0))


@pytest.mark.slow
@pytest.mark.skipif(not WMT17.is_dir(), reason="no WMT17 data beside this checkout (../shared/data)")
def test_wmt17_groups():
    fastchrf = pytest.importorskip("fastchrf")
    lines = (WMT17 / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()
    candidates = [lines[index * 64 : (index + 1) * 64] for index in range(3)]
    references = [lines[1000 + index * 9 : 1000 + (index + 1) * 9] for index in range(3)]
    expected = fastchrf.aggregate_chrf(candidates, references)
    assert torch.equal(aggregate_chrf(candidates, references), torch.tensor(expected, dtype=torch.float64) / 100)
    _assert_close_where_present(
        aggregate_chrf(candidates, word_order=2, beta=1),
        reference_aggregate(candidates, candidates, word_order=2, beta=1),
    )
    # the sparse columns of the products, at the size where they matter
    big = [lines[:300]]
    monkeypatch_share = cross_matches.SPARSE_FACTOR
    try:
        whole = pairwise_chrf(big, word_order=2)
        cross_matches.SPARSE_FACTOR = 10**9  # every column in the products
        assert torch.equal(whole, pairwise_chrf(big, word_order=2))
    finally:
        cross_matches.SPARSE_FACTOR = monkeypatch_share
