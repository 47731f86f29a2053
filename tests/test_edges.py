"""Input at the edges, for every metric: refused with an error that says what to do, leaving the states as
they were, or scored as the peer library scores it; and nothing a metric accepted lost later."""

from __future__ import annotations

import math
import unicodedata

import numpy as np
import pytest
import torch

import torch_bleu as tb
from torch_bleu import BLEUScore, CERScore, CHRFScore, Detokenizer, ROUGEScore, SentenceReward, TERScore, WERScore
from torch_bleu.errors import InputError
from torch_bleu.metrics.rouge.score import MAX_SENTENCES

sacrebleu = pytest.importorskip("sacrebleu")
jiwer = pytest.importorskip("jiwer")
rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

#: Every metric of strings, with the options that make it score them, and its sentence function.
TEXT_METRICS = {
    "bleu": (BLEUScore, {"tokenize": "13a"}, tb.sentence_bleu),
    "chrf": (CHRFScore, {}, tb.sentence_chrf),
    "ter": (TERScore, {}, tb.sentence_ter),
    "wer": (WERScore, {}, tb.sentence_wer),
    "cer": (CERScore, {}, tb.sentence_cer),
    "rouge": (ROUGEScore, {"rouge_types": ("rouge1", "rougeL")}, tb.sentence_rouge),
}
#: The metrics of plain ids, with their options.
ID_METRICS = {
    "bleu": (BLEUScore, {"max_order": 2}, tb.sentence_bleu),
    "wer": (WERScore, {}, tb.sentence_wer),
    "cer": (CERScore, {}, tb.sentence_cer),
    "rouge": (ROUGEScore, {"rouge_types": ("rouge1",)}, tb.sentence_rouge),
}
#: A detokenizer of ids 0 (nothing), 1 ("a"), 2 (" b") for the metrics of subword ids.
WORDS = Detokenizer((b"", b"a", b" b"), "per_byte")


def states_of(metric):
    return {
        name: value.clone() if isinstance(value, torch.Tensor) else list(value)
        for name, value in metric.metric_state.items()
    }


def assert_same_states(before, metric):
    after = metric.metric_state
    assert before.keys() == after.keys()
    for name, value in before.items():
        if isinstance(value, torch.Tensor):
            assert torch.equal(value, after[name]), name
        else:
            assert len(value) == len(after[name]), name


# ------------------------------------------------------------------------------ weights all 0


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter", "rouge"])
def test_intervals_and_tests_of_sentences_all_of_weight_0_say_the_corpus_is_empty(name):
    metric_class, options, _ = TEXT_METRICS[name]
    metrics = [metric_class(keep_sentences=True, **options) for _ in range(2)]
    for metric in metrics:
        metric.update(["a b c", "c d"], ["a b c", "c e"], weight=torch.tensor([0, 0]))
    empty = "no kept sentence has a non-zero weight.*nothing to resample"
    with pytest.raises(InputError, match=empty):
        metrics[0].confidence_interval(resamples=10)
    with pytest.raises(InputError, match=empty):
        tb.paired_bootstrap(*metrics, resamples=10)
    score = metrics[0].compute()  # and the score is the one of no sentence, for BLEU as for ROUGE
    assert all(float(value) == 0 for value in (score.values() if isinstance(score, dict) else [score]))


# ------------------------------------------------------------------------------ absent references


@pytest.mark.parametrize("metric", ["bleu", "chrf", "rouge"])
def test_a_reward_names_the_entry_of_its_column_that_is_none(metric):
    reward = SentenceReward(metric, reference_column="answer")
    with pytest.raises(InputError, match=r"answer\[1\] is None: completion 1 has no reference.*pass ''"):
        reward(completions=["a b", "c d"], answer=["a b", None])
    with pytest.raises(InputError, match=r"answer\[0\] is nan: completion 0"):
        reward(completions=["a b"], answer=[math.nan])
    with pytest.raises(InputError, match=r"answer\[0\]\[1\] is None: each reference of completion 0 is a string"):
        reward(completions=["a b"], answer=[["a b", None]])
    sentence = "the cat sat on the mat"
    assert reward(completions=["a b", sentence], answer=["a b", ["", sentence]])[1] == 1.0


# ------------------------------------------------------------------------------ no reference per sentence


@pytest.mark.parametrize("name", sorted(ID_METRICS))
def test_a_target_of_no_reference_per_sentence_is_refused_as_an_empty_list_is(name):
    metric_class, options, sentence = ID_METRICS[name]
    preds, target = torch.tensor([[1, 2, 3]]), torch.zeros((1, 0, 3), dtype=torch.long)
    for hypotheses in (preds, [[1, 2, 3]]):
        with pytest.raises(InputError, match=r"target of shape \(1, 0, 3\) has no reference per hypothesis"):
            sentence(hypotheses, target, **options)
    with pytest.raises(ValueError, match="no reference"):
        sentence([[1, 2, 3]], [[]], **options)
    metric = metric_class(**options)
    metric.update(preds, torch.tensor([[1, 2, 3]]))
    before = states_of(metric)
    with pytest.raises(InputError, match="no reference per hypothesis"):
        metric.update(preds, target)
    assert_same_states(before, metric)
    # no sentence and no reference is an empty batch
    empty = sentence(torch.zeros((0, 3), dtype=torch.long), torch.zeros((0, 0, 3), dtype=torch.long), **options)
    assert all(len(values) == 0 for values in (empty.values() if isinstance(empty, dict) else [empty]))


@pytest.mark.parametrize("function", [tb.sentence_chrf, tb.sentence_ter, tb.sentence_rouge])
def test_subword_ids_against_no_reference_per_sentence_are_refused(function):
    with pytest.raises(InputError, match="no reference per hypothesis"):
        function(torch.tensor([[1, 2]]), torch.zeros((1, 0, 2), dtype=torch.long), detokenizer=WORDS)


# ------------------------------------------------------------------------------ repeated dataset indices


@pytest.mark.parametrize("keep_sentences", [True, False])
def test_an_index_counted_twice_in_one_batch_is_refused_by_update(keep_sentences):
    metric = TERScore(keep_sentences=keep_sentences)
    metric.update(["a b"], ["a b"], indices=torch.tensor([9]))
    before = states_of(metric)
    with pytest.raises(InputError, match=r"dataset index 4 is counted twice in this batch.*weight 0"):
        metric.update(["a b", "c", "d"], ["a b", "c", "e"], indices=torch.tensor([4, 5, 4]))
    assert_same_states(before, metric)
    metric.update(["a b", "c", "d"], ["a b", "c", "e"], indices=torch.tensor([4, 5, 4]), weight=torch.tensor([1, 1, 0]))
    metric.update(["a b"], ["a c"], indices=torch.tensor([7]))
    expected = tb.corpus_ter(["a b", "a b", "c", "a b"], ["a b", "a b", "c", "a c"])
    assert metric.compute() == expected
    if keep_sentences:
        assert metric.confidence_interval(resamples=10).score == expected.item()


# ------------------------------------------------------------------------------ options of ids with strings


def test_a_sentence_separator_with_strings_is_refused_everywhere():
    separator = "sentence_sep_id applies to rows of token ids.*join each summary's sentences with '\\\\n'"
    for function in (tb.sentence_rouge, tb.corpus_rouge, tb.rouge_statistics):
        with pytest.raises(InputError, match=separator):
            function(["a b"], ["a b"], sentence_sep_id=3)
    metric = ROUGEScore(sentence_sep_id=3)
    with pytest.raises(InputError, match=separator):
        metric.update(["a b"], ["a b"])
    assert int(metric.sentences) == 0
    with pytest.raises(InputError, match=separator):
        tb.pairwise_rouge([["a b", "c"]], sentence_sep_id=3)
    with pytest.raises(InputError, match="ignore_ids applies to rows of token ids"):
        tb.pairwise_rouge([["a b", "c"]], ignore_ids=[0])
    with pytest.raises(InputError, match=separator):
        SentenceReward("rouge", sentence_sep_id=3)(completions=["a b"], reference=["a b"])
    # ids keep it
    ids = torch.tensor([[5, 3, 6]])
    assert tb.sentence_rouge(ids, ids, sentence_sep_id=3, rouge_types=("rougeLsum",))["rougeLsum_fmeasure"] == 1
    assert tb.pairwise_rouge(ids[None], sentence_sep_id=3, rouge_type="rougeLsum")[0, 0, 0] == 1


# ------------------------------------------------------------------------------ tuples of strings


@pytest.mark.parametrize("name", sorted(TEXT_METRICS))
def test_tuples_of_strings_are_lists_of_strings(name):
    metric_class, options, sentence = TEXT_METRICS[name]
    preds, target = ["a b c", "c d e"], ["a b c", "c d"]
    expected = sentence(preds, target, **options)
    for hypotheses, references in [
        (tuple(preds), target),
        (tuple(preds), tuple(target)),
        (preds, tuple((reference,) for reference in target)),
    ]:
        scores = sentence(hypotheses, references, **options)
        if isinstance(scores, dict):
            assert all(torch.equal(scores[key], expected[key]) for key in expected)
        else:
            assert torch.equal(scores, expected)
    listed, tupled = metric_class(**options), metric_class(**options)
    for _ in range(2):  # the first text batch is counted at once, the next queued
        listed.update(preds, target)
        tupled.update(tuple(preds), tuple(target))
    assert str(listed.compute()) == str(tupled.compute())
    if name in ("bleu", "chrf", "rouge"):
        pairwise = getattr(tb, f"pairwise_{name}")
        assert torch.equal(
            pairwise((tuple(preds),), (tuple(target),), **_pairwise(options)),
            pairwise([preds], [target], **_pairwise(options)),
        )


def _pairwise(options):
    return {"rouge_type": "rouge1"} if "rouge_types" in options else options


# ------------------------------------------------------------------------------ lone surrogates


#: Strings with lone surrogates, which no UTF-8 encodes.
SURROGATES = (["a \ud800 b", "c\udfffd e", "\ud800"], ["a b", "cd e", "x"])


def peer_scores(name, hypotheses, references):
    """The peer library's score (0..1) of a corpus, or of each sentence for ROUGE (rouge1 F-measure)."""
    if name == "bleu":
        return sacrebleu.corpus_bleu(hypotheses, [references]).score / 100
    if name == "chrf":
        return sacrebleu.corpus_chrf(hypotheses, [references]).score / 100
    if name == "ter":
        return sacrebleu.corpus_ter(hypotheses, [references]).score / 100
    if name in ("wer", "cer"):
        return getattr(jiwer, name)(references, hypotheses)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"])
    scores = [scorer.score(reference, hypothesis) for hypothesis, reference in zip(hypotheses, references)]
    return [sum(score[key].fmeasure for score in scores) / len(scores) for key in ("rouge1", "rougeL")]


@pytest.mark.parametrize("name", sorted(TEXT_METRICS))
def test_lone_surrogates_score_as_the_peer_scores_them_and_never_block_the_queue(name):
    metric_class, options, _ = TEXT_METRICS[name]
    hypotheses, references = SURROGATES
    metric = metric_class(**options)
    metric.update(["a b"], ["a b"])  # counted at once: the next batches are queued
    metric.update(hypotheses, references)
    metric.update(references, hypotheses)
    metric.compute()  # counts the queue
    fresh = metric_class(**options)
    fresh.update(hypotheses, references)
    score = fresh.compute()
    expected = peer_scores(name, hypotheses, references)
    if isinstance(score, dict):
        assert [float(score["rouge1_fmeasure"]), float(score["rougeL_fmeasure"])] == pytest.approx(expected, abs=1e-12)
    else:
        assert float(score) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("tokenize", ["default", "unicode", "char"])
def test_rouge_reads_a_lone_surrogate_as_no_word(tokenize):
    hypotheses = ["a \ud800 b", "a\ud800b", "\udfff"]
    scores = tb.sentence_rouge(hypotheses, ["a b", "a b", ""], rouge_types=("rouge1",), tokenize=tokenize)
    assert scores["rouge1_fmeasure"][0] == 1
    pairwise = tb.pairwise_rouge([hypotheses], [["a b"]], rouge_type="rouge1", tokenize=tokenize)
    assert pairwise[0, :2, 0].tolist() == scores["rouge1_fmeasure"][:2].tolist()
    if tokenize == "default":  # rouge-score's: every character outside a-z0-9 separates words
        scorer = rouge_scorer.RougeScorer(["rouge1"])
        expected = [
            scorer.score(reference, hypothesis)["rouge1"].fmeasure
            for hypothesis, reference in zip(hypotheses, ["a b", "a b", ""])
        ]
        assert scores["rouge1_fmeasure"].tolist() == expected


# ------------------------------------------------------------------------------ ids beyond int64


@pytest.mark.parametrize("name", sorted(ID_METRICS))
def test_uint64_ids_beyond_int64_are_refused(name):
    metric_class, options, sentence = ID_METRICS[name]
    preds = np.array([[2**63, 5]], dtype=np.uint64)
    target = np.array([[2**63 + 1, 5]], dtype=np.uint64)
    too_large = r"holds the id 922337203685477580[89], above the int64 ids.*map the ids to smaller ones"
    for hypotheses, references in [
        (preds, target),
        (torch.from_numpy(preds), torch.from_numpy(target)),
        (list(preds), list(target)),
        (torch.tensor([[1, 5]]), target),
    ]:
        with pytest.raises(InputError, match=too_large):
            sentence(hypotheses, references, **options)
    with pytest.raises(InputError, match=r"must fit in int64 \(at most 2\*\*63 - 1\), got 9223372036854775808"):
        sentence([[2**63, 5]], [[[5]]], **options)
    metric = metric_class(**options)
    with pytest.raises(InputError, match=too_large):
        metric.update(preds, target)
    assert_same_states(states_of(metric_class(**options)), metric)
    # below 2**63 they are ids like any other
    preds, target = preds - np.uint64(1), target - np.uint64(2)  # 2**63 - 1 and 2**63 - 1 again
    fits = sentence(preds, target, **options)
    assert str(fits) == str(sentence(preds.astype(np.int64), target.astype(np.int64), **options))


def test_uint64_candidates_beyond_int64_are_refused_by_the_pairwise_functions():
    candidates = torch.tensor([[[2**63, 5], [1, 5]]], dtype=torch.uint64)
    for function in (tb.pairwise_bleu, tb.pairwise_rouge, tb.self_bleu):
        with pytest.raises(InputError, match="candidates holds the id 9223372036854775808"):
            function(candidates)


# ------------------------------------------------------------------------------ ROUGE's exact sums


def test_rouge_weights_beyond_its_exact_sums_are_refused():
    metric = ROUGEScore(rouge_types=("rouge1",))
    limit = "ROUGE's sentences may weigh at most 2\\*\\*35 - 1 in all"
    for weight in ([2**35, 1], [2**36, 0], [2**63 - 1, 2**63 - 1], [2**34, 2**34]):
        with pytest.raises(InputError, match=limit):
            metric.update(["a b", "c"], ["a b", "d"], weight=torch.tensor(weight))
    assert int(metric.sentences) == 0
    metric.update(["a b", "c"], ["a b", "d"], weight=torch.tensor([2**34, 2**34 - 2]))
    metric.update(["a b"], ["a b"], weight=torch.tensor([1]))  # queued: counted with the rest
    with pytest.raises(InputError, match=limit):
        metric.update(["a b"], ["a b"], weight=torch.tensor([1]))
    assert int(metric.sentences) == MAX_SENTENCES
    assert metric.compute()["rouge1_fmeasure"].item() == pytest.approx((2**34 + 1) / MAX_SENTENCES, abs=1e-15)


def test_rouge_refuses_merged_or_loaded_states_that_no_sentences_give():
    metric = ROUGEScore(rouge_types=("rouge1", "rougeLsum"))
    metric.update(["a b c", "a"], ["a b", "a c"])
    good = {name: value.clone() for name, value in metric.metric_state.items()}
    impossible = [
        ("score_sums", (0, 0, 0), 2**33, "holds scores above 1 \\(a mean of 16\\.0"),
        ("score_sums", (1, 2, 1), 2**29 + 5, "holds scores above 1"),  # a low limb past 2 * (2**28 - 1)
        ("statistics", (1, 0), 99, "more hits than the prediction's or the reference's count"),
        ("sentences", (), 2**35, "more than the 2\\*\\*35 - 1"),
    ]
    for state, position, entry, message in impossible:
        incoming = {name: value.clone() for name, value in good.items()}
        incoming[state][position] = entry
        target = ROUGEScore(rouge_types=("rouge1", "rougeLsum"))
        with pytest.raises(InputError, match=message):
            target.merge_state(incoming)
        with pytest.raises(InputError, match=message):
            target.load_state_dict(incoming, strict=False)
        assert int(target.sentences) == 0
    once = ROUGEScore(rouge_types=("rouge1", "rougeLsum"))
    once.merge_state(good)
    assert str(once.compute()) == str(metric.compute())


@pytest.mark.parametrize("accumulate", ["best", "avg"])
def test_rouge_takes_every_state_that_updates_give_and_refuses_kept_scores_of_other_statistics(accumulate):
    rng = np.random.default_rng(7)
    words = ["a", "b", "c", "d", "e\n"]
    options = {"rouge_types": ("rouge1", "rouge3", "rougeL", "rougeLsum"), "accumulate": accumulate}
    metric = ROUGEScore(keep_sentences=True, **options)
    metric.update(["a b c"], [["a b d", "a"]])  # a precision of 2 / 3 (best) or 7 / 12 (avg)
    for _ in range(3):
        texts = [" ".join(rng.choice(words, size=rng.integers(0, 8))) for _ in range(12)]
        metric.update(texts[:4], [list(pair) for pair in zip(texts[4:8], texts[8:])], weight=torch.tensor([1, 0, 3, 2]))
    states = metric.metric_state
    merged = ROUGEScore(keep_sentences=True, **options)
    merged.merge_state(states)
    assert str(merged.compute()) == str(metric.compute())
    rows = [part.clone() for part in states["kept_sentences"]]
    rows[0][0, 13] ^= 1  # the low limb of the first type's precision
    altered = {**states, "kept_sentences": rows}
    if accumulate == "best":
        with pytest.raises(InputError, match="scores are not those of their statistics"):
            ROUGEScore(keep_sentences=True, **options).merge_state(altered)
    rows[0][0, -3] = 2  # a kept row of two sentences
    with pytest.raises(InputError, match="one sentence per row"):
        ROUGEScore(keep_sentences=True, **options).merge_state(altered)


# ------------------------------------------------------------------------------ Unicode versions


@pytest.mark.skipif(unicodedata.unidata_version >= "15", reason="the mark is known to this Python's unicodedata")
def test_a_mark_newer_than_pythons_unicode_is_not_reordered_as_documented():
    mark = "\U0001e08f"
    assert unicodedata.category(mark) == "Cn"
    scores = tb.sentence_rouge([f"a{mark}\u0316"], [f"a\u0316{mark}"], tokenize="unicode", rouge_types=("rouge1",))
    assert scores["rouge1_fmeasure"].item() == 0.0
