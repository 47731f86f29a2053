"""TER's options, declared and checked once for the functions, the metric and the command line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ...options import check_flag, check_token_ids
from ..config import MetricConfig, check_detokenizer

if TYPE_CHECKING:
    from ...detokenize.detokenizer import Detokenizer

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


@dataclass(frozen=True)
class TERConfig(MetricConfig):
    """One flavour of TER, with sacrebleu's defaults (``TER()``: lowercased, words split at whitespace).

    Args:
        normalized: Tercom's normalization: XML entities, punctuation split off, lines joined
            (sacrebleu's ``normalized``); with ``asian_support``, CJK split into characters.
        no_punct: remove punctuation (sacrebleu's ``no_punct``); with ``asian_support``, CJK and
            full-width punctuation too.
        asian_support: the CJK rules of ``normalized`` and ``no_punct`` (no effect without them).
        case_sensitive: keep case (by default text is lowercased, as Tercom does).
        ignore_ids: ids dropped before decoding (with ``detokenizer``).
        eos_id: one id or several: every row is cut at its first EOS before decoding (with ``detokenizer``).
        detokenizer: a :class:`~torch_bleu.Detokenizer` to score subword ids as their decoded text.

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
    ignore_ids: Sequence[int] = ()
    eos_id: int | Sequence[int] | None = None
    detokenizer: Detokenizer | None = None

    metric_name: ClassVar[str] = "TER"
    counting_options: ClassVar[tuple[str, ...]] = (
        "normalized",
        "no_punct",
        "asian_support",
        "case_sensitive",
        "ignore_ids",
        "eos_id",
        "detokenizer",
    )
    foreign_options: ClassVar[dict[str, str]] = FOREIGN_OPTIONS
    positional_names: ClassVar[tuple[str, ...]] = (
        "normalize",
        "no_punctuation",
        "lowercase",
        "asian_support",
        "return_sentence_level_score",
    )

    def __post_init__(self) -> None:
        for name in ("normalized", "no_punct", "asian_support", "case_sensitive"):
            check_flag(name, getattr(self, name))
        token_ids = {name: check_token_ids(name, getattr(self, name)) for name in ("ignore_ids", "eos_id")}
        if self.detokenizer is None:
            for name, value in token_ids.items():
                if value:
                    raise ValueError(f"{name} is an option of subword ids, which need a detokenizer; text has no ids")
        else:
            check_detokenizer(self.detokenizer)
        for name, value in token_ids.items():
            object.__setattr__(self, name, value)

    @property
    def eos_ids(self) -> tuple[int, ...]:
        """The ids that end a row (none unless ``eos_id`` is given)."""
        assert isinstance(self.eos_id, tuple)  # resolved by __post_init__
        return self.eos_id

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
