"""WER's and CER's options, declared and checked once for the functions and the metrics."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ..config import SubwordConfig, SubwordOptions

if TYPE_CHECKING:
    from ...inputs.batch import TokenBatch
    from ...inputs.kinds import Text

#: Option names of jiwer and torchmetrics, each with what to do here instead.
FOREIGN_OPTIONS = {
    "reference_transform": (
        "jiwer's transforms are not options here: strings are read with jiwer's default transform (wer_default or "
        "cer_default); transform the strings before passing them"
    ),
    "hypothesis_transform": (
        "jiwer's transforms are not options here: strings are read with jiwer's default transform (wer_default or "
        "cer_default); transform the strings before passing them"
    ),
    "reference": "jiwer's reference is the second argument here (preds, target): the hypotheses come first",
    "hypothesis": "jiwer's hypothesis is the first argument here (preds, target)",
}


class WEROptions(SubwordOptions, total=False):
    """WER's and CER's options for type checkers: :class:`WERConfig`'s fields, by name (the options of
    subword ids; strings and plain ids need none)."""


@dataclass(frozen=True, kw_only=True)
class WERConfig(SubwordConfig):
    """Word error rate, as jiwer's ``wer`` reads strings (``wer_default``: runs of two or more whitespace
    characters become one space, the ends are stripped, and words are split at single spaces).

    Rows of token ids are scored as they are, each id one word (a Hugging Face tokenizer's ids: pass
    ``detokenizer=`` to score the decoded words instead).

    Args:
        ignore_ids, eos_id, detokenizer: rows of ids (:class:`~torch_bleu.metrics.config.SubwordConfig`).

    Example:
        >>> WERConfig(eos_id=2).eos_ids
        (2,)
        >>> WERConfig().fingerprint() != CERConfig().fingerprint()
        True
    """

    metric_name = "WER"
    foreign_options = FOREIGN_OPTIONS
    scores_plain_ids = True
    #: Whether the units are characters (CER) rather than words.
    characters: ClassVar[bool] = False

    @property
    def unit(self) -> str:
        """What is counted: ``"word"`` or ``"character"``."""
        return "character" if self.characters else "word"

    def check_text(self, text: Text) -> None:
        """Refuse strings of more than one reference per hypothesis."""
        self.check_references(max(map(len, text.references), default=1))

    def check_ids(self, batch: TokenBatch) -> None:
        """Refuse rows of ids with room for more than one reference per hypothesis."""
        self.check_references(batch.target.shape[1])

    def check_references(self, most: int) -> None:
        """Refuse a batch whose hypotheses have up to ``most`` references, more than one (as jiwer takes one).

        Example:
            >>> WERConfig().check_references(2)
            Traceback (most recent call last):
            ...
            ValueError: WER takes one reference per hypothesis (as jiwer does), got up to 2
        """
        if most > 1:
            raise ValueError(f"{self.metric_name} takes one reference per hypothesis (as jiwer does), got up to {most}")


@dataclass(frozen=True, kw_only=True)
class CERConfig(WERConfig):
    """Character error rate, as jiwer's ``cer`` reads strings (``cer_default``: the ends stripped of
    whitespace, then every code point one unit, spaces included).

    Rows of token ids are scored as they are, each id one unit; with ``detokenizer=``, the characters of
    the decoded text.

    Args:
        ignore_ids, eos_id, detokenizer: rows of ids (:class:`~torch_bleu.metrics.config.SubwordConfig`).
    """

    metric_name = "CER"
    characters = True
