"""Validate a summarization model with ROUGE from its id tensors, every epoch, and end with bootstrap intervals.

The padded ids the model decodes go straight into the metric; special ids are dropped by the metric,
not by hand, and a sentence separator id splits summaries into sentences for ``rougeLsum``::

    metric = torch_bleu.ROUGEScore(ignore_ids=[PAD, BOS], eos_id=EOS, sentence_sep_id=SEP, keep_sentences=True)
    for src, tgt in valid_loader:
        metric.update(greedy_decode(model, src), tgt)   # counted on the device, no .tolist()
    scores = metric.compute()                           # {"rougeL_fmeasure": ..., ...}
    intervals = metric.confidence_interval()            # rouge-score's bootstrap intervals of every type

The task is a toy extractive one: a document is two or three sentences of topic words with filler
words mixed in ("dog the house a . um sat sun tree ."), its summary the topic words of each sentence,
sentence by sentence ("dog house . sat sun tree ."). A small Transformer made here learns it from scratch, and its
validation ROUGE climbs epoch by epoch. At every epoch the decoded ids are also written out as text
and scored by rouge-score (when it is installed): its mean scores must equal the metric's. At the end
the script reports the last epoch's seeded bootstrap intervals of every type, the metric's
``confidence_interval``: what rouge-score's ``BootstrapAggregator`` reports after ``np.random.seed(seed)``
(with rouge-score installed, its aggregator on the decoded text must give the same intervals).

Where summaries come as text, or are decoded first, as in a Hugging Face ``Seq2SeqTrainer``'s
``compute_metrics``, ``rougeLsum`` needs their sentences: decoded text has no newlines, and without them
``rougeLsum`` is ``rougeL``. ``split_sentences=`` splits them as transformers' summarization recipe does
(there with ``nltk.sent_tokenize``, after ``nltk.download("punkt_tab")``)::

    compute_metrics = make_compute_metrics(
        functools.partial(tokenizer.batch_decode, skip_special_tokens=True), split_sentences=nltk.sent_tokenize
    )
    trainer = Seq2SeqTrainer(model, args, ..., compute_metrics=compute_metrics)

At the end the script runs that ``compute_metrics`` on the last epoch's generations and labels, as the
trainer hands them over (NumPy arrays, labels padded with -100), with this task's splitter (its
sentences end with " ."), and checks that it gives the metric's numbers; without the splitter its
``rougeLsum`` would be ``rougeL``'s.

Run:  python examples/summarization_validation.py [--epochs 6] [--device cpu|cuda] [--seed 0] [--threads 1] [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from _device import add_run_options
from torch import Tensor, nn
from torch.utils.data import DataLoader, TensorDataset

import torch_bleu
from torch_bleu.metrics.rouge.bootstrap import RougeIntervals

PAD, BOS, EOS, SEP = 0, 1, 2, 3
TOPICS = ["cat", "dog", "bird", "fish", "sun", "rain", "tree", "river", "house", "road"]
TOPICS += ["ship", "train", "city", "field", "song", "book", "sat", "ran", "sang", "grew"]
FILLERS = ["well", "so", "um", "really", "just", "very", "the", "a"]
VOCAB = ["<pad>", "<bos>", "<eos>", ".", *TOPICS, *FILLERS]
TOPIC_IDS = range(4, 4 + len(TOPICS))
FILLER_IDS = range(4 + len(TOPICS), len(VOCAB))
MAX_SENTENCES, MAX_TOPICS, MAX_FILLERS = 3, 3, 2
SOURCE_LEN = MAX_SENTENCES * (MAX_TOPICS + MAX_FILLERS + 1)
TARGET_LEN = MAX_SENTENCES * (MAX_TOPICS + 1) + 2  # BOS, the summary, EOS
ROUGE_TYPES = ("rougeL", "rouge1", "rouge2", "rougeLsum")
OPTIONS: dict[str, Any] = {"rouge_types": ROUGE_TYPES, "ignore_ids": [PAD, BOS], "eos_id": EOS, "sentence_sep_id": SEP}
IdBatches = list[tuple[Tensor, Tensor]]  # (decoded ids, target ids) of every validation batch
#: The label id Hugging Face's losses ignore, and its data collators pad labels with.
LABEL_PAD = -100
TOLERANCE = (
    1e-12  # the metric's means (exact sums of fixed-point scores) and rouge-score's (float64 sums) agree to this
)


def make_documents(count: int, rng: random.Random) -> tuple[Tensor, Tensor]:
    """``count`` documents ``(count, SOURCE_LEN)`` and their summaries ``(count, TARGET_LEN)``, padded.

    Example:
        >>> src, tgt = make_documents(1, random.Random(0))
        >>> words(src[0]), words(tgt[0])
        ('dog the house a . um sat sun tree . sun grew road .', 'dog house . sat sun tree . sun grew road .')
    """
    src = torch.full((count, SOURCE_LEN), PAD, dtype=torch.long)
    tgt = torch.full((count, TARGET_LEN), PAD, dtype=torch.long)
    for row in range(count):
        document, summary = [], [BOS]
        for _ in range(rng.randint(2, MAX_SENTENCES)):
            topics = [rng.choice(TOPIC_IDS) for _ in range(rng.randint(1, MAX_TOPICS))]
            sentence = topics + [rng.choice(FILLER_IDS) for _ in range(rng.randint(0, MAX_FILLERS))]
            rng.shuffle(sentence)
            document += [*sentence, SEP]
            summary += [token for token in sentence if token in TOPIC_IDS] + [SEP]
        src[row, : len(document)] = torch.tensor(document)
        tgt[row, : len(summary) + 1] = torch.tensor([*summary, EOS])
    return src, tgt


def words(ids: Tensor) -> str:
    """The text of a row of ids, up to its ``EOS``, without ``PAD`` and ``BOS``."""
    row = ids.tolist()
    row = row[: row.index(EOS)] if EOS in row else row
    return " ".join(VOCAB[token] for token in row if token not in (PAD, BOS))


def summary_text(ids: Tensor) -> str:
    """A summary's text as rouge-score reads summaries: one sentence a line."""
    return "\n".join(sentence.strip() for sentence in words(ids).split(".") if sentence.strip())


def split_at_periods(text: str) -> list[str]:
    """This task's sentence splitter (for real text, ``nltk.sent_tokenize``): its sentences end with " .".

    Example:
        >>> split_at_periods("dog house . sat sun tree .")
        ['dog house .', 'sat sun tree .']
    """
    return [sentence.strip() + " ." for sentence in text.split(" .") if sentence.strip()]


def make_compute_metrics(
    batch_decode: Callable[[Any], list[str]], split_sentences: Callable[[str], list[str]] | None
) -> Callable[[Any], dict[str, float]]:
    """A ``compute_metrics`` for ``Seq2SeqTrainer(predict_with_generate=True)``: decode the generated ids and
    the labels with ``batch_decode`` (``tokenizer.batch_decode`` without special tokens), then ROUGE of the
    text, each summary split into sentences by ``split_sentences`` for ``rougeLsum``. F-measures in points.
    """

    def compute_metrics(eval_pred: Any) -> dict[str, float]:
        predictions, labels = eval_pred  # an EvalPrediction unpacks to (predictions, label_ids)
        if isinstance(predictions, tuple):  # some models return more than the ids
            predictions = predictions[0]
        labels = np.where(labels != LABEL_PAD, labels, PAD)  # -100 is no id the tokenizer decodes
        scores = torch_bleu.corpus_rouge(
            batch_decode(predictions), batch_decode(labels), rouge_types=ROUGE_TYPES, split_sentences=split_sentences
        )
        return {rouge_type: 100 * scores[f"{rouge_type}_fmeasure"].item() for rouge_type in ROUGE_TYPES}

    return compute_metrics


def batch_decode(rows: np.ndarray) -> list[str]:
    """This task's ``tokenizer.batch_decode(rows, skip_special_tokens=True)``."""
    return [words(torch.from_numpy(row)) for row in rows]


def trainer_arrays(decoded: IdBatches) -> tuple[np.ndarray, np.ndarray]:
    """The generations and labels of every validation batch as the trainer gathers them: NumPy arrays, the
    labels without their BOS and padded with -100."""
    predictions = torch.cat([preds for preds, _ in decoded]).cpu().numpy()
    labels = torch.cat([tgt[:, 1:] for _, tgt in decoded]).cpu().numpy()
    return predictions, np.where(labels == PAD, LABEL_PAD, labels)


class TinySummarizer(nn.Module):
    """An encoder-decoder Transformer with learned positions (about 140k parameters)."""

    def __init__(self, d_model: int = 64, heads: int = 4, layers: int = 2, feedforward: int = 128) -> None:
        super().__init__()
        self.embed = nn.Embedding(len(VOCAB), d_model, padding_idx=PAD)
        self.src_pos = nn.Parameter(torch.randn(SOURCE_LEN, d_model) * 0.02)
        self.tgt_pos = nn.Parameter(torch.randn(TARGET_LEN, d_model) * 0.02)
        encoder_layer = nn.TransformerEncoderLayer(d_model, heads, feedforward, dropout=0.0, batch_first=True)
        decoder_layer = nn.TransformerDecoderLayer(d_model, heads, feedforward, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(encoder_layer, layers, enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(decoder_layer, layers)
        self.project = nn.Linear(d_model, len(VOCAB))

    def encode(self, src: Tensor) -> Tensor:
        """Encoder memory ``(B, Ls, d_model)`` of document ids ``(B, Ls)``."""
        return self.encoder(self.embed(src) + self.src_pos[: src.shape[1]], src_key_padding_mask=src == PAD)

    def decode(self, memory: Tensor, src: Tensor, tgt_in: Tensor) -> Tensor:
        """Next-token logits ``(B, Lt, V)`` for every prefix of ``tgt_in`` (causal)."""
        causal = nn.Transformer.generate_square_subsequent_mask(tgt_in.shape[1], device=src.device)
        hidden = self.decoder(
            self.embed(tgt_in) + self.tgt_pos[: tgt_in.shape[1]],
            memory,
            tgt_mask=causal,
            tgt_is_causal=True,
            memory_key_padding_mask=src == PAD,
        )
        return self.project(hidden)

    def forward(self, src: Tensor, tgt_in: Tensor) -> Tensor:
        return self.decode(self.encode(src), src, tgt_in)


@torch.no_grad()
def greedy_decode(model: TinySummarizer, src: Tensor) -> Tensor:
    """Greedy decoding: ``(B, TARGET_LEN - 1)`` ids after ``BOS``, ``PAD`` after each row's ``EOS``."""
    memory = model.encode(src)
    tokens = torch.full((src.shape[0], 1), BOS, dtype=torch.long, device=src.device)
    finished = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)
    for _ in range(TARGET_LEN - 1):
        step = model.decode(memory, src, tokens)[:, -1].argmax(-1)
        step = torch.where(finished, PAD, step)
        tokens = torch.cat([tokens, step[:, None]], 1)
        finished |= step == EOS
    return tokens[:, 1:]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=6)
    add_run_options(parser, "the data, the model and the bootstrap")
    parser.add_argument("--train-size", type=int, default=6000, help="training documents (one epoch)")
    parser.add_argument("--valid-size", type=int, default=500, help="validation documents")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples of the last epoch")
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds: 2 small epochs")
    if parser.parse_args(argv).quick:  # smaller defaults; options given explicitly still win
        parser.set_defaults(epochs=2, train_size=256, valid_size=64, resamples=200)
    return parser.parse_args(argv)


def validate(
    model: TinySummarizer, loader: DataLoader, metric: torch_bleu.ROUGEScore, device: torch.device
) -> IdBatches:
    """Greedy-decode every validation batch into ``metric``; return the decoded ids for the cross-check."""
    model.eval()
    metric.reset()
    decoded = []
    for src, tgt in loader:
        src, tgt = src.to(device), tgt.to(device)
        pred = greedy_decode(model, src)
        metric.update(pred, tgt)
        decoded.append((pred, tgt))
    return decoded


def rouge_score_means(decoded: IdBatches) -> dict[str, float]:
    """rouge-score's mean F-measure of every type over the decoded summaries, written out as text."""
    from rouge_score.rouge_scorer import RougeScorer

    scorer = RougeScorer(list(ROUGE_TYPES))
    scores = [
        scorer.score(summary_text(target), summary_text(prediction))
        for preds, tgt in decoded
        for prediction, target in zip(preds.cpu(), tgt.cpu())
    ]
    return {rouge_type: sum(score[rouge_type].fmeasure for score in scores) / len(scores) for rouge_type in ROUGE_TYPES}


def rouge_score_intervals(decoded: IdBatches, resamples: int, seed: int) -> RougeIntervals:
    """rouge-score's ``BootstrapAggregator`` intervals ``(low, mid, high)`` of every type over the decoded
    summaries, written out as text, after ``np.random.seed(seed)`` (NumPy's global state restored after)."""
    import numpy as np
    from rouge_score.rouge_scorer import RougeScorer
    from rouge_score.scoring import BootstrapAggregator

    scorer = RougeScorer(list(ROUGE_TYPES))
    aggregator = BootstrapAggregator(confidence_interval=0.95, n_samples=resamples)
    for preds, tgt in decoded:
        for prediction, target in zip(preds.cpu(), tgt.cpu()):
            aggregator.add_scores(scorer.score(summary_text(target), summary_text(prediction)))
    state = np.random.get_state()
    np.random.seed(seed)
    result = aggregator.aggregate()
    np.random.set_state(state)
    return {name: (tuple(score.low), tuple(score.mid), tuple(score.high)) for name, score in result.items()}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train and validate; return the F-measures of every epoch and the last epoch's intervals."""
    args = parse_args(argv)
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    device = args.device
    rng = random.Random(args.seed)
    train, valid = make_documents(args.train_size, rng), make_documents(args.valid_size, rng)
    shuffle = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(TensorDataset(*train), args.batch_size, shuffle=True, generator=shuffle)
    valid_loader = DataLoader(TensorDataset(*valid), batch_size=250)
    model = TinySummarizer().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    metric = torch_bleu.ROUGEScore(**OPTIONS, keep_sentences=True).to(device)
    check_with_rouge_score = importlib.util.find_spec("rouge_score") is not None
    print(f"summarizer on {device}: {args.train_size} training and {args.valid_size} validation documents")

    history: list[dict[str, float]] = []
    largest_gap = 0.0
    for epoch in range(1, args.epochs + 1):
        model.train()
        for src, tgt in train_loader:
            src, tgt = src.to(device), tgt.to(device)
            logits = model(src, tgt[:, :-1])
            loss = nn.functional.cross_entropy(logits.transpose(1, 2), tgt[:, 1:], ignore_index=PAD)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        decoded = validate(model, valid_loader, metric, device)
        scores = {rouge_type: metric.compute()[f"{rouge_type}_fmeasure"].item() for rouge_type in ROUGE_TYPES}
        history.append(scores)
        shown = "  ".join(f"{rouge_type} {100 * value:5.1f}" for rouge_type, value in scores.items())
        print(f"epoch {epoch}: loss {loss.item():.3f}  validation F-measure: {shown}")
        if check_with_rouge_score:
            expected = rouge_score_means(decoded)
            largest_gap = max(largest_gap, *(abs(scores[name] - expected[name]) for name in ROUGE_TYPES))

    print(f"  {words(valid[0][0])}  ->  {words(decoded[0][0][0])}")
    if largest_gap > TOLERANCE:
        raise SystemExit(f"MISMATCH: ROUGEScore and rouge-score differ by {largest_gap:.3g} (> {TOLERANCE:g})")
    if check_with_rouge_score:
        print(f"rouge-score on the decoded text gives the same means at every epoch (largest gap {largest_gap:.1e})")
    else:
        print("rouge-score is not installed, so no check against it (pip install 'torch-bleu[examples]')")
    intervals = metric.confidence_interval(resamples=args.resamples, seed=args.seed)
    print(f"last epoch, {args.resamples} resamples: bootstrap F-measure (median [95% interval])")
    for rouge_type, (low, mid, high) in intervals.items():
        print(f"  {rouge_type:9} F: {100 * mid[2]:.2f} [{100 * low[2]:.2f}, {100 * high[2]:.2f}]")
    if check_with_rouge_score:
        if rouge_score_intervals(decoded, args.resamples, args.seed) != intervals:
            raise SystemExit("MISMATCH: ROUGEScore's intervals differ from rouge-score's BootstrapAggregator")
        print("rouge-score's BootstrapAggregator, seeded alike, gives the same intervals")

    arrays = trainer_arrays(decoded)
    recipe = make_compute_metrics(batch_decode, split_at_periods)(arrays)
    gap = max(abs(recipe[name] / 100 - history[-1][name]) for name in ROUGE_TYPES)
    if gap > TOLERANCE:
        raise SystemExit(f"MISMATCH: compute_metrics on decoded text and ROUGEScore on ids differ by {gap:.3g}")
    with warnings.catch_warnings():  # it warns that rougeLsum equals rougeL: the point made here
        warnings.simplefilter("ignore")
        unsplit = make_compute_metrics(batch_decode, None)(arrays)
    print(
        f"compute_metrics (decode, split into sentences, ROUGE) gives the metric's numbers: rougeLsum "
        f"{recipe['rougeLsum']:.2f}; without split_sentences, rougeLsum {unsplit['rougeLsum']:.2f} = rougeL "
        f"{unsplit['rougeL']:.2f}"
    )
    return {
        "history": history,
        "largest_gap": largest_gap,
        "intervals": intervals,
        "compute_metrics": recipe,
        "unsplit": unsplit,
    }


if __name__ == "__main__":
    main()
