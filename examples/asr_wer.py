"""WER and CER in a CTC validation loop: a tiny acoustic model, made here (no downloads), greedy CTC
decoding to padded character ids, ``CERScore`` updated with the ids on their device, and ``WERScore``
with the decoded text.

Run: ``python examples/asr_wer.py`` (a few seconds on a CPU). The model is untrained, so the scores
are high: what matters is the loop. CER needs no ``tolist`` and no strings: every id is a character
(spaces included). WER needs words, so it reads the text, split at spaces as jiwer splits it.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

import torch_bleu

BLANK = 0  # CTC's blank, and the padding of decoded rows
ALPHABET = " abcdefghijklmnopqrstuvwxyz"  # id i + 1 is ALPHABET[i]
SPACE_ID = 1


def greedy_ctc(log_probs: torch.Tensor) -> torch.Tensor:
    """``(B, T)`` character ids of greedy CTC decoding, repeats merged and blanks turned into padding."""
    best = log_probs.argmax(-1)
    repeated = torch.zeros_like(best, dtype=torch.bool)
    repeated[:, 1:] = best[:, 1:] == best[:, :-1]
    return torch.where(repeated, BLANK, best)


def decode(rows: torch.Tensor) -> list[str]:
    """The text of rows of character ids, padding dropped."""
    return ["".join(ALPHABET[i - 1] for i in row if i != BLANK) for row in rows.tolist()]


def main(batches: int = 3, seed: int = 0) -> dict[str, Any]:
    """CER and WER of ``batches`` batches of 4 utterances, with the decoded texts they were computed on."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, len(ALPHABET) + 1))
    cer = torch_bleu.CERScore(ignore_ids=[BLANK])
    wer = torch_bleu.WERScore()
    texts: dict[str, list[str]] = {"hypotheses": [], "references": []}
    for _ in range(batches):
        features = torch.randn(4, 40, 8)  # (B, T, features)
        labels = torch.randint(1, len(ALPHABET) + 1, (4, 20))  # character ids, padded with BLANK below
        labels[:, 15:] = BLANK
        with torch.no_grad():
            hypotheses = greedy_ctc(model(features).log_softmax(-1))
        cer.update(hypotheses, labels)  # the padded ids as they are
        hypothesis_text, reference_text = decode(hypotheses), decode(labels)
        wer.update(hypothesis_text, reference_text)  # words: the text, split at spaces
        texts["hypotheses"] += hypothesis_text
        texts["references"] += reference_text
    scores = {"cer": cer.compute().item(), "wer": wer.compute().item()}
    print(f"CER {scores['cer']:.4f}, WER {scores['wer']:.4f} ({4 * batches} utterances)")
    return {**scores, **texts}


if __name__ == "__main__":
    main()
