"""Typical use of torch-bleu: mypy --strict and pyright pass it as it is."""

from __future__ import annotations

import torch
from torch import Tensor

from torch_bleu import (
    BLEUOptions,
    BLEUScore,
    CHRFScore,
    SentenceReward,
    TERScore,
    aggregate_chrf,
    bleu_statistics,
    corpus_bleu,
    corpus_chrf,
    corpus_ter,
    mbr_select,
    paired_bootstrap,
    paired_randomization,
    pairwise_bleu,
    pairwise_chrf,
    pairwise_rouge,
    self_bleu,
    sentence_bleu,
    sentence_chrf,
    sentence_ter,
    set_cpu_threads,
)

PAD, BOS, EOS = 0, 1, 2
preds = torch.tensor([[BOS, 5, 6, 7, EOS, PAD]])
target = torch.tensor([[BOS, 5, 6, 8, EOS]])

metric = BLEUScore(ignore_ids=[PAD, BOS], eos_id=EOS, smoothing="floor", sync_on_compute=False)
metric.update(preds, target, weight=torch.tensor([True]))
score: Tensor = metric.compute()
compiled = BLEUScore(ignore_ids=torch.tensor([PAD]), compile={"mode": "reduce-overhead"})
nltk_like = BLEUScore(convention="nltk", smoothing="method1", weights=(0.5, 0.5))
text_metric = BLEUScore(tokenize="13a", lowercase=True)
text_metric.update(["the cat sat"], [["the cat sat", "a cat sat"]])

options: BLEUOptions = {"max_order": 2, "smoothing": "exp", "ignore_ids": (PAD,)}
corpus: Tensor = corpus_bleu(preds, target, **options)
per_sentence: Tensor = sentence_bleu([[5, 6, 7]], [[[5, 6, 7]]], convention="nltk", smoothing="method7")
statistics = bleu_statistics(preds, target, eos_id=EOS, algorithm="sorted")
matches: Tensor = statistics.matches

chrf = CHRFScore(word_order=2, beta=2, process_group=None)
chrf.update(["the cat sat"], [["the cat sat"]])
ter = TERScore(normalized=True, case_sensitive=True, compute_on_cpu=True)
ter.update(["the cat sat"], ["the cat sat down"])
text_scores = [
    corpus_chrf(["a b"], ["a b"], eps_smoothing=True),
    sentence_chrf(["a b"], [["a b", "a c"]], char_order=4),
    corpus_ter(["a b"], ["a b"], no_punct=True),
    sentence_ter(["a b"], ["a b"], asian_support=True),
]

candidates = [["the cat sat", "a cat sat", "the cat"]]
utilities: Tensor = pairwise_chrf(candidates, word_order=2)
chosen: Tensor = mbr_select(utilities)
expected: Tensor = aggregate_chrf(candidates, None, torch.ones(1, 3), word_order=2)
chosen_by_aggregate: Tensor = mbr_select(expected)
diversity: Tensor = self_bleu(candidates, smoothing="exp", effective_order=True)
against: Tensor = pairwise_bleu(candidates, [["the cat sat"]], tokenize="intl")
summaries: Tensor = pairwise_rouge(candidates, rouge_type="rougeLsum", use_stemmer=True)

bleu_reward = SentenceReward(smoothing="exp", effective_order=True)
chrf_reward = SentenceReward("chrf", reference_column="answer", word_order=2)
rouge_reward = SentenceReward("rouge", rouge_type="rouge2", use_stemmer=True)
rewards: list[float] = chrf_reward(completions=["the cat"], answer=["the cat"])

epoch = CHRFScore(keep_sentences=True)
epoch.update(["the cat sat"], ["the cat sat"])
best: CHRFScore = epoch.clone()  # the metric's own type, not torchmetrics' Metric
p_value: float = paired_bootstrap(best, epoch, resamples=10)[0].p_value
p_value = paired_randomization(best, epoch, trials=10)[0].p_value

set_cpu_threads(2)
