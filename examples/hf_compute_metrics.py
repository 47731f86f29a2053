"""BLEU in a Hugging Face ``Seq2SeqTrainer``: a ``compute_metrics`` that scores the ids as they come.

With ``predict_with_generate=True`` the trainer hands ``compute_metrics`` an ``EvalPrediction`` of NumPy
arrays: the generated ids and the labels. Both are padded to a common width, the labels with -100
(the id the loss ignores), the generations with the tokenizer's pad id and, across batches, -100 as
well. Negative ids are never tokens, so -100 is dropped wherever it occurs, and ``ignore_ids`` drops
the special ids: nothing needs decoding or stripping.

    special_ids = [tokenizer.pad_token_id, tokenizer.eos_token_id, model.config.decoder_start_token_id]
    trainer = Seq2SeqTrainer(model, args, ..., compute_metrics=make_compute_metrics(special_ids))

The numbers are corpus BLEU on token ids (sacrebleu's rules, ids as words). Run this file to see the
function on arrays laid out as the trainer lays them out:

    python examples/hf_compute_metrics.py
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import torch_bleu

#: The label id Hugging Face's losses ignore, and its data collators pad labels with.
LABEL_PAD = -100


def make_compute_metrics(special_ids: Sequence[int | None]) -> Callable[[Any], dict[str, float]]:
    """A ``compute_metrics`` for ``Seq2SeqTrainer(predict_with_generate=True)``.

    ``special_ids`` are the tokenizer's pad, start and end ids, e.g.
    ``[tokenizer.pad_token_id, tokenizer.eos_token_id, model.config.decoder_start_token_id]``; ``None``
    entries (an id the model does not set) are skipped.
    """
    ignore_ids = sorted({token for token in special_ids if token is not None})  # -100 is dropped as negative

    def compute_metrics(eval_pred: Any) -> dict[str, float]:
        predictions, labels = eval_pred  # an EvalPrediction unpacks to (predictions, label_ids)
        if isinstance(predictions, tuple):  # some models return more than the ids
            predictions = predictions[0]
        bleu = torch_bleu.corpus_bleu(predictions, labels, ignore_ids=ignore_ids)
        return {"bleu": 100 * bleu.item()}

    return compute_metrics


def trainer_like_arrays(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Generated ids and labels as the trainer gathers them: padded, labels with -100."""
    rng = np.random.default_rng(seed)
    pad, eos, start = 0, 1, 2
    labels = np.full((8, 12), LABEL_PAD)
    predictions = np.full((8, 14), LABEL_PAD)  # batches of different widths, concatenated with -100
    for row in range(8):
        sentence = rng.integers(3, 40, size=rng.integers(4, 11))
        generated = sentence.copy()
        generated[rng.random(len(sentence)) < 0.2] = rng.integers(3, 40)  # a few wrong words
        labels[row, : len(sentence) + 1] = [*sentence, eos]
        width = len(generated) + 2 + row % 2  # some rows keep pad ids from their own batch
        predictions[row, :width] = [start, *generated, eos, pad][:width]
    return predictions, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    predictions, labels = trainer_like_arrays(args.seed)
    compute_metrics = make_compute_metrics(special_ids=[0, 1, 2])
    print(f"predictions {predictions.shape}, labels {labels.shape} (padded with -100 and the pad id)")
    print(compute_metrics((predictions, labels)))


if __name__ == "__main__":
    main()
