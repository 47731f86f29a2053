"""Pairwise chrF and BLEU against sacrebleu's sentence scores of every pair, self-BLEU and MBR selection.

Random and adversarial groups of sentences (punctuation at word edges, odd whitespace, CJK, emoji,
empty lines), ragged numbers of candidates and references per source, every option; subword ids
through each test tokenizer; the indicator products in many small blocks; real WMT17 sentences.
"""

from __future__ import annotations

import random

import pytest
import torch
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from shared_data import WMT17
from strategies import chrf_options, text_sentences

from torch_bleu import mbr_select, pairwise_bleu, pairwise_chrf, self_bleu, sentence_bleu
from torch_bleu.engine import cross_matches
from torch_bleu.errors import InputError
from torch_bleu.pairwise import blocks

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU, CHRF  # noqa: E402

groups = st.lists(st.lists(text_sentences, max_size=4), min_size=1, max_size=3)

bleu_options = st.fixed_dictionaries(
    {
        "smoothing": st.sampled_from(["none", "floor", "add-k", "exp"]),
        "effective_order": st.booleans(),
        "max_order": st.integers(1, 5),
        "tokenize": st.sampled_from(["13a", "intl", "none", "char"]),
        "lowercase": st.booleans(),
    }
)


def _sacrebleu_matrices(metric, candidates, references) -> list[list[list[float]]]:
    return [
        [[metric.sentence_score(c, [r]).score / 100 for r in refs] for c in cands]
        for cands, refs in zip(candidates, references)
    ]


def _assert_equal_where_present(scores: torch.Tensor, expected: list[list[list[float]]]) -> None:
    """Each source's own block equals ``expected``; the rest of the tensor is NaN."""
    assert scores.dtype == torch.float64
    for source, block in enumerate(expected):
        rows, columns = len(block), len(block[0]) if block else 0
        got = scores[source, :rows, :columns]
        torch.testing.assert_close(
            got,
            torch.tensor(block, dtype=torch.float64, device=scores.device).reshape(rows, columns),
            rtol=0,
            atol=1e-12,
        )
        padding = torch.ones(scores.shape[1:], dtype=torch.bool, device=scores.device)
        padding[:rows, :columns] = False
        assert scores[source][padding].isnan().all()


@settings(max_examples=60, deadline=None)
@given(candidates=groups, references=groups, chosen=chrf_options(min_char_order=0))
def test_pairwise_chrf_is_sacrebleus_sentence_chrf_of_every_pair(candidates, references, chosen):
    references = (references * len(candidates))[: len(candidates)]
    chrf = CHRF(**chosen)
    _assert_equal_where_present(
        pairwise_chrf(candidates, references, **chosen), _sacrebleu_matrices(chrf, candidates, references)
    )
    _assert_equal_where_present(pairwise_chrf(candidates, **chosen), _sacrebleu_matrices(chrf, candidates, candidates))


def _sacrebleu_bleu(options: dict) -> BLEU:
    chosen = dict(options)
    return BLEU(smooth_method=chosen.pop("smoothing"), max_ngram_order=chosen.pop("max_order"), **chosen)


@settings(max_examples=60, deadline=None)
@given(candidates=groups, references=groups, chosen=bleu_options)
def test_pairwise_bleu_is_sacrebleus_sentence_bleu_of_every_pair(candidates, references, chosen):
    references = (references * len(candidates))[: len(candidates)]
    bleu = _sacrebleu_bleu(chosen)
    _assert_equal_where_present(
        pairwise_bleu(candidates, references, **chosen), _sacrebleu_matrices(bleu, candidates, references)
    )
    _assert_equal_where_present(pairwise_bleu(candidates, **chosen), _sacrebleu_matrices(bleu, candidates, candidates))


@settings(max_examples=60, deadline=None)
@given(
    candidates=st.lists(
        st.lists(st.lists(st.integers(0, 6), max_size=9), min_size=3, max_size=3), min_size=1, max_size=3
    ),
    smoothing=st.sampled_from(["none", "floor", "exp"]),
)
def test_pairwise_bleu_of_ids_is_sentence_bleu_of_every_pair(candidates, smoothing):
    # rows padded with 0, which is ignored; 6 is an EOS that ends a row
    width = max(len(row) for rows in candidates for row in rows)
    ids = torch.tensor([[row + [0] * (width - len(row)) for row in rows] for rows in candidates], dtype=torch.int32)
    options = {"ignore_ids": [0], "eos_id": 6, "smoothing": smoothing, "max_order": 3}
    scores = pairwise_bleu(ids, **options)
    for source in range(ids.shape[0]):
        hyps = ids[source].repeat_interleave(3, 0)
        refs = ids[source].repeat(3, 1)
        expected = sentence_bleu(hyps, refs, **options).reshape(3, 3)
        torch.testing.assert_close(scores[source], expected, rtol=0, atol=1e-12)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
@example(seed=2793)  # byte-fallback pieces on both sides of a padding id in one row
def test_subword_ids_score_as_their_decoded_text(vocabulary, seed):
    rng = random.Random(seed)
    pad = vocabulary.pad
    ids, texts = vocabulary.padded_groups(rng)
    detok = vocabulary.detokenizer
    chrf = pairwise_chrf(ids, detokenizer=detok, ignore_ids=[pad], word_order=2)
    _assert_equal_where_present(chrf, _sacrebleu_matrices(CHRF(word_order=2), texts, texts))
    bleu = pairwise_bleu(ids, ids[:, :2], detokenizer=detok, ignore_ids=[pad], smoothing="exp")
    expected = _sacrebleu_matrices(BLEU(), texts, [group[:2] for group in texts])
    _assert_equal_where_present(bleu, expected)


def test_products_and_scores_in_many_small_blocks_are_the_same(monkeypatch):
    candidates = [["the cat sat on the mat", "a cat sat", "", "the the the cat"], ["dogs bark", "a dog barks"]]
    references = [["the cat is on the mat", "cats"], ["dogs bark loudly", "", "a dog"]]
    whole = pairwise_chrf(candidates, references, word_order=2), pairwise_bleu(candidates, references)
    monkeypatch.setattr(cross_matches, "BLOCK_CELLS", 7)
    monkeypatch.setattr(blocks, "BLOCK_PAIRS", 3)
    in_blocks = pairwise_chrf(candidates, references, word_order=2), pairwise_bleu(candidates, references)
    for first, second in zip(whole, in_blocks):
        assert torch.equal(first.isnan(), second.isnan())
        assert torch.equal(first.nan_to_num(), second.nan_to_num())


def test_self_bleu_is_the_mean_off_the_diagonal_and_mbr_picks_the_highest_expected_utility():
    candidates = [["the cat sat on the mat", "the cat sat on a mat", "a dog barked"], ["one"], ["a b c d", "a b c e"]]
    bleu = BLEU(effective_order=True)
    expected = []
    for group in candidates:
        pairs = [bleu.sentence_score(c, [r]).score / 100 for c in group for r in group if r is not c]
        expected.append(sum(pairs) / len(pairs) if pairs else float("nan"))
    got = self_bleu(candidates, smoothing="exp", effective_order=True)
    assert got.tolist() == pytest.approx(expected, abs=1e-12, nan_ok=True)

    chrf = CHRF()
    utilities = pairwise_chrf(candidates)
    for source, group in enumerate(candidates):
        means = [sum(chrf.sentence_score(c, [r]).score for r in group) / len(group) for c in group]
        assert mbr_select(utilities)[source].item() == max(range(len(group)), key=lambda i: (means[i], -i))
    assert mbr_select(torch.full((2, 3, 3), torch.nan)).tolist() == [-1, -1]
    assert mbr_select(torch.zeros((2, 0, 0))).tolist() == [-1, -1]


def test_empty_and_odd_input():
    assert pairwise_chrf([[]]).shape == (1, 0, 0)
    assert pairwise_bleu([["a"]], [[]]).shape == (1, 1, 0)
    assert pairwise_chrf([[""]]).tolist() == [[[0.0]]]
    with pytest.raises(InputError, match="list of strings per source"):
        pairwise_chrf(["a", "b"])
    with pytest.raises(InputError, match="2 sources, references of 1"):
        pairwise_bleu([["a"], ["b"]], [["a"]])
    with pytest.raises(InputError, match="integer tensor"):
        pairwise_bleu(torch.zeros(2, 3))
    with pytest.raises(InputError, match="pass detokenizer="):
        pairwise_chrf(torch.zeros(1, 2, 3, dtype=torch.long))


@pytest.mark.skipif(not WMT17.is_dir(), reason="no WMT17 data beside this checkout (../shared/data)")
def test_wmt17_candidates():
    lines = (WMT17 / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()
    systems = [path.read_text(encoding="utf-8").splitlines() for path in sorted(WMT17.glob("sys.*.de"))[:6]]
    candidates = [[system[index] for system in systems] for index in range(0, 40, 8)]
    references = [[lines[index]] for index in range(0, 40, 8)]
    _assert_equal_where_present(
        pairwise_chrf(candidates, word_order=2), _sacrebleu_matrices(CHRF(word_order=2), candidates, candidates)
    )
    _assert_equal_where_present(
        pairwise_bleu(candidates, references, smoothing="exp"), _sacrebleu_matrices(BLEU(), candidates, references)
    )
