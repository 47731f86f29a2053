"""chrF and chrF++ against sacrebleu's ``CHRF``: statistics, corpus and sentence scores, from strings and ids.

Random and adversarial sentences (punctuation at word edges, odd whitespace, CJK, emoji, empty
lines), one to three references per sentence (ragged counts too), every option sacrebleu has; and
the same through each test tokenizer's ids (:mod:`vocabularies`). Each test runs with the widths CPU
tensors take from their data and with the static widths of accelerators.
"""

from __future__ import annotations

import random

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_data import WMT17
from strategies import chrf_options, text_sentences
from subword_tokenizers import CORPUS, PAD_ID
from vocabularies import Vocabulary

from torch_bleu import BLEUScore, CHRFConfig, CHRFScore, arrays, corpus_chrf, sentence_chrf
from torch_bleu.metrics.chrf.counting import sentence_statistics

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import CHRF  # noqa: E402

CORPUS_LINES = CORPUS.read_text(encoding="utf-8").splitlines()


@pytest.fixture(params=["widths from data", "static widths"], autouse=True)
def widths(request, monkeypatch):
    monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", request.param == "widths from data")


sentences = text_sentences  # the adversarial pieces the text tests share


@st.composite
def batches(draw):
    size = draw(st.integers(1, 5))
    hypotheses = draw(st.lists(sentences, min_size=size, max_size=size))
    references = [draw(st.lists(sentences, min_size=1, max_size=3)) for _ in range(size)]
    return hypotheses, references


options = chrf_options()


def _theirs(hypothesis: str, references: list[str], chrf) -> list[int]:
    """sacrebleu's statistics of one sentence: the best reference's counts, as it keeps them."""
    return [int(value) for value in chrf._extract_corpus_statistics([hypothesis], [[ref] for ref in references])[0]]


@settings(max_examples=200, deadline=None)
@given(batch=batches(), chosen=options)
def test_statistics_and_scores_from_strings_are_sacrebleus(batch, chosen):
    hypotheses, references = batch
    chrf = CHRF(**chosen)
    stats = sentence_statistics(hypotheses, references, CHRFConfig(**chosen))
    expected = [_theirs(hyp, refs, chrf) for hyp, refs in zip(hypotheses, references)]
    assert stats.flatten(1).tolist() == expected

    corpus = corpus_chrf(hypotheses, references, **chosen).item()
    streams = [[refs[index] if index < len(refs) else None for refs in references] for index in range(3)]
    assert corpus * 100 == pytest.approx(chrf.corpus_score(hypotheses, streams).score, abs=1e-9)

    sentence = sentence_chrf(hypotheses, references, **chosen).tolist()
    expected_sentences = [chrf.sentence_score(hyp, refs).score / 100 for hyp, refs in zip(hypotheses, references)]
    assert sentence == pytest.approx(expected_sentences, abs=1e-12)


def test_a_tie_between_references_keeps_the_first_as_sacrebleu_does():
    # both references score the same against the hypothesis but count differently
    hypotheses, references = ["ab ba"], [["ab", "ba"]]
    chrf = CHRF(char_order=1)
    stats = sentence_statistics(hypotheses, references, CHRFConfig(char_order=1))
    assert stats.flatten(1).tolist() == [_theirs(hypotheses[0], references[0], chrf)]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), word_order=st.sampled_from([0, 2]), as_text=st.booleans())
def test_statistics_of_random_ids_are_sacrebleus_on_their_decoded_text(vocabulary, seed, word_order, as_text):
    rng = random.Random(seed)
    hypotheses = vocabulary.random_rows(rng, count=4, longest=14)
    hypotheses[0] = vocabulary.encode(CORPUS_LINES[seed % len(CORPUS_LINES)])
    targets = [vocabulary.random_rows(rng, count=rng.randint(1, 2), longest=14) for _ in hypotheses]
    reference_text = [[vocabulary.decode(row) for row in refs] for refs in targets]
    detok = vocabulary.detokenizer
    config = CHRFConfig(word_order=word_order, detokenizer=detok)
    stats = sentence_statistics(hypotheses, reference_text if as_text else targets, config)
    chrf = CHRF(word_order=word_order)
    expected = [_theirs(vocabulary.decode(hyp), refs, chrf) for hyp, refs in zip(hypotheses, reference_text)]
    assert stats.flatten(1).tolist() == expected


def test_metric_over_batches_equals_sacrebleu_and_sits_in_a_collection_beside_bleu():
    from torchmetrics import MetricCollection

    vocabulary = Vocabulary("bpe with byte fallback")
    rows = [vocabulary.encode(line) for line in CORPUS_LINES[:40]]
    references = [[line] for line in CORPUS_LINES[1:41]]
    width = max(map(len, rows))
    ids = torch.full((40, width), PAD_ID)
    for index, row in enumerate(rows):
        ids[index, : len(row)] = torch.tensor(row)
    detok = vocabulary.detokenizer
    collection = MetricCollection(
        {
            "bleu": BLEUScore(detokenizer=detok, ignore_ids=[PAD_ID], smoothing="exp"),
            "chrf": CHRFScore(word_order=2, detokenizer=detok, ignore_ids=[PAD_ID]),
        }
    )
    collection.update(ids[:25], references[:25])
    collection.update(ids[25:], references[25:])
    scores = collection.compute()
    decoded = [vocabulary.decode(row) for row in rows]
    theirs = CHRF(word_order=2).corpus_score(decoded, [[refs[0] for refs in references]]).score
    assert scores["chrf"].item() * 100 == pytest.approx(theirs, abs=1e-9)


def test_states_merge_checkpoint_and_run_on_meta():
    first, second = CHRFScore(word_order=2), CHRFScore(word_order=2)
    first.update(CORPUS_LINES[:5], CORPUS_LINES[5:10])
    second.update(CORPUS_LINES[10:15], CORPUS_LINES[15:20])
    first.merge_state(second)
    whole = CHRFScore(word_order=2)
    whole.update(CORPUS_LINES[:5] + CORPUS_LINES[10:15], CORPUS_LINES[5:10] + CORPUS_LINES[15:20])
    assert torch.equal(first.statistics, whole.statistics) and first.statistics.dtype == torch.int64
    restored = CHRFScore(word_order=2)
    first.persistent(True)
    restored.load_state_dict(first.state_dict())
    assert restored.compute().item() == whole.compute().item()

    vocabulary = Vocabulary("unigram")
    on_meta = CHRFScore(detokenizer=vocabulary.detokenizer, ignore_ids=[PAD_ID]).to("meta")
    ids = torch.randint(0, vocabulary.size, (3, 7), device="meta")
    on_meta.update(ids, ids)
    assert on_meta.statistics.device.type == "meta"


@pytest.mark.parametrize("lines", [600, pytest.param(None, marks=pytest.mark.slow, id="every")])
def test_wmt17_systems_from_text(lines):
    if not WMT17.is_dir():
        pytest.skip(f"needs the WMT17 data beside the checkout ({WMT17})")
    reference = (WMT17 / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()[:lines]
    for path in sorted(WMT17.glob("sys.*.de"))[:2]:
        system = path.read_text(encoding="utf-8").splitlines()[:lines]
        metric = CHRFScore(word_order=2)
        for start in range(0, len(system), 500):
            metric.update(system[start : start + 500], reference[start : start + 500])
        theirs = CHRF(word_order=2).corpus_score(system, [reference])
        assert metric.compute().item() * 100 == pytest.approx(theirs.score, abs=1e-9)


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"ignore_ids": [0]}, ValueError, "ignore_ids is an option of subword ids"),
        ({"eos_id": 2}, ValueError, "eos_id is an option of subword ids"),
        ({"char_order": 0, "word_order": 0}, ValueError, "nothing to count"),
        ({"char_order": -1}, ValueError, "char_order must be an integer >= 0"),
        ({"beta": "2"}, ValueError, "beta must be a number"),
        ({"lowercase": 1}, TypeError, "lowercase must be a bool"),
        ({"n_char_order": 6}, TypeError, "unknown option 'n_char_order'"),
    ],
)
def test_bad_options_are_refused(options, error, message):
    with pytest.raises(error, match=message):
        corpus_chrf(["a"], ["a"], **options)


def test_what_is_not_exact_on_ids_is_refused_and_bad_input_keeps_the_state():
    detok = Vocabulary("unigram").detokenizer
    for option in ("lowercase", "whitespace"):
        with pytest.raises(ValueError, match=f"{option}=True is not computed on ids"):
            CHRFScore(detokenizer=detok, **{option: True})
    metric = CHRFScore()
    metric.update(["a b"], ["a b"])
    before = metric.statistics.clone()
    with pytest.raises(TypeError, match="must be a string"):
        metric.update([[1, 2]], ["a b"])
    with pytest.raises(ValueError, match="batch sizes differ"):
        metric.update(["a", "b"], ["a"])
    assert torch.equal(metric.statistics, before)
