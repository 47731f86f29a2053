"""TER's options, declared and checked once for the functions, the metric and the command line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...errors import InputError
from ...options import check_flag
from ..config import SubwordConfig, SubwordOptions

if TYPE_CHECKING:
    from ...inputs.kinds import Text

#: The most references a sentence may have (the mean length of more is not whole in the statistics' unit).
MAX_REFERENCES = 16

#: Option names of torchmetrics' ``TranslationEditRate``, each with what to pass here instead.
FOREIGN_OPTIONS = {
    "normalize": "torchmetrics' normalize is normalized here",
    "no_punctuation": "torchmetrics' no_punctuation is no_punct here",
    "lowercase": (
        "torchmetrics' lowercase=True is the default here (case_sensitive=False, as in sacrebleu); "
        "lowercase=False is case_sensitive=True"
    ),
    "return_sentence_level_score": (
        "torchmetrics' return_sentence_level_score is torch_bleu.sentence_ter here (one score per sentence)"
    ),
}


class TEROptions(SubwordOptions, total=False):
    """TER's options for type checkers: :class:`TERConfig`'s fields, by name."""

    normalized: bool
    no_punct: bool
    asian_support: bool
    case_sensitive: bool


@dataclass(frozen=True, kw_only=True)
class TERConfig(SubwordConfig):
    """One flavour of TER, with sacrebleu's defaults (``TER()``: lowercased, words split at whitespace).

    Args:
        normalized: Tercom's normalization: XML entities, punctuation split off, lines joined
            (sacrebleu's ``normalized``); with ``asian_support``, CJK split into characters.
        no_punct: remove punctuation (sacrebleu's ``no_punct``); with ``asian_support``, CJK and
            full-width punctuation too.
        asian_support: the CJK rules of ``normalized`` and ``no_punct`` (no effect without them).
        case_sensitive: keep case (by default text is lowercased, as Tercom does).
        ignore_ids, eos_id, detokenizer: subword ids scored as their decoded text
            (:class:`~torch_bleu.metrics.config.SubwordConfig`).

    Example:
        >>> TERConfig(normalized=True).tercom_rules
        True
        >>> TERConfig(eos_id=2)
        Traceback (most recent call last):
        ...
        ValueError: eos_id is an option of subword ids, which need a detokenizer; text has no ids
    """

    normalized: bool = False
    no_punct: bool = False
    asian_support: bool = False
    case_sensitive: bool = False

    metric_name = "TER"
    counting_options = ("normalized", "no_punct", "asian_support", "case_sensitive")
    foreign_options = FOREIGN_OPTIONS
    positional_names = ("normalize", "no_punctuation", "lowercase", "asian_support", "return_sentence_level_score")

    def __post_init__(self) -> None:
        for name in ("normalized", "no_punct", "asian_support", "case_sensitive"):
            object.__setattr__(self, name, check_flag(name, getattr(self, name)))
        super().__post_init__()

    @property
    def tercom_rules(self) -> bool:
        """Whether text goes through Tercom's normalizer (sacrebleu's), not only lowercasing and splitting."""
        return self.normalized or self.no_punct

    def check_text(self, text: Text) -> None:
        """Refuse strings of more than :data:`MAX_REFERENCES` references per hypothesis."""
        check_reference_count(max(map(len, text.references), default=0))


def check_reference_count(most: int) -> None:
    """Refuse a batch whose sentences have up to ``most`` references, more than :data:`MAX_REFERENCES`.

    Example:
        >>> check_reference_count(17)
        Traceback (most recent call last):
        ...
        torch_bleu.errors.InputError: TER takes at most 16 references per sentence, got 17
    """
    if most > MAX_REFERENCES:
        raise InputError(f"TER takes at most {MAX_REFERENCES} references per sentence, got {most}")
