"""The ``captioning`` workload: a self-critical training step's CIDEr-D reward, and COCO-validation-sized caption
evaluation, against pycocoevalcap's scorers on the same strings.

The data is synthetic (no caption corpus ships here): captions of 10 to 16 words drawn from a Zipf vocabulary of
9,487 words (the size of self-critical.pytorch's COCO vocabulary), each image's references and samples sharing
a caption of its own with words changed.

* ``SCST batch``: 50 images x 5 sampled captions and 50 greedy captions, 5 references each, as ids ending in the
  end token 0 and padded with it; the document frequencies of a synthetic training corpus of 5,000 images.
  ``torch-bleu``: :func:`torch_bleu.scst_reward` from the ids; ``pycocoevalcap scorer``: its ``CiderScorer`` with
  the same document frequencies on the strings self-critical.pytorch's ``array_to_str`` writes (written once,
  outside the timing), as its ``CiderD`` scores them.
* ``COCO val``: 5,000 images x 5 references, tokenized captions: :func:`torch_bleu.coco_caption_scores`
  (``tokenize="none"``) against pycocoevalcap's ``Bleu(4)``, ``Rouge`` and ``Cider`` one after the other.
* ``CIDErScore, batches of 8 / 32 / 5000``: a validation loop's ``update()`` per batch and ``compute()`` at the
  end, from ids (ending in the end token, on ``--device``) and from strings, against pycocoevalcap's ``Cider``
  on the strings the loop collects.

Ratios are of medians from one run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from collections import defaultdict
from typing import Any

import numpy as np
import torch

import torch_bleu

from .timing import median, time_interleaved
from .workloads import Table

VOCABULARY = 9487
END = 0


def _captions(generator: np.random.Generator, images: int, per_image: int) -> list[list[list[int]]]:
    """``per_image`` captions of each image: a caption of the image with about a third of its words changed."""
    weights = 1 / np.arange(1, VOCABULARY + 1) ** 1.1
    weights /= weights.sum()

    def words(count: int) -> list[int]:
        return [int(word) for word in generator.choice(np.arange(1, VOCABULARY + 1), size=count, p=weights)]

    result = []
    for _ in range(images):
        base = words(int(generator.integers(10, 17)))
        image = []
        for _ in range(per_image):
            changed = [word if generator.random() < 0.65 else words(1)[0] for word in base]
            image.append(changed[: int(generator.integers(10, 17))])
        result.append(image)
    return result


def _padded(rows: list[list[int]], width: int = 17) -> torch.Tensor:
    return torch.tensor([[*row, END] + [END] * (width - 1 - len(row)) for row in rows])


def _recipe_string(row: list[int]) -> str:
    """self-critical.pytorch's ``array_to_str``: the ids up to and including the first end token."""
    end = row.index(END) + 1 if END in row else len(row)
    return " ".join(map(str, row[:end]))


class _TrainingImages(list):  # type: ignore[type-arg]
    """The references of the images scored, counting as the training corpus' images, as ``CiderD`` sets its
    ``ref_len`` from a pickle."""

    def __init__(self, items: list[Any], images: int) -> None:
        super().__init__(items)
        self.images = images

    def __len__(self) -> int:
        return self.images


def _scst(args: argparse.Namespace, device: torch.device, table: Table, figures: list[dict]) -> None:
    from pycocoevalcap.cider.cider_scorer import CiderScorer

    generator = np.random.default_rng(0)
    images, samples_per_image = (8, 5) if args.quick else (50, 5)
    training = _captions(generator, 200 if args.quick else 5000, 5)
    frequency = torch_bleu.cider_document_frequency(
        torch.stack([_padded(refs) for refs in training]), eos_id=END, count_eos=True
    )
    batch = _captions(generator, images, 5 + samples_per_image + 1)
    references = torch.stack([_padded(rows[:5]) for rows in batch])
    samples = torch.cat([_padded(rows[5 : 5 + samples_per_image]) for rows in batch])
    greedy = torch.cat([_padded(rows[-1:]) for rows in batch])
    counts = defaultdict(float, {ngram: float(count) for ngram, count in frequency.items()})

    sample_strings = [_recipe_string(row) for row in samples.tolist()]
    greedy_strings = [_recipe_string(row) for row in greedy.tolist()]
    reference_strings = [[_recipe_string(row) for row in refs] for refs in references.tolist()]

    def scorer() -> np.ndarray:
        cider = CiderScorer(n=4, sigma=6.0)
        for index, caption in enumerate(sample_strings):
            cider.cook_append(caption, reference_strings[index // samples_per_image])
        for index, caption in enumerate(greedy_strings):
            cider.cook_append(caption, reference_strings[index])
        cider.document_frequency = counts
        cider.crefs = _TrainingImages(cider.crefs, frequency.images)
        scores = np.array(cider.compute_cider())
        advantages = scores[: len(sample_strings)].reshape(images, samples_per_image) - scores[-images:, None]
        return advantages.reshape(-1)

    def ours(on: torch.device) -> Any:
        moved = samples.to(on), references.to(on), greedy.to(on)
        return lambda: torch_bleu.scst_reward(moved[0], moved[1], frequency, greedy=moved[2]).advantages

    runs = {f"torch-bleu, {device.type}": ours(device)}
    if device.type != "cpu":
        runs["torch-bleu, cpu"] = ours(torch.device("cpu"))
    runs["pycocoevalcap scorer"] = scorer
    seconds, results = time_interleaved(runs, args.repeats, device, label="SCST batch")
    label = f"SCST batch ({images} images x {samples_per_image} samples + greedy, 5 references)"
    _rows("SCST batch", label, runs, seconds, results, table, figures)


def _coco(args: argparse.Namespace, device: torch.device, table: Table, figures: list[dict]) -> None:
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.rouge.rouge import Rouge

    generator = np.random.default_rng(1)
    images = 100 if args.quick else 5000
    corpus = _captions(generator, images, 6)
    captions = [" ".join(map(str, rows[0])) for rows in corpus]
    references = [[" ".join(map(str, row)) for row in rows[1:]] for rows in corpus]
    gts = dict(enumerate(references))
    res = {image: [caption] for image, caption in enumerate(captions)}

    def pycocoevalcap() -> list[float]:
        with contextlib.redirect_stdout(io.StringIO()):  # Bleu prints its counts
            bleu = Bleu(4).compute_score(gts, res)[0]
        return [*bleu, Rouge().compute_score(gts, res)[0], Cider().compute_score(gts, res)[0]]

    def ours() -> list[float]:
        scores = torch_bleu.coco_caption_scores(captions, references, tokenize="none")
        return [float(score) for score in scores.corpus.values()]

    runs = {"torch-bleu, cpu": ours, "pycocoevalcap Bleu(4) + Rouge + Cider": pycocoevalcap}
    seconds, results = time_interleaved(runs, args.repeats, device, label="COCO val")
    _rows("COCO val", f"COCO val ({images} images x 5 references)", runs, seconds, results, table, figures)


def _cider_batches(args: argparse.Namespace, device: torch.device, table: Table, figures: list[dict]) -> None:
    """``CIDErScore`` updated batch after batch (strings on the host; ids on ``device``), then computed, against
    pycocoevalcap's ``Cider`` on the strings the loop collects."""
    from pycocoevalcap.cider.cider import Cider

    generator = np.random.default_rng(2)
    images = 100 if args.quick else 5000
    corpus = _captions(generator, images, 6)
    captions = [" ".join(map(str, rows[0])) for rows in corpus]
    references = [[" ".join(map(str, row)) for row in rows[1:]] for rows in corpus]
    caption_ids = _padded([rows[0] for rows in corpus]).to(device)
    reference_ids = torch.stack([_padded(rows[1:]) for rows in corpus]).to(device)

    def pycocoevalcap() -> float:
        gts = dict(enumerate(references))
        return float(Cider().compute_score(gts, {image: [caption] for image, caption in enumerate(captions)})[0])

    for batch in (8, 32, None):
        size = batch or images
        ids = _updated(lambda: torch_bleu.CIDErScore(eos_id=END).to(device), caption_ids, reference_ids, size)
        strings = _updated(torch_bleu.CIDErScore, captions, references, size)
        runs = {
            f"torch-bleu, {device.type}, ids": ids,
            "torch-bleu, cpu, strings": strings,
            "pycocoevalcap Cider": pycocoevalcap,
        }
        label = f"CIDErScore, batches of {size}"
        seconds, results = time_interleaved(runs, args.repeats, device, label=label)
        _rows(
            f"CIDEr batch {size}", f"{label} ({images} images x 5 references)", runs, seconds, results, table, figures
        )


def _updated(make: Any, preds: Any, target: Any, size: int) -> Any:
    """A run of a validation loop: a metric from ``make()`` updated with batches of ``size``, then computed."""

    def run() -> float:
        metric = make()
        for start in range(0, len(preds), size):
            metric.update(preds[start : start + size], target[start : start + size])
        return float(metric.compute())

    return run


def _rows(
    name: str,
    label: str,
    runs: dict[str, Any],
    seconds: dict[str, list[float]],
    results: dict[str, object],
    table: Table,
    figures: list[dict],
) -> None:
    main = next(iter(runs))
    for contender in runs:
        ratio = median(seconds[contender]) / median(seconds[main])
        difference = float(
            np.abs(np.asarray(results[contender], dtype=float) - np.asarray(results[main], dtype=float)).max()
        )
        table.rows.append([label, contender, f"{median(seconds[contender]):.4f}", f"{ratio:.2f}x", f"{difference:.1e}"])
        figures.append(
            {
                "measurement": name,
                "contender": contender,
                "seconds": median(seconds[contender]),
                "against": main,
                "ratio": ratio,
                "largest_difference": difference,
            }
        )


def run_captioning(args: argparse.Namespace, device: torch.device) -> dict | None:
    try:
        import pycocoevalcap  # noqa: F401
    except ImportError:
        print("captioning: skipped, pycocoevalcap is not installed (pip install pycocoevalcap)")
        return None
    table = Table(
        f"Captioning: the SCST reward and COCO's caption scores ({device.type}, median of {args.repeats})",
        ["measurement", "contender", "seconds", "torch-bleu is faster by", "largest difference"],
    )
    figures: list[dict] = []
    _scst(args, device, table, figures)
    _coco(args, device, table, figures)
    _cider_batches(args, device, table, figures)
    table.print()
    return {"figures": figures, "table": table.rows}
