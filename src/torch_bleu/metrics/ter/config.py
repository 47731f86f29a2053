"""TER's options, declared and checked once for the functions, the metric and the command line."""

from __future__ import annotations

from dataclasses import dataclass

from ...options import check_flag
from ..config import SubwordConfig, SubwordOptions

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
            check_flag(name, getattr(self, name))
        super().__post_init__()

    @property
    def tercom_rules(self) -> bool:
        """Whether text goes through Tercom's normalizer (sacrebleu's), not only lowercasing and splitting."""
        return self.normalized or self.no_punct

    @property
    def input_hint(self) -> str:
        """What to do with input of the wrong kind: text where ids go, or ids where text goes."""
        if self.detokenizer is not None:
            return "with a detokenizer, TER's preds are subword ids; to score strings, leave detokenizer out"
        return "TER scores strings; for subword ids, pass detokenizer= (a torch_bleu.Detokenizer of their tokenizer)"
