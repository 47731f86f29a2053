"""Statistics counted differently are never added up, and what a metric is given is read in its own words.

Every option that can change a sentence's statistics enters the metric's fingerprint (its constant
``counted_with`` state), which ``MetricCollection``'s compute groups, ``merge_state`` and
``load_state_dict`` compare: for chrF that includes ``beta`` and ``eps_smoothing`` (each sentence keeps
its best reference, chosen by its score), for subword ids the ``Detokenizer`` and the ignored ids. Here
too: a fresh detokenizer under ``compile=``, SentencePiece models whose ``decode`` rewrites text, and the
errors and option hints of each metric.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from subword_tokenizers import PAD_ID, UNK_ID, cached_byte_level_bpe, requires, sentencepiece_model_path
from torchmetrics import MetricCollection
from vocabularies import Vocabulary

from torch_bleu import BLEUScore, CHRFScore, Detokenizer, arrays, corpus_chrf

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import CHRF  # noqa: E402

Batch = tuple[object, object]


def collected_and_alone(metrics: dict[str, Callable[[], object]], batches: list[Batch]) -> tuple[dict, dict, int]:
    """Scores of the metrics in one ``MetricCollection`` (default compute groups) and each alone, and the
    number of compute groups the collection formed."""
    collection = MetricCollection({name: make() for name, make in metrics.items()})
    alone = {name: make() for name, make in metrics.items()}
    for preds, target in batches:
        collection.update(preds, target)
        for metric in alone.values():
            metric.update(preds, target)
    together = {name: score.item() for name, score in collection.compute().items()}
    return together, {name: metric.compute().item() for name, metric in alone.items()}, len(collection.compute_groups)


def padded(rows: list[list[int]]) -> torch.Tensor:
    width = max(map(len, rows))
    return torch.tensor([row + [PAD_ID] * (width - len(row)) for row in rows])


# --- subword metrics: the detokenizer and the ignored ids decide the statistics ----------------------


def test_detokenizer_metrics_that_ignore_other_ids_keep_their_own_scores():
    vocabulary = Vocabulary("unigram")
    detokenizer = vocabulary.detokenizer
    line = "The cat sat on the mat."
    clean = vocabulary.encode(line)
    with_unknown = [*clean[:2], UNK_ID, *clean[2:]]  # the unknown id decodes to " ⁇ " unless ignored
    batches: list[Batch] = [(padded([clean]), [line]), (padded([with_unknown, clean]), [line, line])]
    metrics = {
        "pad": lambda: BLEUScore(detokenizer=detokenizer, ignore_ids=[PAD_ID]),
        "pad and unknown": lambda: BLEUScore(detokenizer=detokenizer, ignore_ids=[UNK_ID, PAD_ID]),
    }
    together, alone, groups = collected_and_alone(metrics, batches)
    assert groups == 2 and together == alone
    assert alone["pad and unknown"] == 1.0 > alone["pad"]
    theirs = sacrebleu.BLEU().corpus_score([vocabulary.decode(clean)] * 3, [[line] * 3]).score
    assert alone["pad and unknown"] == pytest.approx(theirs / 100, abs=1e-12)


def test_detokenizers_that_differ_only_in_clean_up_keep_their_own_scores():
    requires("tokenizers")
    tokenizer = cached_byte_level_bpe()
    plain, cleaned = (Detokenizer.from_huggingface(tokenizer, clean_up=clean_up) for clean_up in (False, True))
    assert plain.fingerprint != cleaned.fingerprint
    assert Detokenizer.from_huggingface(tokenizer, clean_up=True).fingerprint == cleaned.fingerprint

    def ids(text: str) -> list[int]:
        return tokenizer.encode(text, add_special_tokens=False).ids

    first, later = "the cat sat on the mat", "it 's late and we do n't know"
    batches: list[Batch] = [(padded([ids(first)]), [first]), (padded([ids(later)]), ["it's late and we don't know"])]
    metrics = {
        "plain": lambda: CHRFScore(word_order=2, detokenizer=plain),
        "cleaned": lambda: CHRFScore(word_order=2, detokenizer=cleaned),
    }
    together, alone, groups = collected_and_alone(metrics, batches)
    assert groups == 2 and together == alone
    assert alone["cleaned"] == 1.0 > alone["plain"]


# --- chrF: beta and eps_smoothing choose each sentence's best reference -------------------------------

# (hypothesis, first reference, second reference): the best reference depends on the option
BEST_REFERENCE_CASES = {
    "beta": ({"beta": 1}, ("a a mat cat", "the mats mat mat the mats", "sat a on")),
    "eps_smoothing": ({"eps_smoothing": True}, ("the sat on cat", "mat a", "a")),
}


@pytest.mark.parametrize("option", BEST_REFERENCE_CASES)
def test_chrf_metrics_that_choose_references_otherwise_keep_their_own_scores(option):
    options, (hypothesis, first, second) = BEST_REFERENCE_CASES[option]
    # the first batch's references are equal, so every option counts it alike; the second's differ
    batches: list[Batch] = [
        (["the cat sat"], [["the cat sat on", "the cat sat on"]]),
        ([hypothesis], [[first, second]]),
    ]
    metrics = {"default": CHRFScore, "other": lambda: CHRFScore(**options)}
    together, alone, groups = collected_and_alone(metrics, batches)
    assert groups == 2 and together == alone
    for name, chosen in (("default", {}), ("other", options)):
        theirs = CHRF(**chosen).corpus_score(
            ["the cat sat", hypothesis], [["the cat sat on", first], ["the cat sat on", second]]
        )
        assert alone[name] * 100 == pytest.approx(theirs.score, abs=1e-9)


@pytest.mark.parametrize("option", BEST_REFERENCE_CASES)
def test_chrf_statistics_counted_otherwise_are_not_merged_nor_loaded(option):
    options, (hypothesis, first, second) = BEST_REFERENCE_CASES[option]
    other = CHRFScore(**options)
    other.update([hypothesis], [[first, second]])
    metric = CHRFScore()
    with pytest.raises(ValueError, match=f"counted otherwise.*{option}"):
        metric.merge_state(other)
    other.persistent(True)
    with pytest.raises(ValueError, match="counted otherwise"):
        metric.load_state_dict(other.state_dict())
    assert int(metric.statistics.sum()) == 0
    same = CHRFScore(**options)
    same.merge_state(other)  # counted alike: taken
    assert torch.equal(same.statistics, other.statistics)


def test_options_that_only_score_do_not_separate_metrics():
    """chrF's options all decide the statistics; BLEU's smoothing and weights only score them."""
    first, second = BLEUScore(smoothing="exp"), BLEUScore(smoothing="floor", weights=(0.4, 0.3, 0.2, 0.1))
    assert torch.equal(first.counted_with, second.counted_with)
    assert not torch.equal(CHRFScore().counted_with, CHRFScore(beta=3).counted_with)
    assert torch.equal(CHRFScore(beta=2).counted_with, CHRFScore(beta=2.0).counted_with)


# --- subword ids under compile=, and models whose decode rewrites the text ---------------------------


@pytest.mark.parametrize("model_type", ["unigram", pytest.param("word", marks=pytest.mark.slow)])
def test_a_fresh_detokenizer_compiles_on_its_first_update(model_type, tmp_path, monkeypatch):
    requires("sentencepiece")
    import sentencepiece

    monkeypatch.setattr(arrays, "_DEVICE_CONSTANTS", type(arrays._DEVICE_CONSTANTS)())  # no table on the device yet
    processor = sentencepiece.SentencePieceProcessor(
        model_file=str(sentencepiece_model_path(tmp_path, model_type, vocab_size=500))
    )
    lines = ["The cat sat on the mat.", "A dog barked at the cat."]
    rows = padded([processor.encode(line) for line in lines])
    eager = BLEUScore(detokenizer=Detokenizer.from_sentencepiece(processor), ignore_ids=[PAD_ID])
    compiled = BLEUScore(
        detokenizer=Detokenizer.from_sentencepiece(processor), ignore_ids=[PAD_ID], compile={"backend": "eager"}
    )
    for metric in (eager, compiled):
        metric.update(rows, [lines[1], lines[0]])
        metric.update(rows.flip(0), lines)
    assert all(torch.equal(getattr(eager, name), getattr(compiled, name)) for name in BLEUScore.state_names)


def test_a_sentencepiece_model_with_denormalization_rules_is_refused(tmp_path):
    requires("sentencepiece")
    import sentencepiece

    path = sentencepiece_model_path(tmp_path, "unigram", vocab_size=500, denormalization_rules=[("cat", "dog")])
    processor = sentencepiece.SentencePieceProcessor(model_file=str(path))
    assert processor.decode(processor.encode("The cat sat.")) == "The dog sat."  # decode applies the rule
    for model in (processor, path):
        with pytest.raises(ValueError, match="denormalization rules"):
            Detokenizer.from_sentencepiece(model)


# --- each metric in its own words ----------------------------------------------------------------------


def test_chrf_tells_what_to_do_with_ids_in_its_own_words():
    with pytest.raises(TypeError, match="chrF scores strings; for subword ids, pass detokenizer=") as refused:
        CHRFScore().update(torch.tensor([[5, 6, 7]]), ["the cat"])
    assert "tokenize=" not in str(refused.value)
    vocabulary = Vocabulary("unigram")
    with pytest.raises(TypeError, match="chrF's preds are subword ids; to score strings, leave detokenizer out"):
        CHRFScore(detokenizer=vocabulary.detokenizer).update(["the cat"], ["the cat"])


@pytest.mark.parametrize(
    "make, option, hint",
    [
        (CHRFScore, "n_char_order", "torchmetrics' n_char_order is char_order here"),
        (CHRFScore, "n_word_order", "n_word_order is word_order here"),
        (CHRFScore, "return_sentence_level_score", "torch_bleu.sentence_chrf"),
        (CHRFScore, "char_ordr", "the options of chrF are char_order, word_order, .*torchmetrics' Metric arguments"),
        (lambda **options: corpus_chrf(["a"], ["a"], **options), "n_char_order", "n_char_order is char_order here"),
        (BLEUScore, "n_gram", "torchmetrics' n_gram is max_order here"),
        (BLEUScore, "max_ordr", "the options of BLEU are max_order, weights, "),
    ],
)
def test_other_libraries_option_names_get_ours(make, option, hint):
    with pytest.raises(TypeError, match=f"unknown option '{option}': .*{hint}"):
        make(**{option: 2})


def test_chrf_takes_a_weight_per_sentence():
    hypotheses, references = ["the cat sat", "a dog", "on the mat"], ["the cat sat", "the dog", "on a mat"]
    weighted = CHRFScore(word_order=2)
    weighted.update(hypotheses, references, weight=torch.tensor([2, 0, 1], dtype=torch.uint8))
    repeated = CHRFScore(word_order=2)
    repeated.update([hypotheses[0], *hypotheses[::2]], [references[0], *references[::2]])
    assert torch.equal(weighted.statistics, repeated.statistics)
    with pytest.raises(ValueError, match="one entry per sentence"):
        weighted.update(hypotheses, references, weight=torch.tensor([True, False]))
    assert torch.equal(weighted.statistics, repeated.statistics)
