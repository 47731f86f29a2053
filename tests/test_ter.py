"""TER against sacrebleu's ``TER``: edits of adversarial word sequences, statistics and scores of strings
with every option, several references, subword ids, the metric's life cycle and real data.

sacrebleu's shift search has limits (blocks of 10 words, 50 positions apart, 1000 candidates per
sentence, a beam of 25 columns): the word sequences are drawn to reach each of them, with shuffled
blocks of real sentences, lengths far apart, and few distinct words.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_data import WMT17
from subword_tokenizers import CORPUS, PAD_ID
from vocabularies import Vocabulary

from torch_bleu import BLEUScore, CHRFScore, TERConfig, TERScore, corpus_ter, sentence_ter
from torch_bleu.metrics.ter import shifts
from torch_bleu.metrics.ter.counting import sentence_statistics
from torch_bleu.metrics.ter.shifts import edit_counts
from torch_bleu.metrics.ter.statistics import LENGTH_UNIT

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import TER, lib_ter  # noqa: E402

CORPUS_LINES = CORPUS.read_text(encoding="utf-8").splitlines()
CORPUS_WORDS = " ".join(CORPUS_LINES).split()


def our_edits(pairs: list[tuple[list[str], list[str]]]) -> list[int]:
    """Our edits of word-list pairs, the words numbered together."""
    numbers: dict[str, int] = {}
    hyps = [[numbers.setdefault(word, len(numbers)) for word in hyp] for hyp, _ in pairs]
    refs = [[numbers.setdefault(word, len(numbers)) for word in ref] for _, ref in pairs]

    def flat(rows):
        return np.array([w for row in rows for w in row], dtype=np.int64), np.array([len(row) for row in rows])

    return edit_counts(*flat(hyps), *flat(refs)).tolist()


def checked_candidates(hyp: list[str], ref: list[str]) -> int:
    """How many shift candidates sacrebleu checks for one pair, over all its rounds."""
    seen = []
    original = lib_ter._shift

    def counting(*args):
        result = original(*args)
        seen.append(result[2])
        return result

    lib_ter._shift = counting
    try:
        lib_ter.translation_edit_rate(hyp, ref)
    finally:
        lib_ter._shift = original
    return max(seen, default=0)


@st.composite
def word_pairs(draw):
    """A reference and a hypothesis: random words, or the reference with blocks moved, cut or changed."""
    vocabulary = [str(word) for word in range(draw(st.integers(1, 8)))]
    words = st.sampled_from(vocabulary)
    longest = draw(st.sampled_from([4, 12, 30, 70]))
    ref = draw(st.lists(words, max_size=longest))
    if not ref or draw(st.booleans()):
        return draw(st.lists(words, max_size=draw(st.sampled_from([4, 12, 30, 70])))), ref
    hyp = list(ref)
    for _ in range(draw(st.integers(0, 6))):
        start = draw(st.integers(0, len(hyp)))
        block = hyp[start : start + draw(st.integers(1, 12))]
        del hyp[start : start + len(block)]
        kind = draw(st.sampled_from(["move", "move", "drop", "change"]))
        if kind == "move":
            at = draw(st.integers(0, len(hyp)))
            hyp[at:at] = block
        elif kind == "change":
            hyp[start:start] = [draw(words) for _ in block]
    return hyp, ref


@settings(max_examples=300, deadline=None)
@given(pairs=st.lists(word_pairs(), min_size=1, max_size=8))
def test_edits_of_adversarial_word_sequences_are_sacrebleus(pairs):
    assert our_edits(pairs) == [lib_ter.translation_edit_rate(hyp, ref)[0] for hyp, ref in pairs]


def test_lengths_far_apart_widen_the_beam_as_sacrebleu_does():
    rng = random.Random(3)
    pairs = []
    for short, long in ((1, 60), (2, 130), (3, 200), (40, 140)):
        few, many = [rng.choice("ab") for _ in range(short)], [rng.choice("abc") for _ in range(long)]
        pairs += [(few, many), (many, few)]
    assert our_edits(pairs) == [lib_ter.translation_edit_rate(hyp, ref)[0] for hyp, ref in pairs]


def shuffled_blocks(rng: random.Random, length: int) -> tuple[list[str], list[str]]:
    """A run of real words and the same words with blocks of them shuffled."""
    start = rng.randrange(len(CORPUS_WORDS) - length)
    ref = CORPUS_WORDS[start : start + length]
    blocks = [ref[at : at + rng.randint(1, 4)] for at in range(0, length, 4)]
    rng.shuffle(blocks)
    return [word for block in blocks for word in block], ref


def test_a_sentence_reaching_the_candidate_limit_stops_as_sacrebleus():
    rng = random.Random(11)
    hyp, ref = shuffled_blocks(rng, 70)
    hyp = hyp + [word.lower() for word in hyp[:20]]  # repeated words: many candidate blocks
    assert checked_candidates(hyp, ref) >= shifts.MAX_CANDIDATES
    pairs = [(hyp, ref), shuffled_blocks(rng, 30)]
    assert our_edits(pairs) == [lib_ter.translation_edit_rate(h, r)[0] for h, r in pairs]


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), length=st.integers(40, 120))
def test_long_shuffled_real_sentences_are_sacrebleus(seed, length):
    rng = random.Random(seed)
    pairs = [shuffled_blocks(rng, length) for _ in range(3)]
    assert our_edits(pairs) == [lib_ter.translation_edit_rate(hyp, ref)[0] for hyp, ref in pairs]


PIECES = [
    *"abcab.,!?'\"()-:;",
    *("the", "The", "cat", "'s", "n't", "3.5", "1,000", "3-4", "--", "é", "Ünïcode", "猫が", "ひらがな", "カタカナ"),
    *(
        " ",
        "  ",
        "\t",
        "\u00a0",
        "\u3000",
        "\n",
        "\n-",
        "😀",
        "&amp;",
        "&quot;",
        "&lt;",
        "&gt;",
        "。",
        "\uff0c",
        "\uff0e",
    ),
]
sentences = st.lists(st.sampled_from(PIECES), max_size=16).map("".join)


@st.composite
def batches(draw):
    size = draw(st.integers(1, 5))
    hypotheses = draw(st.lists(sentences, min_size=size, max_size=size))
    references = [draw(st.lists(sentences, min_size=1, max_size=3)) for _ in range(size)]
    return hypotheses, references


options = st.fixed_dictionaries(
    {name: st.booleans() for name in ("normalized", "no_punct", "asian_support", "case_sensitive")}
)


def theirs(hypothesis: str, references: list[str], ter) -> list[float]:
    """sacrebleu's statistics of one sentence: fewest edits and mean reference length."""
    return [float(value) for value in ter._extract_corpus_statistics([hypothesis], [[ref] for ref in references])[0]]


@settings(max_examples=200, deadline=None)
@given(batch=batches(), chosen=options)
def test_statistics_and_scores_from_strings_are_sacrebleus(batch, chosen):
    hypotheses, references = batch
    ter = TER(**chosen)
    stats = sentence_statistics(hypotheses, references, TERConfig(**chosen))
    expected = [theirs(hyp, refs, ter) for hyp, refs in zip(hypotheses, references)]
    assert stats[:, 0].tolist() == [edits for edits, _ in expected]
    assert (stats[:, 1].double() / LENGTH_UNIT).tolist() == pytest.approx([length for _, length in expected])

    streams = [[refs[index] if index < len(refs) else None for refs in references] for index in range(3)]
    if all(len(refs) == len(references[0]) for refs in references):
        corpus = corpus_ter(hypotheses, references, **chosen).item()
        assert corpus * 100 == pytest.approx(ter.corpus_score(hypotheses, streams).score, abs=1e-9)
    sentence = sentence_ter(hypotheses, references, **chosen).tolist()
    expected_sentences = [ter.sentence_score(hyp, refs).score / 100 for hyp, refs in zip(hypotheses, references)]
    assert sentence == pytest.approx(expected_sentences, abs=1e-12)


def test_empty_sides_and_a_hypothesis_longer_than_its_empty_reference():
    hypotheses, references = ["", "a b", "", "a"], [[""], [""], ["a b c"], ["", "a"]]
    ter = TER()
    stats = sentence_statistics(hypotheses, references, TERConfig())
    assert stats[:, 0].tolist() == [theirs(h, r, ter)[0] for h, r in zip(hypotheses, references)] == [0, 2, 3, 0]
    assert sentence_ter(hypotheses, references).tolist() == [0.0, 1.0, 1.0, 0.0]


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), as_text=st.booleans(), chosen=options)
def test_statistics_of_random_ids_are_sacrebleus_on_their_decoded_text(vocabulary, seed, as_text, chosen):
    rng = random.Random(seed)
    hypotheses = vocabulary.random_rows(rng, count=4, longest=14)
    hypotheses[0] = vocabulary.encode(CORPUS_LINES[seed % len(CORPUS_LINES)])
    targets = [vocabulary.random_rows(rng, count=rng.randint(1, 2), longest=14) for _ in hypotheses]
    targets[0][0] = vocabulary.encode(CORPUS_LINES[(seed + 1) % len(CORPUS_LINES)])
    reference_text = [[vocabulary.decode(row) for row in refs] for refs in targets]
    config = TERConfig(detokenizer=vocabulary.detokenizer, **chosen)
    stats = sentence_statistics(hypotheses, reference_text if as_text else targets, config)
    ter = TER(**chosen)
    expected = [theirs(vocabulary.decode(hyp), refs, ter) for hyp, refs in zip(hypotheses, reference_text)]
    assert stats[:, 0].tolist() == [edits for edits, _ in expected]


def test_padded_ids_with_eos_and_a_collection_beside_bleu_and_chrf():
    from torchmetrics import MetricCollection

    vocabulary = Vocabulary("bpe with byte fallback")
    rows = [vocabulary.encode(line) for line in CORPUS_LINES[:30]]
    references = [[line] for line in CORPUS_LINES[1:31]]
    ids = torch.full((30, max(map(len, rows)) + 2), PAD_ID)
    for index, row in enumerate(rows):
        ids[index, : len(row)] = torch.tensor(row)
        ids[index, len(row)] = 7  # an EOS, then something that must not count
        ids[index, len(row) + 1] = 9
    detok = vocabulary.detokenizer
    collection = MetricCollection(
        {
            "bleu": BLEUScore(detokenizer=detok, ignore_ids=[PAD_ID], eos_id=7),
            "chrf": CHRFScore(detokenizer=detok, ignore_ids=[PAD_ID], eos_id=7),
            "ter": TERScore(detokenizer=detok, ignore_ids=[PAD_ID], eos_id=7),
        }
    )
    collection.update(ids[:20], references[:20])
    collection.update(ids[20:], references[20:])
    decoded = [vocabulary.decode(row) for row in rows]
    expected = TER().corpus_score(decoded, [[refs[0] for refs in references]]).score
    assert collection.compute()["ter"].item() * 100 == pytest.approx(expected, abs=1e-9)


def test_states_merge_checkpoint_group_and_run_on_meta():
    first, second = TERScore(), TERScore()
    first.update(CORPUS_LINES[:5], CORPUS_LINES[5:10])
    second.update(CORPUS_LINES[10:15], [[line, "x"] for line in CORPUS_LINES[15:20]])
    first.merge_state(second)
    whole = TERScore()
    whole.update(CORPUS_LINES[:5], CORPUS_LINES[5:10])
    whole.update(CORPUS_LINES[10:15], [[line, "x"] for line in CORPUS_LINES[15:20]])
    assert torch.equal(first.edits, whole.edits) and torch.equal(first.reference_length, whole.reference_length)
    assert first.edits.dtype == first.reference_length.dtype == torch.int64
    restored = TERScore()
    first.persistent(True)
    restored.load_state_dict(first.state_dict())
    assert restored.compute().item() == whole.compute().item()
    with pytest.raises(ValueError, match="counted otherwise"):
        TERScore(normalized=True).merge_state(whole)

    weighted = TERScore()
    weighted.update(["a b", "c d e"], ["b a", "c"], weight=torch.tensor([2, 0], dtype=torch.uint8))
    assert weighted.edits.item() == 2 * 1 and weighted.reference_length.item() == 2 * 2 * LENGTH_UNIT

    on_meta = TERScore(detokenizer=Vocabulary("unigram").detokenizer, ignore_ids=[PAD_ID]).to("meta")
    ids = torch.randint(0, 100, (3, 7), device="meta")
    on_meta.update(ids, ids)
    assert on_meta.edits.device.type == "meta"


def test_wmt17_systems_from_text():
    if not WMT17.is_dir():
        pytest.skip(f"needs the WMT17 data beside the checkout ({WMT17})")
    reference = (WMT17 / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()[:600]
    for path in sorted(WMT17.glob("sys.*.de"))[:2]:
        system = path.read_text(encoding="utf-8").splitlines()[:600]
        metric = TERScore()
        for start in range(0, len(system), 256):
            metric.update(system[start : start + 256], reference[start : start + 256])
        expected = TER().corpus_score(system, [reference])
        assert metric.edits.item() == expected.num_edits
        assert metric.compute().item() * 100 == pytest.approx(expected.score, abs=1e-9)


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"ignore_ids": [0]}, ValueError, "ignore_ids is an option of subword ids"),
        ({"normalized": 1}, TypeError, "normalized must be a bool"),
        ({"normalize": True}, TypeError, "torchmetrics' normalize is normalized here"),
        ({"lowercase": False}, TypeError, "case_sensitive=True"),
    ],
)
def test_bad_options_are_refused(options, error, message):
    with pytest.raises(error, match=message):
        corpus_ter(["a"], ["a"], **options)


def test_bad_input_is_refused_and_keeps_the_states():
    metric = TERScore()
    metric.update(["a b"], ["b a"])
    before = (metric.edits.clone(), metric.reference_length.clone())
    with pytest.raises(TypeError, match="must be a string"):
        metric.update([[1, 2]], ["a b"])
    with pytest.raises(ValueError, match="batch sizes differ"):
        metric.update(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="at most 16 references"):
        metric.update(["a"], [["a"] * 17])
    with pytest.raises(TypeError, match="reads as torchmetrics' TERScore"):
        TERScore(True)
    assert (metric.edits, metric.reference_length) == before
    assert metric.compute().item() == 0.5
    assert not TERScore.higher_is_better
