"""Counting whole corpora for the command line: NumPy on the host and the tensor engine give sacrebleu's integers.

Random corpora of several systems and references (empty lines, repeated words, long lines included)
are counted by :func:`corpus_statistics`, with the engine on NumPy arrays and on PyTorch tensors, and
compared, row for row, with the statistics sacrebleu extracts from the same text.
"""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import WORDS, word_corpora

from torch_bleu.metrics.bleu import corpus
from torch_bleu.metrics.bleu.corpus import corpus_statistics, length_sorted_batches
from torch_bleu.text.vocabulary import TokenStream, Vocabulary

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU  # noqa: E402

corpora = word_corpora(sizes=(1, 25), systems=(1, 5), references=(1, 3), max_len=14)


def sacrebleu_rows(systems, references, order):
    metric = BLEU(tokenize="none", max_ngram_order=order)
    return [metric._extract_corpus_statistics(system, references) for system in systems]


def encode(systems, references):
    vocabulary = Vocabulary()
    refs = [vocabulary.encode(line.split() for line in stream) for stream in references]
    return [vocabulary.encode(line.split() for line in system) for system in systems], refs


@settings(max_examples=150)
@given(corpora, st.integers(1, 6), st.sampled_from([1, 40, 2**16]))
def test_host_and_device_statistics_are_sacrebleus(corpus, order, max_slots):
    systems, references = corpus
    expected = sacrebleu_rows(systems, references, order)
    system_ids, reference_ids = encode(systems, references)
    host = corpus_statistics(system_ids, reference_ids, order, max_slots=max_slots)
    assert host.dtype == np.int64 and host.tolist() == expected
    assert corpus_statistics(system_ids, reference_ids, order, "cpu", max_slots=max_slots).tolist() == expected


def test_long_lines_and_many_repeats():
    rng = np.random.default_rng(0)
    references = [[" ".join(rng.choice(WORDS, size=3000)), "a " * 500, ""]]
    systems = [[" ".join(rng.choice(WORDS, size=2500)), "a " * 700, "a"], ["b", "", ""]]
    system_ids, reference_ids = encode(systems, references)
    assert corpus_statistics(system_ids, reference_ids, 4).tolist() == sacrebleu_rows(systems, references, 4)


def test_progress_counts_sentences(monkeypatch):
    system_ids, reference_ids = encode([["a b", "c", "d d"]], [["a b", "c", "d"], ["c", "a", "d"]])
    done = []
    corpus_statistics(system_ids, reference_ids, progress=done.append, max_slots=4)
    assert sum(done) == 3 and len(done) > 1
    done.clear()
    corpus_statistics(system_ids * 6, reference_ids, device="cpu", progress=done.append)
    assert sum(done) == 18
    done.clear()
    monkeypatch.setattr(corpus, "PAIRS_PER_BLOCK", 2)  # one reference, on the host: pairs, two sentences a time
    corpus_statistics(system_ids * 2, reference_ids[:1], progress=done.append)
    assert done == [2, 1, 2, 1]


def test_any_int64_word_ids_count_exactly():
    """The engine ranks ids within each sentence, so word ids need not be small."""
    hypothesis = TokenStream(np.array([2**62, 1, -5, 2**62]), np.array([4]))
    reference = TokenStream(np.array([1, 2**62, -5, 2**62]), np.array([4]))
    assert corpus_statistics([hypothesis], [reference], 2).tolist() == [[[4, 4, 4, 1, 4, 3]]]


def test_length_sorted_batches_cover_every_sentence_once():
    costs = [7, 0, 3, 3, 12, 1, 1, 5]
    batches = length_sorted_batches(costs, max_slots=8)
    assert sorted(index for batch in batches for index in batch) == list(range(len(costs)))
    assert all(len(batch) * max(max(costs[i] for i in batch), 1) <= 8 or len(batch) == 1 for batch in batches)


@pytest.mark.parametrize(
    ("metric", "expected"),
    [(["-m", "bleu"], "53.7"), (["-m", "chrf", "-cw", "2", "--paired-bs", "-pbsn", "20"], None)],
)
def test_command_line_on_cpu_does_not_import_torch(tmp_path, metric, expected):
    (tmp_path / "ref").write_text("the cat sat on the mat\n")
    (tmp_path / "hyp").write_text("the cat sat on a mat\n")
    (tmp_path / "other").write_text("a cat sat on the mat\n")
    systems = ["hyp"] if expected else ["hyp", "other"]
    code = (
        "import sys; from torch_bleu.cli import main; "
        f"status = main(['ref', '-i', *{systems!r}, '--device', 'cpu', '-b', *{metric!r}]); "
        "print('torch' in sys.modules); sys.exit(status)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout.split()[-1] == "False"
    if expected:
        assert done.stdout.split() == [expected, "False"]  # sacrebleu prints 53.7 too
