"""The self-critical sequence training (SCST) reward: CIDEr-D advantages of sampled captions, on their device.

Self-critical training (Rennie et al., 2017) samples ``k`` captions per image, scores each with CIDEr-D against the
image's references (document frequencies of the training corpus), and subtracts a baseline: the score of the
image's greedy caption, or (self-critical.pytorch's "new self-critical") the mean score of the image's other
samples. :func:`scst_reward` computes all of it in one pass of :func:`~.consensus.cider_d` over the padded ids.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import torch
from torch import Tensor

from ...engine.rows import kept_ids
from ...errors import InputError
from ...inputs.ids import token_batch
from ...inputs.kinds import TokenIds
from ...threads import within_cpu_share
from .config import CIDErConfig
from .consensus import Captions
from .counting import Counted, holds_strings, id_captions, kept_words
from .document_frequency import DocumentFrequency
from .scoring import scores_of


class SelfCriticalReward(NamedTuple):
    """What :func:`scst_reward` gives, one value per sampled caption (float64, on the samples' device).

    Attributes:
        advantages: each sample's score minus its baseline (self-critical.pytorch's reward, before it is repeated
            over the caption's time steps).
        scores: each sample's CIDEr-D.
        baselines: what was subtracted: the score of its image's greedy caption, or the mean of its image's other
            samples.
    """

    advantages: Tensor
    scores: Tensor
    baselines: Tensor


@within_cpu_share
def scst_reward(
    samples: Tensor,
    references: Any,
    document_frequency: DocumentFrequency | None = None,
    *,
    greedy: Tensor | None = None,
    eos_id: int | None = 0,
    count_eos: bool = True,
    ignore_ids: Any = (),
    sigma: float = 6.0,
) -> SelfCriticalReward:
    """CIDEr-D advantages of ``k`` sampled captions per image, as self-critical.pytorch's
    ``get_self_critical_reward`` (with ``greedy``) or its ``new_self_critical`` loss (without) computes them.

    Args:
        samples: ``(B * k, L)`` ids, the ``k`` samples of image 0, then those of image 1, ...
        references: each image's references: ``(B, R, L')`` ids (rows of ignored ids only are absent beside
            others) or a list per image of rows (lists or 1-D tensors).
        document_frequency: the training corpus' document frequencies (:func:`~torch_bleu.cider_document_frequency`
            or :meth:`DocumentFrequency.load` of self-critical.pytorch's ``coco-train-idxs.p``). ``None``: those
            of the batch itself, as ``CiderD(df="corpus")`` would count them (each sample and greedy caption an
            image of its own, with its image's references).
        greedy: ``(B, L'')`` ids, each image's greedy caption: the baseline is its score. Without it the baseline
            of a sample is the mean score of its image's other samples (``k >= 2``).
        eos_id, count_eos: each row ends at its first ``eos_id``, which counts as a word (``count_eos``), as
            self-critical.pytorch's ``array_to_str`` writes sentences ("12 7 0" for a caption ending in the end
            token 0, the padding after it dropped). ``eos_id=None``: rows are whole.
        ignore_ids: ids dropped from every row (say a padding id other than the end token).
        sigma: the Gaussian length penalty's standard deviation.

    Example:
        >>> references = torch.tensor([[[5, 6, 7, 0], [5, 6, 0, 0]], [[8, 9, 0, 0], [8, 8, 9, 0]]])
        >>> from torch_bleu import cider_document_frequency
        >>> frequency = cider_document_frequency(references, eos_id=0, count_eos=True)
        >>> samples = torch.tensor([[5, 6, 0, 0], [7, 0, 0, 0], [8, 9, 0, 0], [9, 9, 9, 0]])
        >>> reward = scst_reward(samples, references, frequency, greedy=torch.tensor([[5, 6, 7, 0], [8, 0, 0, 0]]))
        >>> [round(value, 4) for value in reward.advantages.tolist()]
        [-1.25, -5.1444, 4.8684, -0.7398]
    """
    options: dict[str, Any] = {"sigma": sigma, "document_frequency": document_frequency, "ignore_ids": ignore_ids}
    if eos_id is not None:
        options |= {"eos_id": eos_id, "count_eos": count_eos}
    config = CIDErConfig.from_options(options)
    _check_rows(samples, "samples", "a (B * k, L) tensor of ids")
    if greedy is not None:
        _check_rows(greedy, "greedy", "a (B, L) tensor of ids, one caption per image")
    if holds_strings(references):
        raise InputError(
            "scst_reward scores ids: references must be (B, R, L) ids or a list per image of rows of ids, as "
            "the samples are (for captions as strings, use sentence_cider)"
        )
    images = len(references)
    if images == 0 or samples.shape[0] % images:
        raise InputError(
            f"samples hold {samples.shape[0]} rows for {images} images of references: give k samples per image, "
            "those of each image together (B * k rows)"
        )
    per_image = samples.shape[0] // images
    if greedy is None and per_image < 2:
        raise InputError("without greedy captions the baseline is the mean of an image's other samples: give k >= 2")
    if greedy is not None and greedy.shape[0] != images:
        raise InputError(f"greedy holds {greedy.shape[0]} captions for {images} images: give one per image")
    first = greedy if greedy is not None else samples[::per_image]
    counted = id_captions(TokenIds(token_batch(first, references), config), config)
    hypotheses = samples.reshape(images, per_image, samples.shape[1])
    if greedy is not None:
        width = max(hypotheses.shape[-1], greedy.shape[-1])
        hypotheses = torch.cat([_widened(hypotheses, width), _widened(greedy[:, None], width)], dim=1)
    scores = scores_of(Counted(_with_captions(counted, hypotheses, config), of_ids=True), config)
    sample_scores = scores[:, :per_image]
    if greedy is not None:
        baselines = scores[:, per_image:].expand(-1, per_image)
    else:
        baselines = (sample_scores.sum(1, keepdim=True) - sample_scores) / (per_image - 1)
    return SelfCriticalReward((sample_scores - baselines).reshape(-1), sample_scores.reshape(-1), baselines.reshape(-1))


def _with_captions(counted: Captions, hypotheses: Tensor, config: CIDErConfig) -> Captions:
    """``counted``'s references with ``hypotheses`` ``(B, C, L)`` as each image's captions, counted alike."""
    tokens, lengths, _ = kept_words(hypotheses, kept_ids(hypotheses, config.ignored_ids, ()), config)
    references = counted.present.shape[1]
    width = max(tokens.shape[-1], counted.words.shape[-1])
    words = torch.cat([_widened(counted.words[:, :references], width), _widened(tokens, width)], dim=1)
    return Captions(words, torch.cat([counted.lengths[:, :references], lengths], dim=1), counted.present)


def _widened(rows: Tensor, width: int) -> Tensor:
    """``rows`` padded to ``width`` along the last axis with -1, which no row keeps."""
    return torch.nn.functional.pad(rows, (0, width - rows.shape[-1]), value=-1)


def _check_rows(rows: object, name: str, expected: str) -> None:
    """Refuse ``rows`` unless a 2-D tensor of integer ids, in the reward's words."""
    if not isinstance(rows, Tensor) or rows.dim() != 2:
        raise InputError(f"{name} must be {expected}, got {_described(rows)}")
    if rows.dtype.is_floating_point or rows.dtype.is_complex or rows.dtype == torch.bool:
        raise InputError(f"{name} must hold integer token ids, got dtype {rows.dtype}")


def _described(value: object) -> str:
    return f"shape {tuple(value.shape)}" if isinstance(value, Tensor) else type(value).__name__
