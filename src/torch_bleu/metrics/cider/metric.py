"""``CIDErScore``: CIDEr-D as a ``torchmetrics.Metric``, every image's sentences kept until ``compute()``.

CIDEr-D's document frequencies count the n-grams of every image's references, so no sum of per-sentence
statistics gives it: the states keep the sentences themselves, as ``"cat"`` lists that DDP concatenates
(each rank's images whole, each image's references followed by its caption), and ``compute()`` scores them all
at once (:func:`~.consensus.cider_d`). Strings are kept as the UTF-8 bytes of their words (each followed by a
newline, which no word holds), so words are compared exactly, with no hashing; rows of ids as they are counted
(:func:`~.counting.id_captions`), on their device, with no host sync in ``update()``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor
from torchmetrics import Metric
from torchmetrics.utilities import dim_zero_cat

from ...errors import InputError
from ...inputs.kinds import Text, read_input
from ...threads import within_cpu_share
from ..base import MetricArguments
from .config import CIDErConfig, CIDErOptions
from .consensus import Captions
from .counting import Counted, id_captions, numbered, ptb_tokenized
from .scoring import scores_of

if TYPE_CHECKING:
    from typing_extensions import Never, Unpack


#: The states, each a ``"cat"`` list of 1-D tensors of its type.
STATE_TYPES = {
    "text": torch.uint8,
    "tokens": torch.int64,
    "widths": torch.int64,
    "lengths": torch.int64,
    "present": torch.bool,
    "is_caption": torch.bool,
}


class CIDErScoreOptions(CIDErOptions, MetricArguments, total=False):
    """What :class:`CIDErScore` takes by name: its options and torchmetrics' arguments."""


class CIDErScore(Metric):
    """Corpus CIDEr-D over ``update`` calls, as pycocoevalcap 1.2's ``Cider().compute_score`` gives it.

    ``update(preds, target)`` takes one caption per image, then per image its references: strings (words split
    on whitespace) or rows of token ids (each id a word; ``ignore_ids`` and ``eos_id`` as for every metric). An
    image counts once per time it is added. The states (``"cat"`` lists, concatenated across ranks) keep every
    sentence, each image's references then its caption: ``text`` (UTF-8 bytes of the words of strings),
    ``tokens`` (rows of ids, each padded to its batch's ``widths``, its kept ids first), ``lengths`` (words per
    sentence), ``present`` (absent references are kept, marked) and ``is_caption``; one metric takes strings or
    ids, not both. ``update`` keeps ids on their device with no host sync; ``compute()`` scores there.

    Args:
        **options: ``sigma``, ``document_frequency``, ``count_eos``, ``ignore_ids`` and ``eos_id``, by name
            (:class:`~torch_bleu.metrics.cider.config.CIDErConfig`).
        **metric_kwargs: passed to ``torchmetrics.Metric`` (``sync_on_compute``, ``process_group``, ...).

    Example:
        >>> metric = CIDErScore()
        >>> metric.update(["a dog runs on the grass"], [["a dog runs on grass", "the dog runs"]])
        >>> metric.update(["a cat sleeps"], [["a cat is sleeping", "the cat sleeps"]])
        >>> round(metric.compute().item(), 4)   # as corpus_cider of both images
        3.6426
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0

    config: CIDErConfig
    text: list[Tensor]
    tokens: list[Tensor]
    widths: list[Tensor]
    lengths: list[Tensor]
    present: list[Tensor]
    is_caption: list[Tensor]

    def __init__(self, *positional: Never, **options: Unpack[CIDErScoreOptions]) -> None:
        if positional:
            raise CIDErConfig.positional_error(type(self).__name__, positional)
        names = CIDErConfig.option_names()
        config_options = {name: value for name, value in options.items() if name in names}
        foreign = [name for name in options if name in CIDErConfig.foreign_options]
        if foreign:
            raise CIDErConfig.unknown_options(foreign)
        super().__init__(**{name: value for name, value in options.items() if name not in names})
        self.config = CIDErConfig.from_options(config_options)
        for name in STATE_TYPES:
            self.add_state(name, [], dist_reduce_fx="cat")

    @within_cpu_share
    def update(self, preds: Any, target: Any) -> None:
        """Keep the sentences of a batch of images: their captions ``preds`` and references ``target``."""
        match read_input(preds, target, self.config):
            case Text(hypotheses, references):
                self._check_one_kind("strings", self.tokens)
                if self.config.tokenize == "ptb":
                    hypotheses, references = ptb_tokenized(hypotheses, references)
                sentences = [
                    text.split() for refs, hypothesis in zip(references, hypotheses) for text in (*refs, hypothesis)
                ]
                data = "".join(word + "\n" for words in sentences for word in words).encode()
                text = torch.frombuffer(bytearray(data), dtype=torch.uint8) if data else _empty(torch.uint8)
                lengths = torch.tensor([len(words) for words in sentences], dtype=torch.int64)
                rows = torch.tensor([len(refs) + 1 for refs in references], dtype=torch.int64)
                is_caption = torch.zeros(lengths.shape[0], dtype=torch.bool)
                is_caption[rows.cumsum(0) - 1] = True
                self.text.append(text)
                self.widths.append(lengths)
                self.present.append(torch.ones_like(is_caption))
            case ids:
                self._check_one_kind("rows of ids", self.text)
                captions = id_captions(ids, self.config)
                images, rows_per_image, width = captions.words.shape
                self.tokens.append(captions.words.reshape(-1))
                lengths = captions.lengths.reshape(-1)
                self.widths.append(torch.full_like(lengths, width))
                caption_present = captions.present.new_ones((images, 1))
                self.present.append(torch.cat([captions.present, caption_present], 1).reshape(-1))
                is_caption = (torch.arange(rows_per_image, device=lengths.device) == rows_per_image - 1).repeat(images)
        self.lengths.append(lengths)
        self.is_caption.append(is_caption)

    def _check_one_kind(self, kind: str, other: list[Tensor]) -> None:
        if other:
            raise InputError(
                f"this CIDErScore holds sentences of another kind than {kind}; one metric takes either strings or "
                "rows of ids (reset() it, or use one metric for each)"
            )

    def _sync_dist(self, *args: Any, **kwargs: Any) -> None:
        """Sync as torchmetrics does, a state still empty on this rank sent as an empty tensor of its own type
        (torchmetrics would send float32, which the other ranks' int64 ids would be concatenated to)."""
        for name, dtype in STATE_TYPES.items():
            if isinstance(getattr(self, name), list) and not getattr(self, name):
                setattr(self, name, [_empty(dtype)])
        super()._sync_dist(*args, **kwargs)

    @within_cpu_share
    def compute(self) -> Tensor:
        """The mean CIDEr-D of every image added (0-d float64; 0 for none), of every rank."""
        scores = self.image_scores()
        return scores.mean() if scores.shape[0] else scores.new_zeros(())

    @within_cpu_share
    def image_scores(self) -> Tensor:
        """``(B,)`` float64 CIDEr-D of every image added, in the order added (pycocoevalcap's second value).

        Call it after ``compute()``, or where nothing needs syncing: it reads the states as they are.
        """
        text, tokens = _cat(self.text, "text"), _cat(self.tokens, "tokens")
        if text.numel() and tokens.numel():
            raise InputError("CIDErScore's ranks hold strings and rows of ids: give every rank one kind")
        states = {name: _cat(getattr(self, name), name) for name in ("widths", "lengths", "present", "is_caption")}
        if text.numel():
            table = self.config.document_frequency
            words = bytes(text.cpu().numpy()).decode().split("\n")[:-1]
            tokens = torch.from_numpy(numbered(words, table.vocabulary if table is not None else None))
        captions = kept_captions(tokens.to(states["lengths"].device), **states)
        return scores_of(Counted(captions, of_ids=not text.numel()), self.config)[:, 0]


def kept_captions(tokens: Tensor, widths: Tensor, lengths: Tensor, present: Tensor, is_caption: Tensor) -> Captions:
    """The kept sentences as :class:`~.consensus.Captions`: the rows of ``tokens`` (each ``widths`` wide, its
    ``lengths`` words first) put back in padded rows, each image's references then its caption.

    Example:
        >>> captions = kept_captions(torch.tensor([5, 6, 7, 9, 9]), torch.tensor([2, 1, 2]), torch.tensor([2, 1, 1]),
        ...                          torch.tensor([True, True, True]), torch.tensor([False, True, True]))
        >>> captions.words.tolist(), captions.lengths.tolist(), captions.present.tolist()
        ([[[5, 6], [7, 0]], [[0, 0], [9, 0]]], [[2, 1], [0, 1]], [[True], [False]])
    """
    device = tokens.device
    rows = lengths.shape[0]
    width = int(lengths.max()) if rows else 0
    starts = widths.cumsum(0) - widths
    index = (starts[:, None] + torch.arange(width, device=device)).clamp(max=max(tokens.shape[0] - 1, 0))
    within = torch.arange(width, device=device) < lengths[:, None]
    words = torch.where(within, tokens[index] if tokens.numel() else torch.zeros_like(index), 0)
    image = is_caption.to(torch.int64).cumsum(0) - is_caption.to(torch.int64)
    first_row = torch.zeros(int(is_caption.sum()) + 1, dtype=torch.int64, device=device)
    first_row[1:] = torch.arange(rows, device=device)[is_caption] + 1
    slot = torch.arange(rows, device=device) - first_row[image]
    images = first_row.shape[0] - 1
    slots = int((first_row[1:] - first_row[:-1]).max()) if images else 1
    place = image * slots + torch.where(is_caption, slots - 1, slot)
    padded = torch.zeros((images * slots, width), dtype=torch.int64, device=device)
    padded[place] = words
    padded_lengths = torch.zeros(images * slots, dtype=torch.int64, device=device)
    padded_lengths[place] = lengths
    padded_present = torch.zeros(images * slots, dtype=torch.bool, device=device)
    padded_present[place] = present & ~is_caption
    return Captions(
        padded.reshape(images, slots, width),
        padded_lengths.reshape(images, slots),
        padded_present.reshape(images, slots)[:, : slots - 1],
    )


def _cat(state: list[Tensor] | Tensor, name: str) -> Tensor:
    """A ``"cat"`` state as one CPU tensor of its type (a list before syncing, a tensor after)."""
    if isinstance(state, list) and not state:
        return _empty(STATE_TYPES[name])
    return dim_zero_cat(state)


def _empty(dtype: torch.dtype) -> Tensor:
    return torch.zeros(0, dtype=dtype)
