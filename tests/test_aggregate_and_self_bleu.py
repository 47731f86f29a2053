"""Aggregate BLEU against mbrs's reference aggregation and a float64 re-implementation of its formula;
self-BLEU against all the others against Texygen's loop of nltk's ``sentence_bleu``, sacrebleu's
multi-reference sentence BLEU, torch-bleu's own ``sentence_bleu`` of ids and fast-bleu's ``BLEU`` of each
candidate against the others (fast-bleu's ``SelfBLEU`` class can give a candidate another brevity penalty).

Ragged groups, reference weights, every smoothing and option; strings, plain ids (padding, EOS) and
subword ids through each test tokenizer; mbrs's decoders on the adapter of ``examples/mbrs_metric.py``.
"""

from __future__ import annotations

import math
import random
import sys
from collections import Counter
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mbrs_bleu import mbrs_metrics
from shared_data import WMT17
from strategies import Draws, sentences_of_words, text_sentences

from torch_bleu import aggregate_bleu, pairwise_bleu, self_bleu, sentence_bleu
from torch_bleu.errors import InputError

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU  # noqa: E402
from sacrebleu.metrics.helpers import extract_all_word_ngrams  # noqa: E402

MBRS = mbrs_metrics()
needs_mbrs = pytest.mark.skipif(MBRS is None, reason="mbrs is not installed (pip install --no-deps mbrs)")

groups = st.lists(st.lists(text_sentences, max_size=4), min_size=1, max_size=3)
sacrebleu_options = st.fixed_dictionaries(
    {
        "smoothing": st.sampled_from(["none", "floor", "add-k", "exp"]),
        "effective_order": st.booleans(),
        "max_order": st.integers(1, 5),
        "tokenize": st.sampled_from(["13a", "intl", "none", "char"]),
        "lowercase": st.booleans(),
    }
)
NLTK_METHODS = ["method0", "method1", "method2", "method3", "method4", "method5", "method6", "method7"]


def _expected_bleu(candidate: str, references: list[str], weights: list[float], bleu: BLEU) -> float:
    """mbrs's aggregate BLEU in float64: expected counts and length under ``weights``, matches
    ``min(c(g), E[c(g)])``, sacrebleu's formula (mbrs's ``_compute_bleu`` is a copy of it)."""
    order = bleu.max_ngram_order
    expected: Counter[tuple[str, ...]] = Counter()
    length = 0.0
    for reference, weight in zip(references, weights):
        ngrams, reference_length = extract_all_word_ngrams(bleu._preprocess_segment(reference), 1, order)
        length += weight * reference_length
        for ngram, count in ngrams.items():
            expected[ngram] += weight * count
    ngrams, candidate_length = extract_all_word_ngrams(bleu._preprocess_segment(candidate), 1, order)
    correct, total = [0.0] * order, [0.0] * order
    for ngram, count in ngrams.items():
        total[len(ngram) - 1] += count
        correct[len(ngram) - 1] += min(count, expected.get(ngram, 0.0))
    return _compute_bleu(correct, total, candidate_length, length, bleu) / 100


def _compute_bleu(correct: list[float], total: list[float], sys_len: float, ref_len: float, bleu: BLEU) -> float:
    """sacrebleu's ``BLEU.compute_bleu`` on float statistics, line by line (mbrs's ``_compute_bleu``)."""
    smooth_value = bleu.smooth_value if bleu.smooth_value is not None else BLEU.SMOOTH_DEFAULTS[bleu.smooth_method]
    bp = 1.0 if sys_len >= ref_len else (math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0)
    order = len(correct)
    precisions = [0.0] * order
    if not any(correct):
        return 0.0
    smooth_mteval, effective = 1.0, order
    for n in range(1, order + 1):
        if bleu.smooth_method == "add-k" and n > 1:
            correct[n - 1] += smooth_value
            total[n - 1] += smooth_value
        if total[n - 1] == 0:
            break
        if bleu.effective_order:
            effective = n
        if correct[n - 1] == 0:
            if bleu.smooth_method == "exp":
                smooth_mteval *= 2
                precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1])
            elif bleu.smooth_method == "floor":
                precisions[n - 1] = 100.0 * smooth_value / total[n - 1]
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    logs = [math.log(p) if p > 0.0 else -9999999999.0 for p in precisions[:effective]]
    return bp * math.exp(sum(logs) / effective)


def _sacrebleu(options: dict) -> BLEU:
    options = dict(options)
    return BLEU(
        smooth_method=options.pop("smoothing"),
        max_ngram_order=options.pop("max_order"),
        effective_order=options.pop("effective_order"),
        **options,
    )


@settings(max_examples=50, deadline=None)
@given(
    candidates=groups,
    references=groups,
    chosen=sacrebleu_options,
    seed=st.integers(0, 2**16),
    shared=st.booleans(),
)
def test_aggregate_bleu_is_mbrs_formula_in_float64(candidates, references, chosen, seed, shared):
    references = references[:1] * len(candidates) if len(references) < len(candidates) else references
    references = candidates if shared else references[: len(candidates)]
    rng = random.Random(seed)
    width = max((len(refs) for refs in references), default=0)
    given = torch.tensor([[rng.choice([0.0, 0.5, 1.0, rng.random()]) for _ in range(width)] for _ in references])
    for source, refs in enumerate(references):  # a positive weight per source, NaN past its references
        if refs:
            given[source, rng.randrange(len(refs))] = 1.0 + rng.random()
        given[source, len(refs) :] = torch.nan
    weights = given.to(torch.float64) if seed % 2 else None
    scores = aggregate_bleu(candidates, None if shared else references, weights, **chosen)
    bleu = _sacrebleu(chosen)
    assert scores.dtype == torch.float64 and scores.shape == (len(candidates), max(map(len, candidates)))
    for source, (cands, refs) in enumerate(zip(candidates, references)):
        row = given[source, : len(refs)].double() if weights is not None else torch.ones(len(refs), dtype=torch.float64)
        normalized = (row / row.sum()).tolist() if refs else []
        expected = [_expected_bleu(c, refs, normalized, bleu) if refs else math.nan for c in cands]
        assert scores[source, : len(cands)].tolist() == pytest.approx(expected, abs=1e-9, nan_ok=True)
        assert scores[source, len(cands) :].isnan().all()


@needs_mbrs
@settings(max_examples=25, deadline=None)
@given(
    candidates=st.lists(text_sentences, min_size=1, max_size=5),
    references=st.lists(text_sentences, min_size=1, max_size=5),
    smoothing=st.sampled_from(["none", "floor", "add-k", "exp"]),
    effective_order=st.booleans(),
    max_order=st.integers(1, 5),
    lprobs=st.none() | st.lists(st.floats(-8.0, 0.0), min_size=5, max_size=5),
)
def test_aggregate_bleu_is_mbrs_reference_aggregation(
    candidates, references, smoothing, effective_order, max_order, lprobs
):
    metric = MBRS.MetricBLEU(
        MBRS.MetricBLEU.Config(smooth_method=smoothing, effective_order=effective_order, max_ngram_order=max_order)
    )
    log_probs = None if lprobs is None else torch.tensor(lprobs[: len(references)])
    theirs = metric.expected_scores_reference_aggregation(candidates, references, reference_lprobs=log_probs)
    weights = None if log_probs is None else log_probs.double().softmax(-1)[None]
    options = {"smoothing": smoothing, "effective_order": effective_order, "max_order": max_order}
    ours = aggregate_bleu([candidates], [references], weights, **options)[0]
    torch.testing.assert_close(ours, theirs.double() / 100, rtol=0, atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(
    candidates=st.lists(
        st.lists(st.lists(st.integers(0, 6), max_size=9), min_size=3, max_size=3), min_size=1, max_size=3
    ),
    convention=st.sampled_from(["sacrebleu", "nltk"]),
    smoothing=st.integers(0, 7),
    copies=st.integers(1, 3),
    seed=st.integers(0, 2**16),
)
def test_aggregate_bleu_of_equal_references_is_pairwise_bleu_of_ids(candidates, convention, smoothing, copies, seed):
    # rows padded with 0, which is ignored; 6 is an EOS that ends a row
    width = max(len(row) for rows in candidates for row in rows)
    ids = torch.tensor([[row + [0] * (width - len(row)) for row in rows] for rows in candidates], dtype=torch.int32)
    methods = ["none", "floor", "add-k", "exp"] if convention == "sacrebleu" else NLTK_METHODS
    options = {"ignore_ids": [0], "eos_id": 6, "max_order": 3, "convention": convention}
    options["smoothing"] = methods[smoothing % len(methods)]
    reference = ids[:, :1]
    weights = Draws(seed).rand(ids.shape[0], copies) + 0.1
    aggregate = aggregate_bleu(ids, reference.repeat(1, copies, 1), weights, **options)
    torch.testing.assert_close(aggregate, pairwise_bleu(ids, reference, **options)[..., 0], rtol=0, atol=1e-12)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1))
def test_subword_ids_score_as_their_decoded_text(vocabulary, seed):
    rng = random.Random(seed)
    pad = 0
    drawn = [vocabulary.random_rows(rng, count=4, longest=10) for _ in range(2)]
    rows = [[[token for token in row if token != pad] for row in group] for group in drawn]
    width = max(len(row) for group in rows for row in group)
    ids = torch.tensor([[row + [pad] * (width - len(row)) for row in group] for group in rows])
    texts = [[vocabulary.decode(row) for row in group] for group in rows]
    options = {"detokenizer": vocabulary.detokenizer, "ignore_ids": [pad], "smoothing": "exp"}
    weights = torch.tensor([[0.1, 0.2, 0.3, 0.4], [1.0, 0.0, 2.0, 1.0]])
    text_options = {"smoothing": "exp"}
    torch.testing.assert_close(  # ids give scores on their device, strings on the CPU
        aggregate_bleu(ids, None, weights, **options).cpu(),
        aggregate_bleu(texts, None, weights, **text_options),
        rtol=0,
        atol=0,
    )
    for mode in ("pairs", "others"):
        torch.testing.assert_close(
            self_bleu(ids, mode, **options).cpu(), self_bleu(texts, mode, **text_options), rtol=0, atol=0
        )


def _texygen(sentences: list[list[str]], method: str, max_order: int) -> float:
    """Texygen's self-BLEU: nltk's ``sentence_bleu`` of each sentence against all the others, averaged."""
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    smoothing = getattr(SmoothingFunction(), "method0" if method == "none" else method)
    weights = (1.0 / max_order,) * max_order
    scores = [
        sentence_bleu(sentences[:i] + sentences[i + 1 :], sentence, weights, smoothing_function=smoothing)
        for i, sentence in enumerate(sentences)
    ]
    return sum(scores) / len(scores)


@settings(max_examples=60, deadline=None)
@given(
    candidates=st.lists(st.lists(sentences_of_words(12), max_size=6), min_size=1, max_size=3),
    method=st.sampled_from(NLTK_METHODS),
    max_order=st.integers(1, 5),
)
def test_self_bleu_against_others_is_texygens_nltk_loop(candidates, method, max_order):
    pytest.importorskip("nltk")
    options = {"convention": "nltk", "smoothing": method, "tokenize": "none", "max_order": max_order}
    scores = self_bleu(candidates, "others", **options)
    for source, group in enumerate(candidates):
        if len(group) < 2:
            assert scores[source].isnan()
            continue
        try:
            expected = _texygen([line.split() for line in group], method, max_order)
        except (AssertionError, IndexError, ZeroDivisionError):  # nltk refuses some input (method6: nltk_smoothing)
            continue
        assert scores[source].item() == pytest.approx(expected, rel=0, abs=1e-12)


def test_texygens_default_self_bleu():
    pytest.importorskip("nltk")
    group = ["the cat sat on the mat", "the cat sat on a mat", "a dog barked", "the the the", "", "a cat"]
    expected = _texygen([line.split() for line in group], "method1", 4)
    got = self_bleu([group], "others", convention="nltk", smoothing="method1", tokenize="none")
    assert got.item() == pytest.approx(expected, rel=0, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(candidates=groups, chosen=sacrebleu_options)
def test_self_bleu_against_others_is_sacrebleus_sentence_bleu_with_the_others_as_references(candidates, chosen):
    scores = self_bleu(candidates, "others", **chosen)
    bleu = _sacrebleu(chosen)
    for source, group in enumerate(candidates):
        if len(group) < 2:
            assert scores[source].isnan()
            continue
        each = [bleu.sentence_score(c, group[:i] + group[i + 1 :]).score / 100 for i, c in enumerate(group)]
        assert scores[source].item() == pytest.approx(sum(each) / len(each), rel=0, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    # rows of at least one id: sentence_bleu takes an all-padding reference row as no reference, where
    # self-BLEU counts an empty candidate as a reference of length 0 (as sacrebleu and nltk count "")
    candidates=st.lists(st.lists(st.integers(1, 5), min_size=1, max_size=8), min_size=2, max_size=6),
    ref_length=st.sampled_from(["closest", "shortest"]),
    smoothing=st.sampled_from(["none", "floor", "exp"]),
)
def test_self_bleu_of_ids_is_sentence_bleu_against_the_other_rows(candidates, ref_length, smoothing):
    width = max(len(row) for row in candidates) + 1
    ids = torch.tensor([row + [0] * (width - len(row)) for row in candidates])  # 0: padding
    options = {"ignore_ids": [0], "ref_length": ref_length, "smoothing": smoothing, "max_order": 3}
    size = ids.shape[0]
    others = torch.stack([torch.cat([ids[:i], ids[i + 1 :]]) for i in range(size)])  # (N, N - 1, L)
    expected = sentence_bleu(ids, others, **options).mean()
    got = self_bleu(ids[None], "others", **options)
    torch.testing.assert_close(got, expected[None], rtol=0, atol=1e-12)


def _fast_bleu_against_the_others(sentences: list[list[str]], max_orders: tuple[int, ...]) -> dict[int, float]:
    """Per order, the mean of fast-bleu's ``BLEU`` of each sentence against all the others (nltk's method1)."""
    import fast_bleu

    weights = {order: (1.0 / order,) * order for order in max_orders}
    scores: dict[int, list[float]] = {order: [] for order in max_orders}
    for i, sentence in enumerate(sentences):
        each = fast_bleu.BLEU(sentences[:i] + sentences[i + 1 :], weights).get_score([sentence])
        for order in max_orders:
            scores[order].append(each[order][0])
    return {order: sum(values) / len(values) for order, values in scores.items()}


def test_self_bleu_against_others_is_fast_bleus_bleu_against_the_others():
    pytest.importorskip("fast_bleu")
    rng = random.Random(0)
    words = ["the", "a", "cat", "dog", "sat", "on", "mat", "barked", "at", "it"]
    sentences = [[rng.choice(words) for _ in range(rng.randrange(2, 12))] for _ in range(20)]
    sentences.append(["cat"])  # the one sentence of one word: its closest other length is longer
    theirs = _fast_bleu_against_the_others(sentences, (2, 4))
    for max_order in (2, 4):
        ours = self_bleu(
            [[" ".join(s) for s in sentences]],
            "others",
            convention="nltk",
            smoothing="method1",
            tokenize="none",
            max_order=max_order,
        )
        assert ours.item() == pytest.approx(theirs[max_order], rel=0, abs=1e-9)


def test_pairs_stay_the_default_and_modes_and_weights_are_checked():
    group = [["the cat sat on the mat", "the cat sat on a mat", "a dog barked"], ["one"]]
    assert torch.equal(self_bleu(group).nan_to_num(-1), self_bleu(group, "pairs").nan_to_num(-1))
    with pytest.raises(ValueError, match="unknown mode 'all'; expected one of 'pairs', 'others'"):
        self_bleu(group, "all")  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"shape \(2, 3\)"):
        aggregate_bleu(group, None, torch.ones(2))
    with pytest.raises(InputError, match="real tensor"):
        aggregate_bleu(group, None, torch.ones((2, 3), dtype=torch.bool))
    with pytest.raises(InputError, match="finite and non-negative"):
        aggregate_bleu(group, None, torch.tensor([[1.0, -1.0, 1.0], [1.0, 0.0, 0.0]]))
    with pytest.raises(InputError, match="finite and non-negative"):
        aggregate_bleu(group, None, torch.tensor([[1.0, 1.0, 1.0], [math.inf, 0.0, 0.0]]))
    with pytest.raises(InputError, match="must not all be 0"):
        aggregate_bleu(group, None, torch.tensor([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]))
    with pytest.raises(InputError, match="ref_length does not apply"):
        aggregate_bleu(group, ref_length="shortest")
    with pytest.raises(InputError, match="2 sources, references of 1"):
        aggregate_bleu(group, [["a"]])
    # padding past a source's references may hold anything; a source without references is NaN
    scores = aggregate_bleu(group, [["the cat"], []], torch.tensor([[2.0], [math.nan]]))
    assert scores[0].isnan().tolist() == [False, False, False] and scores[1].isnan().all()
    assert aggregate_bleu([[]]).shape == (1, 0) and self_bleu([[]], "others").isnan().all()
    assert self_bleu([["", ""]], "others").tolist() == [0.0]


@needs_mbrs
def test_mbrs_decoders_run_on_the_adapter():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    try:
        from mbrs.decoders import DecoderAggregateMBR, DecoderMBR
        from mbrs_metric import MetricTorchBLEU
    finally:
        sys.path.pop(0)
    hypotheses = ["the cat sat on the mat", "a cat sat on a mat", "the cat sat", "dogs bark", "the mat"]
    theirs, ours = MBRS.MetricBLEU(MBRS.MetricBLEU.Config(num_workers=1)), MetricTorchBLEU(MetricTorchBLEU.Config())
    lprobs = torch.tensor([-1.0, -2.0, -0.5, -4.0, -3.0])
    torch.testing.assert_close(
        ours.pairwise_scores(hypotheses, hypotheses), theirs.pairwise_scores(hypotheses, hypotheses).double()
    )
    assert ours.score(hypotheses[0], hypotheses[2]) == pytest.approx(theirs.score(hypotheses[0], hypotheses[2]))
    torch.testing.assert_close(
        ours.scores(hypotheses, hypotheses[::-1]), theirs.scores(hypotheses, hypotheses[::-1]).double()
    )
    for decoder_class in (DecoderMBR, DecoderAggregateMBR):
        outputs = [
            decoder_class(decoder_class.Config(), metric).decode(
                hypotheses, hypotheses, nbest=2, reference_lprobs=lprobs
            )
            for metric in (theirs, ours)
        ]
        assert outputs[0].idx == outputs[1].idx and outputs[0].sentence == outputs[1].sentence
        assert outputs[1].score == pytest.approx(outputs[0].score, abs=1e-4)


@pytest.mark.slow
@pytest.mark.skipif(not WMT17.is_dir(), reason="no WMT17 data beside this checkout (../shared/data)")
def test_wmt17_self_bleu_and_aggregate_bleu():
    pytest.importorskip("fast_bleu")
    lines = (WMT17 / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()[:100]
    theirs = _fast_bleu_against_the_others([line.split() for line in lines], (4,))[4]
    ours = self_bleu([lines], "others", convention="nltk", smoothing="method1", tokenize="none")
    assert ours.item() == pytest.approx(theirs, rel=0, abs=1e-9)
    systems = [path.read_text(encoding="utf-8").splitlines() for path in sorted(WMT17.glob("sys.*.de"))[:8]]
    candidates = [[system[index] for system in systems] for index in range(0, 200, 10)]
    bleu = BLEU(effective_order=True)
    scores = aggregate_bleu(candidates, smoothing="exp", effective_order=True)
    for source, group in enumerate(candidates):
        expected = [_expected_bleu(c, group, [1 / len(group)] * len(group), bleu) for c in group]
        assert scores[source].tolist() == pytest.approx(expected, abs=1e-9)
    if MBRS is not None:
        metric = MBRS.MetricBLEU(MBRS.MetricBLEU.Config())
        for source, group in enumerate(candidates[:5]):
            mbrs_scores = metric.expected_scores_reference_aggregation(group, group).double() / 100
            torch.testing.assert_close(scores[source], mbrs_scores, rtol=0, atol=1e-6)
