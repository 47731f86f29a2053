"""The numbers papers publish, from the subword ids a model emits: sacreBLEU and chrF++ in a validation loop.

A translation model emits SentencePiece ids; papers report sacreBLEU (and chrF) on the decoded text.
Instead of decoding every row on the CPU and calling sacrebleu, give the metrics a ``Detokenizer``
read from the SentencePiece model: the rows are decoded and tokenized on their device, and the scores
equal sacrebleu's on ``model.decode(row)``.

This script trains a small SentencePiece model on the sentences below (nothing is downloaded), makes
"model outputs" by editing the encoded references, pads them as a data loader does (BOS, EOS, PAD),
and runs the loop; with sacrebleu installed it checks the scores against sacrebleu's:

    python examples/subword_sacrebleu.py [--device cuda] [--batch-size 4]

It needs the ``subwords`` extra (``pip install -e '.[subwords]'``).
"""

from __future__ import annotations

import argparse
import io
import random
from collections.abc import Sequence
from typing import Any

import torch
from _device import usable_device

import torch_bleu

SENTENCES = [
    "The committee will meet again on Tuesday, 14 March, at 10:30.",
    "Prices rose by 3.5% last year - more than the bank had expected.",
    "\u201cWe can't wait any longer,\u201d she said; the others agreed.",
    "Die Regierung hat am Montag neue Regeln f\u00fcr den Stra\u00dfenverkehr beschlossen.",
    "Das Museum \u00f6ffnet t\u00e4glich von 9 bis 18 Uhr (au\u00dfer montags).",
    "He paid 1,250 euros for the flight & the hotel.",
    "The report - published on www.example.org - runs to 120 pages.",
    "Nach dem Spiel feierten die Fans bis sp\u00e4t in die Nacht.",
    "Is this the right way to the station?",
    "They'll arrive at 6 p.m., if the train isn't late.",
    "Die Temperaturen steigen am Wochenende auf \u00fcber 30 Grad.",
    "Our team won 3-1 after a difficult first half.",
] * 4
PAD, BOS, EOS, UNK = 0, 1, 2, 3


def train_sentencepiece(lines: Sequence[str]) -> Any:
    """A unigram SentencePiece model with byte fallback, trained in memory on ``lines``."""
    import sentencepiece

    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=model,
        vocab_size=420,
        hard_vocab_limit=False,
        model_type="unigram",
        byte_fallback=True,
        pad_id=PAD,
        bos_id=BOS,
        eos_id=EOS,
        unk_id=UNK,
        num_threads=1,
        minloglevel=2,
    )
    return sentencepiece.SentencePieceProcessor(model_proto=model.getvalue())


def padded(rows: Sequence[Sequence[int]], device: torch.device) -> torch.Tensor:
    """``[BOS] + row + [EOS]``, padded with PAD: what a data loader yields."""
    batch = torch.full((len(rows), max(map(len, rows)) + 2), PAD, dtype=torch.int64)
    for index, row in enumerate(rows):
        batch[index, : len(row) + 2] = torch.tensor([BOS, *row, EOS])
    return batch.to(device)


def model_outputs(references: Sequence[Sequence[int]], vocabulary: int, seed: int) -> list[list[int]]:
    """References with some pieces dropped or replaced: stand-ins for a model's generations."""
    rng = random.Random(seed)
    outputs = []
    for row in references:
        edited = [token for token in row if rng.random() > 0.1]
        outputs.append([rng.randrange(4, vocabulary) if rng.random() < 0.1 else token for token in edited])
    return outputs


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", type=usable_device, default="cpu", help="where the ids live (default: cpu)")
    parser.add_argument("--batch-size", type=int, default=8, help="sentences per batch (default: 8)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulated outputs (default: 0)")
    args = parser.parse_args(argv)
    device = args.device

    model = train_sentencepiece(SENTENCES)
    detokenizer = torch_bleu.Detokenizer.from_sentencepiece(model)
    references = model.encode(SENTENCES)
    hypotheses = model_outputs(references, model.get_piece_size(), args.seed)

    metrics = torch.nn.ModuleDict(
        {
            "sacreBLEU": torch_bleu.BLEUScore(detokenizer=detokenizer, ignore_ids=[PAD, BOS, EOS], smoothing="exp"),
            "chrF++": torch_bleu.CHRFScore(word_order=2, detokenizer=detokenizer, ignore_ids=[PAD, BOS, EOS]),
        }
    ).to(device)
    for start in range(0, len(SENTENCES), args.batch_size):  # the validation loop
        preds = padded(hypotheses[start : start + args.batch_size], device)
        target = padded(references[start : start + args.batch_size], device)
        for metric in metrics.values():
            metric.update(preds, target)
    scores = {name: 100 * metric.compute().item() for name, metric in metrics.items()}
    for name, score in scores.items():
        print(f"{name}: {score:.2f}")

    try:
        from sacrebleu.metrics import BLEU, CHRF
    except ImportError:
        return scores
    decoded = [model.decode(row) for row in hypotheses]
    decoded_references = [model.decode(row) for row in references]
    theirs = {
        "sacreBLEU": BLEU().corpus_score(decoded, [decoded_references]).score,
        "chrF++": CHRF(word_order=2).corpus_score(decoded, [decoded_references]).score,
    }
    difference = max(abs(scores[name] - theirs[name]) for name in scores)
    print(f"sacrebleu on the decoded text: sacreBLEU {theirs['sacreBLEU']:.2f}, chrF++ {theirs['chrF++']:.2f}")
    print(f"largest difference: {difference:.1e}")
    return scores


if __name__ == "__main__":
    main()
