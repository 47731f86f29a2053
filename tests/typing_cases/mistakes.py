"""Mistakes that mypy --strict and pyright report, each on the line marked ``# mistake``, and nothing else."""

from __future__ import annotations

import torch

from torch_bleu import (
    BLEUConfig,
    BLEUScore,
    CHRFScore,
    Detokenizer,
    SentenceReward,
    TERScore,
    corpus_bleu,
    corpus_chrf,
    pairwise_bleu,
    pairwise_rouge,
    self_bleu,
    sentence_ter,
)

ids = torch.tensor([[5, 6, 7]])

BLEUScore(max_ordr=4)  # mistake: a misspelled option
TERScore(normalised=True)  # mistake: a misspelled option
BLEUScore(smoothing=3)  # mistake: a smoothing is a name
corpus_bleu(ids, ids, eos_id="2")  # mistake: ids are ints
CHRFScore(word_order="2")  # mistake: an order is an int
BLEUScore(4)  # mistake: options go by name
BLEUScore(smoothing="flor")  # mistake: no such smoothing
BLEUScore(n_gram=4)  # mistake: torchmetrics' name of max_order
BLEUScore(sync_on_compute="yes")  # mistake: torchmetrics' flag is a bool
BLEUConfig(convention="moses")  # mistake: no such convention
corpus_chrf(["a"], ["a"], whitespace=1)  # mistake: a flag is a bool
sentence_ter(["a"], ["a"], normalize=True)  # mistake: torchmetrics' name of normalized
pairwise_bleu([["a"]], max_order="4")  # mistake: an order is an int
self_bleu([["a", "b"]], word_order=2)  # mistake: self-BLEU takes BLEU's options
SentenceReward("chrf", smoothing="exp")  # mistake: chrF has no smoothing
SentenceReward("bleu", word_order=2)  # mistake: BLEU has no word orders
SentenceReward("rouge", smoothing="exp")  # mistake: ROUGE has no smoothing
SentenceReward("rouge", rouge_type="rougeS")  # mistake: no such ROUGE type
pairwise_rouge([["a"]], rouge_type=1)  # mistake: a type is its name
Detokenizer.from_sentencepiece(3)  # mistake: a model or its path
BLEUScore(tokenize="moses")  # mistake: not one of sacrebleu's tokenizers
