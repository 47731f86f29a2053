"""The ``subwords`` workload: WMT17 systems as SentencePiece ids, scored as detokenized sacreBLEU.

What a translation model emits are subword ids; the number papers report is sacreBLEU on their
decoded text. Both contenders start from the same padded id batches (BOS/EOS/PAD included):

* ``decode + sacrebleu``: per batch ``tolist()``, special ids dropped, ``SentencePieceProcessor.decode``
  per row, then ``sacrebleu.metrics.BLEU().corpus_score`` over the system (the usual loop);
* ``torch-bleu``: ``BLEUScore(detokenizer=Detokenizer.from_sentencepiece(model))`` updated with the
  tensors, ``compute()`` at the end; and the same with the static widths that accelerators use
  (on CPU, widths otherwise follow the data).

The SentencePiece model (unigram, 8,000 pieces, byte fallback) is trained here on the reference,
in about a second, so nothing is downloaded.
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import torch
from torch import Tensor

import torch_bleu
from torch_bleu import arrays

from .common import BOS, EOS, PAD, SPECIAL_IDS, Batch, workload_sizes
from .data import pad_rows
from .timing import median, time_interleaved
from .workloads import Table, peak_bytes

VOCABULARY = 8000


def train_sentencepiece(lines: list[str]) -> Any:
    """A unigram SentencePiece model with byte fallback, PAD/BOS/EOS at the benchmark's special ids."""
    import sentencepiece

    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=model,
        vocab_size=VOCABULARY,
        model_type="unigram",
        byte_fallback=True,
        pad_id=PAD,
        bos_id=BOS,
        eos_id=EOS,
        unk_id=3,
        num_threads=1,
        minloglevel=2,
    )
    return sentencepiece.SentencePieceProcessor(model_proto=model.getvalue())


@contextmanager
def static_widths() -> Iterator[None]:
    """Widths from shapes alone on CPU too, as on an accelerator."""
    arrays.SIZES_FROM_DATA_ON_CPU = False
    try:
        yield
    finally:
        arrays.SIZES_FROM_DATA_ON_CPU = True


class SubwordCorpus(NamedTuple):
    """The WMT17 systems as text and as SentencePiece ids in padded batches of 128, with the model."""

    model: Any
    detokenizer: torch_bleu.Detokenizer
    reference: list[str]
    systems: dict[str, list[str]]
    batches: dict[str, list[Batch]]

    def decode(self, rows: Tensor) -> list[str]:
        """What the usual loop does per batch: ``tolist()``, drop the special ids, decode each row."""
        return [self.model.decode([token for token in row if token not in SPECIAL_IDS]) for row in rows.tolist()]


def load_subword_corpus(args: argparse.Namespace, device: torch.device, workload: str) -> SubwordCorpus | None:
    """The corpus, or ``None`` (saying why) without sentencepiece or the data."""
    try:
        import sentencepiece  # noqa: F401
    except ImportError:
        print(f"{workload}: skipped, sentencepiece is not installed (pip install 'torch-bleu[subwords]')")
        return None
    if not args.data.is_dir():
        print(f"{workload}: skipped, no data at {args.data}")
        return None
    sizes = workload_sizes(args)
    reference_lines = (args.data / "newstest2017.ref.de").read_text(encoding="utf-8").splitlines()
    model = train_sentencepiece(reference_lines)
    reference_lines = reference_lines[: sizes.wmt17_lines]
    reference = model.encode(reference_lines)
    systems, batches = {}, {}
    for path in sorted(args.data.glob("sys.*.de"))[: sizes.wmt17_systems]:
        name = path.name[len("sys.") : -len(".de")]
        systems[name] = path.read_text(encoding="utf-8").splitlines()[: sizes.wmt17_lines]
        output = model.encode(systems[name])
        batches[name] = [
            (pad_rows(output[start : start + 128], device), pad_rows(reference[start : start + 128], device))
            for start in range(0, len(output), 128)
        ]
    return SubwordCorpus(model, torch_bleu.Detokenizer.from_sentencepiece(model), reference_lines, systems, batches)


def run_subwords(args: argparse.Namespace, device: torch.device) -> dict | None:
    loaded = load_subword_corpus(args, device, "subwords")
    if loaded is None:
        return None
    from sacrebleu.metrics import BLEU

    detokenizer, corpus, decode = loaded.detokenizer, loaded.batches, loaded.decode
    sentences = sum(preds.shape[0] for batches in corpus.values() for preds, _ in batches)

    def sacrebleu_system(batches: list[Batch]) -> float:
        hypotheses, references = [], []
        for preds, target in batches:
            hypotheses += decode(preds)
            references += decode(target)
        return float(BLEU().corpus_score(hypotheses, [references]).score / 100)

    def torch_bleu_system(batches: list[Batch]) -> float:
        metric = torch_bleu.BLEUScore(detokenizer=detokenizer, ignore_ids=SPECIAL_IDS, smoothing="exp").to(device)
        for preds, target in batches:
            metric.update(preds, target)
        return float(metric.compute())

    def static_system(batches: list[Batch]) -> float:
        with static_widths():
            return torch_bleu_system(batches)

    def every_system(contender: Callable[[list[Batch]], float]) -> Callable[[], list[float]]:
        return lambda: [contender(batches) for batches in corpus.values()]

    runs = {"decode + sacrebleu": every_system(sacrebleu_system), "torch-bleu": every_system(torch_bleu_system)}
    if device.type == "cpu":
        runs["torch-bleu, static widths"] = every_system(static_system)
    seconds, scores = time_interleaved(runs, args.repeats, device)
    ours = median(seconds["torch-bleu"])
    largest = max((batch for batches in corpus.values() for batch in batches), key=lambda batch: batch[0].numel())
    peak = peak_bytes(
        lambda: torch_bleu.BLEUScore(detokenizer=detokenizer, ignore_ids=SPECIAL_IDS).to(device), *largest
    )
    table = Table(
        f"WMT17 en-de as SentencePiece ids ({VOCABULARY:,} pieces, byte fallback): {len(corpus)} systems, "
        f"{sentences} sentences, batches of 128 ({device.type}, {torch.get_num_threads()} threads, median of "
        f"{args.repeats}); peak memory of one update: {peak / 2**20:.1f} MiB (batch {tuple(largest[0].shape)})",
        ["contender", "seconds", "sentences/s", "torch-bleu is faster by", "largest score difference"],
    )
    for name in runs:
        difference = max(abs(a - b) for a, b in zip(scores[name], scores["decode + sacrebleu"]))
        table.rows.append(
            [
                name,
                f"{median(seconds[name]):.3f}",
                f"{sentences / median(seconds[name]):,.0f}",
                f"{median(seconds[name]) / ours:.2f}x",
                f"{difference:.1e}",
            ]
        )
    table.print()
    return {"sentences": sentences, "seconds": seconds, "scores": scores, "peak_bytes": peak, "table": table.rows}
