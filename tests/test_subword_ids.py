"""Subword ids scored as sacrebleu scores their decoded text (``detokenizer=``), compared with the real libraries.

Every check decodes the same ids with the real tokenizer (SentencePiece, Hugging Face tokenizers,
transformers), scores the text with sacrebleu, and asks for the same integers (statistics) and the
same floats (scores). The tokenizers are trained here, offline, on the corpus the tests carry
(:mod:`subword_tokenizers`). Random ids reach what real outputs rarely do: byte pieces that form
ill-formed UTF-8, control and special ids in the middle of a row, unknown pieces, HTML entities
split across pieces.

Each test that goes through the pipeline runs twice: with the widths CPU tensors take from their
data, and with the static widths (from shapes alone) that accelerators and ``meta`` use.
"""

from __future__ import annotations

import io
import random
import sys

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import row_words
from shared_data import WMT17
from subword_tokenizers import (
    BOS_ID,
    CORPUS,
    EOS_ID,
    PAD_ID,
    cached_metaspace_bpe,
    cached_sentencepiece,
    cached_wordpiece,
    requires,
)
from vocabularies import SENTENCEPIECE_KINDS, Vocabulary

import torch_bleu
from torch_bleu import BLEUScore, Detokenizer, arrays, bleu_statistics, corpus_bleu, sentence_bleu
from torch_bleu.detokenize.pipeline import decoded_chars
from torch_bleu.detokenize.utf8 import RAW, decode_units
from torch_bleu.text.code_points import replace_all, rows_from_strings, strings_from_rows
from torch_bleu.text.sacrebleu_words import preprocess, word_starts
from torch_bleu.text.tokenizers import TOKENIZERS_ON_CODE_POINTS
from torch_bleu.text.word_ids import word_rows

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU  # noqa: E402

CPU = torch.device("cpu")
CORPUS_LINES = CORPUS.read_text(encoding="utf-8").splitlines()
SLOW = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(params=["widths from data", "static widths"], autouse=True)
def widths(request, monkeypatch):
    """Run each test with CPU widths read from the data, and with the static widths of accelerators."""
    monkeypatch.setattr(arrays, "SIZES_FROM_DATA_ON_CPU", request.param == "widths from data")


# --- text on code points: sacrebleu's tokenizers, str.replace, UTF-8 -------------------------------------

ADVERSARIAL = st.lists(
    st.sampled_from(
        [
            *"ab5.,-&;<>/\n\t ()'\"qultgmp",
            *("\u00a0", "\u3000", "\x1c", "\u200b", "\u0085", "é", "€", "😀", "\ufffd"),
            *("中", "。", "¿", "«", "$", "½", "٣", "\uff0e", "—", "!", "%"),
            *("&amp;", "&quot;", "&lt;", "&gt;", "&amp;lt;", "<skipped>", "-\n", "..", ",,", "3.5", "1,000", "5-"),
        ]
    ),
    max_size=25,
).map("".join)


def _words(strings: list[str], tokenize: str) -> list[list[str]]:
    chars = preprocess(rows_from_strings(strings, CPU), tokenize)
    return row_words(chars, *word_starts(chars, tokenize))


@settings(max_examples=300, deadline=None)
@given(strings=st.lists(ADVERSARIAL, min_size=1, max_size=4), tokenize=st.sampled_from(TOKENIZERS_ON_CODE_POINTS))
def test_words_on_code_points_are_sacrebleus(strings, tokenize):
    tokenizer = BLEU(tokenize=tokenize).tokenizer
    assert _words(strings, tokenize) == [tokenizer(string.rstrip()).split() for string in strings]


def test_no_whitespace_lies_above_the_classified_code_points():
    from torch_bleu.text.classes import LAST_CLASSIFIED

    assert not any(chr(code).isspace() for code in range(LAST_CLASSIFIED + 1, sys.maxunicode + 1))


@settings(max_examples=100, deadline=None)
@given(strings=st.lists(ADVERSARIAL, min_size=1, max_size=4))
def test_word_ids_are_equal_exactly_for_equal_words(strings):
    # long words too: prefix doubling takes several rounds for them
    strings = [string.replace(" ", "") * 3 + " " + string for string in strings]
    chars = preprocess(rows_from_strings(strings, CPU), "13a")
    words = word_rows(chars, *word_starts(chars, "13a"))
    ids = [row[:length] for row, length in zip(words.ids.tolist(), words.lengths.tolist())]
    texts = [word for row in _words(strings, "13a") for word in row]
    flat = [word_id for row in ids for word_id in row]
    assert len(flat) == len(texts)
    for i in range(len(flat)):
        for j in range(len(flat)):
            assert (flat[i] == flat[j]) == (texts[i] == texts[j])


@settings(max_examples=200, deadline=None)
@given(text=ADVERSARIAL, pattern=st.sampled_from([" ' ", " .", " n't", "&amp;", "aa", "<skipped>", "-\n"]))
def test_replace_all_is_str_replace(text, pattern):
    replacement = pattern.strip() if pattern.strip() else pattern[:1]
    rows = rows_from_strings([text, "x" + text], CPU)
    assert strings_from_rows(replace_all(rows, pattern, replacement)) == [
        text.replace(pattern, replacement),
        ("x" + text).replace(pattern, replacement),
    ]


BYTES = st.lists(
    st.one_of(
        st.sampled_from([0x41, 0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0x9F, 0xA0, 0x8F]),
        st.integers(0, 255),
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(BYTES, min_size=1, max_size=3))
def test_ill_formed_utf8_is_replaced_as_python_does(rows):
    data = torch.full((len(rows), max(map(len, rows))), -1, dtype=torch.int32)
    for index, row in enumerate(rows):
        data[index, : len(row)] = torch.tensor(row, dtype=torch.int32) + RAW
    decoded = strings_from_rows(decode_units(data, "maximal_subpart"))
    assert decoded == [bytes(row).decode("utf-8", errors="replace") for row in rows]


# --- the tokenizers: ids decoded on the device equal their decode() --------------------------------------


@SLOW
@given(seed=st.integers(0, 2**32 - 1))
def test_decoded_text_is_the_tokenizers_decode(vocabulary, seed):
    rows = vocabulary.random_rows(random.Random(seed), count=6, longest=14)
    width = max(map(len, rows), default=0)
    ids = torch.tensor([row + [0] * (width - len(row)) for row in rows], dtype=torch.int64)
    keep = torch.arange(width) < torch.tensor([len(row) for row in rows]).unsqueeze(-1)
    ours = strings_from_rows(decoded_chars(ids, keep, vocabulary.detokenizer))
    theirs = [vocabulary.decode(row) for row in rows]
    if vocabulary.strip_leading_spaces:
        ours, theirs = [text.lstrip(" ") for text in ours], [text.lstrip(" ") for text in theirs]
    assert ours == theirs


def _sacrebleu_statistics(hypotheses: list[str], references: list[list[str]]) -> list[list[int]]:
    """Per sentence: hypothesis length, reference length, matches and totals, as sacrebleu counts them."""
    bleu = BLEU()
    rows = []
    for hypothesis, refs in zip(hypotheses, references):
        stats = bleu._extract_corpus_statistics([hypothesis], [[ref] for ref in refs])[0]
        rows.append([int(value) for value in stats])
    return rows


def _our_statistics(stats) -> list[list[int]]:
    return torch.cat([stats.preds_len[:, None], stats.target_len[:, None], stats.matches, stats.totals], 1).tolist()


@SLOW
@given(seed=st.integers(0, 2**32 - 1), references=st.integers(1, 3))
def test_statistics_and_scores_of_random_ids_are_sacrebleus(vocabulary, seed, references):
    rng = random.Random(seed)
    hypotheses = vocabulary.random_rows(rng, count=5, longest=16)
    targets = [vocabulary.random_rows(rng, count=references, longest=16) for _ in hypotheses]
    hypothesis_text = [vocabulary.decode(row) for row in hypotheses]
    reference_text = [[vocabulary.decode(row) for row in refs] for refs in targets]
    detok = vocabulary.detokenizer

    stats = bleu_statistics(hypotheses, targets, detokenizer=detok)
    assert _our_statistics(stats) == _sacrebleu_statistics(hypothesis_text, reference_text)

    corpus = corpus_bleu(hypotheses, targets, detokenizer=detok, smoothing="exp").item()
    streams = [list(stream) for stream in zip(*reference_text)]
    assert corpus * 100 == pytest.approx(BLEU().corpus_score(hypothesis_text, streams).score, abs=1e-10)

    sentences = sentence_bleu(hypotheses, targets, detokenizer=detok, smoothing="exp", effective_order=True)
    expected = [
        BLEU(effective_order=True).sentence_score(hyp, refs).score / 100
        for hyp, refs in zip(hypothesis_text, reference_text)
    ]
    assert sentences.tolist() == pytest.approx(expected, abs=1e-12)


def test_real_outputs_against_original_references(vocabulary):
    """Encoded sentences of the corpus, scored against other sentences given as the original strings."""
    hypotheses = [vocabulary.encode(line) for line in CORPUS_LINES[:120]]
    references = [[line, CORPUS_LINES[index + 1]] for index, line in enumerate(CORPUS_LINES[3:123])]
    metric = BLEUScore(detokenizer=vocabulary.detokenizer, smoothing="exp")
    metric.update(hypotheses[:50], references[:50])
    metric.update(hypotheses[50:], references[50:])
    decoded = [vocabulary.decode(row) for row in hypotheses]
    theirs = BLEU().corpus_score(decoded, [list(stream) for stream in zip(*references)])
    assert metric.numerator.tolist() == theirs.counts and metric.denominator.tolist() == theirs.totals
    assert (metric.preds_len.item(), metric.target_len.item()) == (theirs.sys_len, theirs.ref_len)
    assert metric.compute().item() * 100 == pytest.approx(theirs.score, abs=1e-10)


@SLOW
@given(hypotheses=st.lists(ADVERSARIAL, min_size=1, max_size=5), shift=st.integers(0, 4))
def test_adversarial_strings_through_the_tokenizer(vocabulary, hypotheses, shift):
    """Entities, odd whitespace, runs of periods, emoji: encoded, then scored on the ids and as text."""
    references = [[hypotheses[(index + shift) % len(hypotheses)] + " a..5"] for index in range(len(hypotheses))]
    ids = [vocabulary.encode(text) for text in hypotheses]
    decoded = [vocabulary.decode(row) for row in ids]
    stats = bleu_statistics(ids, references, detokenizer=vocabulary.detokenizer)
    assert _our_statistics(stats) == _sacrebleu_statistics(decoded, references)


@pytest.mark.slow
def test_wmt17_systems_as_sentencepiece_ids():
    """Real outputs: two WMT17 systems, encoded with a model trained on the reference, against the reference text."""
    requires("sentencepiece")
    import sentencepiece

    if not WMT17.is_dir():
        pytest.skip(f"needs the WMT17 data beside the checkout ({WMT17})")
    reference = (WMT17 / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(reference),
        model_writer=model,
        vocab_size=4000,
        byte_fallback=True,
        num_threads=1,
        minloglevel=2,
    )
    processor = sentencepiece.SentencePieceProcessor(model_proto=model.getvalue())
    detok = Detokenizer.from_sentencepiece(processor)
    for path in sorted(WMT17.glob("sys.*.de"))[:2]:
        output = processor.encode(path.read_text(encoding="utf-8").splitlines())
        metric = BLEUScore(detokenizer=detok, smoothing="exp")
        for start in range(0, len(output), 500):
            metric.update(output[start : start + 500], reference[start : start + 500])
        theirs = BLEU().corpus_score([processor.decode(row) for row in output], [reference])
        assert metric.numerator.tolist() == theirs.counts and metric.denominator.tolist() == theirs.totals
        assert (metric.preds_len.item(), metric.target_len.item()) == (theirs.sys_len, theirs.ref_len)
        assert metric.compute().item() * 100 == pytest.approx(theirs.score, abs=1e-10)


def test_padded_tensors_with_ignored_ids_equal_decoding_the_stripped_rows():
    vocabulary = Vocabulary("bpe with byte fallback")
    rows = [vocabulary.encode(line) for line in CORPUS_LINES[:16]]
    width = max(map(len, rows)) + 2
    ids = torch.full((16, width), PAD_ID)
    for index, row in enumerate(rows):
        ids[index, : len(row) + 2] = torch.tensor([BOS_ID, *row, EOS_ID])
    target = ids.roll(1, 0)
    score = corpus_bleu(ids, target, detokenizer=vocabulary.detokenizer, ignore_ids=[PAD_ID, BOS_ID, EOS_ID])
    decoded = [vocabulary.decode(row) for row in rows]
    theirs = BLEU(smooth_method="none").corpus_score(decoded, [decoded[-1:] + decoded[:-1]])
    assert score.item() * 100 == pytest.approx(theirs.score, abs=1e-10)


def test_empty_batches_other_dtypes_and_views():
    vocabulary = Vocabulary("unigram")
    detok = vocabulary.detokenizer
    empty = torch.zeros((0, 5), dtype=torch.int64)
    assert bleu_statistics(empty, empty, detokenizer=detok).matches.shape == (0, 4)
    rows = [vocabulary.encode(line) for line in CORPUS_LINES[:6]]
    ids = torch.full((6, max(map(len, rows))), PAD_ID)
    for index, row in enumerate(rows):
        ids[index, : len(row)] = torch.tensor(row)
    expected = corpus_bleu(ids, ids.flip(0), detokenizer=detok, ignore_ids=[PAD_ID])
    for dtype in (torch.int32, torch.int16):
        assert corpus_bleu(ids.to(dtype), ids.flip(0), detokenizer=detok, ignore_ids=[PAD_ID]) == expected
    wide = torch.full((6, 2 * ids.shape[1]), PAD_ID)
    wide[:, ::2] = ids
    view = wide[:, ::2]  # a strided view
    assert not view.is_contiguous()
    assert corpus_bleu(view, ids.flip(0), detokenizer=detok, ignore_ids=[PAD_ID]) == expected


# --- the metric: states, devices, compile ---------------------------------------------------------------


def test_update_runs_on_meta():
    vocabulary = Vocabulary("unigram")
    metric = BLEUScore(detokenizer=vocabulary.detokenizer, ignore_ids=[PAD_ID]).to("meta")
    ids = torch.randint(0, vocabulary.size, (4, 9), device="meta")
    metric.update(ids, ids)
    assert metric.numerator.device.type == "meta"


def test_statistics_equal_those_of_the_decoded_strings_and_name_their_counting():
    """Decoded ids count the words of their text: a text metric with the same tokenizer gets the same states.
    Their fingerprints differ all the same (a detokenizer and its ignored ids decide what is counted), so
    neither takes the other's states."""
    vocabulary = Vocabulary("unigram")
    rows = [vocabulary.encode(line) for line in CORPUS_LINES[:8]]
    on_ids = BLEUScore(detokenizer=vocabulary.detokenizer, ignore_ids=[PAD_ID])
    on_ids.update(rows, [[line] for line in CORPUS_LINES[1:9]])
    on_text = BLEUScore(tokenize="13a")
    on_text.update([vocabulary.decode(row) for row in rows], CORPUS_LINES[1:9])
    assert all(torch.equal(getattr(on_ids, name), getattr(on_text, name)) for name in BLEUScore.state_names)
    assert on_text.compute().item() == on_ids.compute().item()
    on_ids.persistent(True)
    state = on_ids.state_dict()
    for other in (on_text, BLEUScore(ignore_ids=[PAD_ID]), BLEUScore(detokenizer=vocabulary.detokenizer)):
        with pytest.raises(ValueError, match="counted otherwise"):
            other.load_state_dict(state)


@pytest.mark.parametrize(
    "widths", [pytest.param("widths from data", marks=pytest.mark.slow), "static widths"], indirect=True
)
def test_compiled_fullgraph_equals_eager():
    vocabulary = Vocabulary("bpe with byte fallback")
    rng = random.Random(0)
    rows = vocabulary.random_rows(rng, count=4, longest=10)
    ids = torch.tensor([row + [PAD_ID] * (10 - len(row)) for row in rows])
    target = ids.flip(0).unsqueeze(1)
    options = {"detokenizer": vocabulary.detokenizer, "ignore_ids": [PAD_ID]}
    eager = torch_bleu.bleu_statistics(ids, target, **options)
    torch._dynamo.reset()
    compiled = torch.compile(torch_bleu.bleu_statistics, fullgraph=True, backend="eager")
    assert _our_statistics(compiled(ids, target, **options)) == _our_statistics(eager)


@pytest.mark.slow
@pytest.mark.parametrize("references", ["ids", "strings"])
def test_compiled_metric_equals_eager(references):
    vocabulary = Vocabulary("unigram")
    rows = [vocabulary.encode(line) for line in CORPUS_LINES[:12]]
    target = [[row] for row in rows[1:] + rows[:1]]
    if references == "strings":
        target = [[vocabulary.decode(refs[0])] for refs in target]
    eager = BLEUScore(detokenizer=vocabulary.detokenizer)
    compiled = BLEUScore(detokenizer=vocabulary.detokenizer, compile={"backend": "eager"})
    for metric in (eager, compiled):
        metric.update(rows[:7], target[:7])
        metric.update(rows[7:], target[7:])
    assert (
        compiled.numerator.tolist() == eager.numerator.tolist()
        and compiled.denominator.tolist() == eager.denominator.tolist()
    )
    assert compiled.compute().item() == eager.compute().item()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("kind", ["bpe with byte fallback", "transformers, clean-up"])
def test_update_on_cuda_equals_cpu_without_host_syncs(kind):
    vocabulary = Vocabulary(kind)
    pad = PAD_ID if kind in SENTENCEPIECE_KINDS else 0
    rows = [vocabulary.encode(line) for line in CORPUS_LINES[:8]]
    rows += [[token for token in row if token != pad] for row in vocabulary.random_rows(random.Random(1), 8, 20)]
    ids = torch.full((len(rows), max(map(len, rows))), pad)
    for index, row in enumerate(rows):
        ids[index, : len(row)] = torch.tensor(row, dtype=torch.int64)
    target = ids.flip(0)
    on_cpu = BLEUScore(detokenizer=vocabulary.detokenizer, ignore_ids=[pad])
    on_cpu.update(ids, target)
    on_cuda = BLEUScore(detokenizer=vocabulary.detokenizer, ignore_ids=[pad]).cuda()
    on_cuda.update(ids.cuda(), target.cuda())  # the first update moves the tables to the device
    on_cuda.reset()
    ids, target = ids.cuda(), target.cuda()
    torch.cuda.set_sync_debug_mode("error")
    try:
        on_cuda.update(ids, target)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert on_cuda.numerator.tolist() == on_cpu.numerator.tolist()
    assert (on_cuda.preds_len.item(), on_cuda.target_len.item()) == (on_cpu.preds_len.item(), on_cpu.target_len.item())


# --- limits, said plainly --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, message",
    [
        ({"lowercase": True}, "lowercase=True is not computed on ids"),
        ({"tokenize": "ja-mecab"}, "tokenize='ja-mecab' is not reproduced on decoded ids"),
        ({"tokenize": "ko-mecab"}, "pass the strings with tokenize="),
    ],
)
def test_what_is_not_exact_on_ids_is_refused(options, message):
    with pytest.raises(ValueError, match=message):
        BLEUScore(detokenizer=Vocabulary("unigram").detokenizer, **options)


@pytest.mark.parametrize("train", [cached_metaspace_bpe, cached_wordpiece])
def test_decoders_other_than_byte_level_are_refused(train):
    requires("tokenizers")
    with pytest.raises(ValueError, match="only byte-level decoders"):
        Detokenizer.from_huggingface(train())


def test_a_detokenizer_of_another_kind_is_a_type_error():
    with pytest.raises(TypeError, match=r"detokenizer must be a torch_bleu\.Detokenizer"):
        corpus_bleu([[1]], [[[1]]], detokenizer="sentencepiece.model")
    with pytest.raises(TypeError, match="SentencePieceProcessor or a model path"):
        Detokenizer.from_sentencepiece(object())


def test_bad_ids_and_strings_are_refused_and_states_kept():
    vocabulary = Vocabulary("unigram")
    metric = BLEUScore(detokenizer=vocabulary.detokenizer)
    metric.update([[5, 6, 7]], [[[5, 6, 7]]])
    before = [metric.numerator.clone(), metric.preds_len.clone()]
    # refused at once on the CPU (on an accelerator by a device-side assert, which ends the process's CUDA)
    with pytest.raises(ValueError, match=f"token id {vocabulary.size} is outside"):
        metric.update(torch.tensor([[5, vocabulary.size]], device="cpu"), torch.tensor([[5, 6]], device="cpu"))
    metric.update([[5]], [[[-1]]])  # negative ids are never tokens: dropped, not looked up
    assert metric.target_len.item() == before[1].item() and metric.preds_len.item() == before[1].item() + 1
    before = [metric.numerator.clone(), metric.preds_len.clone()]
    with pytest.raises(TypeError, match="preds holds strings"):
        metric.update(["a b"], ["a b"])
    assert torch.equal(metric.numerator, before[0]) and torch.equal(metric.preds_len, before[1])


def test_sentencepiece_model_path_and_repr(tmp_path):
    requires("sentencepiece")
    processor = cached_sentencepiece("unigram")
    path = tmp_path / "m.model"
    path.write_bytes(processor.serialized_model_proto())
    from_path = Detokenizer.from_sentencepiece(path)
    assert from_path.entries == Detokenizer.from_sentencepiece(processor).entries
    assert repr(from_path) == f"Detokenizer(sentencepiece, {processor.get_piece_size()} ids, clean_up=False)"
