"""``CIDErScore``: CIDEr-D as a ``torchmetrics.Metric``, every image's sentences kept until ``compute()``.

CIDEr-D's document frequencies count the n-grams of every image's references, so no sum of per-sentence
statistics gives it: the states keep the sentences themselves, as ``"cat"`` lists that DDP concatenates
(each rank's images whole, each beginning with its caption), and ``compute()`` scores them all at once
(:func:`~.consensus.cider_d`). Strings are kept as the UTF-8 bytes of their words (each followed by a
newline, which no word holds), so words are compared exactly, with no hashing; rows of ids as their kept ids.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor
from torchmetrics import Metric
from torchmetrics.utilities import dim_zero_cat

from ...errors import InputError
from ...inputs.kinds import Text, read_input
from ..base import MetricArguments
from .config import CIDErConfig, CIDErOptions
from .consensus import Sentences, cider_d
from .counting import ids_sentences, image_of, numbered, split_sentences

if TYPE_CHECKING:
    from typing_extensions import Never, Unpack


#: The states, each a ``"cat"`` list of 1-D tensors of its type.
STATE_TYPES = {"text": torch.uint8, "tokens": torch.int64, "lengths": torch.int64, "is_caption": torch.bool}


class CIDErScoreOptions(CIDErOptions, MetricArguments, total=False):
    """What :class:`CIDErScore` takes by name: its options and torchmetrics' arguments."""


class CIDErScore(Metric):
    """Corpus CIDEr-D over ``update`` calls, as pycocoevalcap 1.2's ``Cider().compute_score`` gives it.

    ``update(preds, target)`` takes one caption per image, then per image its references: strings (words split
    on whitespace) or rows of token ids (each id a word; ``ignore_ids`` and ``eos_id`` as for every metric). An
    image counts once per time it is added. The states (``"cat"`` lists, concatenated across ranks) keep every
    sentence: ``text`` (UTF-8 bytes of the words of strings), ``tokens`` (kept ids of rows of ids), ``lengths``
    (words per sentence) and ``is_caption``; one metric takes strings or ids, not both. ``update`` reads ids on
    the host (a batch on an accelerator waits for its device there).

    Args:
        **options: ``sigma``, ``ignore_ids`` and ``eos_id``, by name
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
    lengths: list[Tensor]
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

    def update(self, preds: Any, target: Any) -> None:
        """Keep the sentences of a batch of images: their captions ``preds`` and references ``target``."""
        match read_input(preds, target, self.config):
            case Text(hypotheses, references):
                self._check_one_kind("strings", self.tokens)
                split, is_caption = split_sentences(hypotheses, references)
                data = "".join(word + "\n" for words in split for word in words).encode()
                self.text.append(torch.frombuffer(bytearray(data), dtype=torch.uint8) if data else _empty(torch.uint8))
                lengths = np.array([len(words) for words in split], dtype=np.int64)
            case ids:
                self._check_one_kind("rows of ids", self.text)
                sentences = ids_sentences(ids)
                self.tokens.append(torch.from_numpy(np.ascontiguousarray(sentences.words)))
                lengths, is_caption = sentences.lengths, sentences.is_caption
        self.lengths.append(torch.from_numpy(np.ascontiguousarray(lengths)))
        self.is_caption.append(torch.from_numpy(np.ascontiguousarray(is_caption)))

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

    def compute(self) -> Tensor:
        """The mean CIDEr-D of every image added (0-d float64; 0 for none), of every rank."""
        scores = self.image_scores()
        return scores.mean() if scores.shape[0] else scores.new_zeros(())

    def image_scores(self) -> Tensor:
        """``(B,)`` float64 CIDEr-D of every image added, in the order added (pycocoevalcap's second value).

        Call it after ``compute()``, or where nothing needs syncing: it reads the states as they are.
        """
        lengths, is_caption = _cat(self.lengths, "lengths").numpy(), _cat(self.is_caption, "is_caption").numpy()
        text, tokens = _cat(self.text, "text"), _cat(self.tokens, "tokens")
        if text.numel() and tokens.numel():
            raise InputError("CIDErScore's ranks hold strings and rows of ids: give every rank one kind")
        words = numbered(bytes(text.numpy()).decode().split("\n")[:-1]) if text.numel() else tokens.numpy()
        sentences = Sentences(words, lengths, image_of(is_caption), is_caption)
        return torch.from_numpy(cider_d(sentences, int(is_caption.sum()), sigma=self.config.sigma))


def _cat(state: list[Tensor] | Tensor, name: str) -> Tensor:
    """A ``"cat"`` state as one CPU tensor of its type (a list before syncing, a tensor after)."""
    if isinstance(state, list) and not state:
        return _empty(STATE_TYPES[name])
    return dim_zero_cat(state).cpu()


def _empty(dtype: torch.dtype) -> Tensor:
    return torch.zeros(0, dtype=dtype)
