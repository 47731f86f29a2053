"""ROUGE's options, declared and checked once for the functions and the metric."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

from ...errors import InputError
from ...options import check_choice, check_flag, check_whole
from ..config import SubwordConfig, SubwordOptions
from .kinds import RougeKind, kind_of
from .sentence_splitting import SentenceSplitter, SplitterName, check_splitter, splitter_name

if TYPE_CHECKING:
    from torch import Tensor

    from ...inputs.batch import TokenBatch

#: The ROUGE types rouge-score computes: n-gram overlap of order 1 to 9, and two LCS-based ones.
RougeType = Literal[
    "rouge1", "rouge2", "rouge3", "rouge4", "rouge5", "rouge6", "rouge7", "rouge8", "rouge9", "rougeL", "rougeLsum"
]
ROUGE_TYPES: tuple[str, ...] = get_args(RougeType)
#: The types a metric computes unless told otherwise (Hugging Face evaluate's and torchmetrics' choice).
DEFAULT_TYPES: tuple[RougeType, ...] = ("rouge1", "rouge2", "rougeL", "rougeLsum")
#: The tokenizers of strings.
RougeTokenizer = Literal["default", "unicode", "char"]
TOKENIZERS: tuple[str, ...] = get_args(RougeTokenizer)
#: How several references of one prediction make one score.
Accumulate = Literal["best", "avg"]
ACCUMULATE: tuple[str, ...] = get_args(Accumulate)
#: Whose ROUGE: rouge-score's, or pycocoevalcap's ROUGE-L of image captions (:mod:`.coco`).
Convention = Literal["rouge-score", "coco"]
CONVENTIONS: tuple[str, ...] = get_args(Convention)

#: Option names of torchmetrics, Hugging Face evaluate and rouge-score, each with what to pass here instead.
FOREIGN_OPTIONS = {
    "rouge_keys": (
        "torchmetrics' rouge_keys is rouge_types here, with rouge-score's names: rouge_types=('rouge1', 'rougeL')"
    ),
    "normalizer": (
        "a normalizer is not an option here: text is read as rouge-score reads it (lowercased, runs of characters "
        "other than a-z and 0-9 separate words); normalize the strings before passing them, or pick tokenize="
    ),
    "tokenizer": (
        "a tokenizer object is not an option here: pick tokenize='default' (rouge-score's), 'unicode' or 'char', "
        "or pass subword ids with detokenizer="
    ),
    "use_aggregator": (
        "Hugging Face evaluate's use_aggregator=False is torch_bleu.sentence_rouge here (a score per sentence); "
        "corpus_rouge and ROUGEScore give the mean of the sentences' scores (evaluate's aggregate reports the "
        "median of bootstrap means instead)"
    ),
    "split_summaries": (
        "rouge-score's split_summaries=True is split_sentences=nltk.sent_tokenize here (any function from a "
        "summary's text to its list of sentences)"
    ),
    "predictions": "the predictions are the first argument here, preds (preds, target)",
    "references": "the references are the second argument here, target (preds, target)",
}

#: The arguments of torchmetrics' ``ROUGEScore``, in the order it takes them by position.
BY_POSITION = ("use_stemmer", "normalizer", "tokenizer", "accumulate", "rouge_keys")


class ROUGEOptions(SubwordOptions, total=False):
    """ROUGE's options for type checkers: :class:`ROUGEConfig`'s fields, by name."""

    rouge_types: Sequence[RougeType]
    use_stemmer: bool
    tokenize: RougeTokenizer
    accumulate: Accumulate
    sentence_sep_id: int | None
    split_sentences: SentenceSplitter | None
    convention: Convention


@dataclass(frozen=True, kw_only=True)
class ROUGEConfig(SubwordConfig):
    """ROUGE as rouge-score 0.1.2 computes it (``RougeScorer(rouge_types, use_stemmer)``).

    Args:
        rouge_types: which ROUGE types to compute, among ``rouge1`` .. ``rouge9``, ``rougeL`` and
            ``rougeLsum``, in the order the results list them.
        use_stemmer: stem words longer than 3 characters with nltk's Porter stemmer (strings and
            subword ids, default tokenizer only; needs ``pip install torch-bleu[rouge]``).
        tokenize: how strings become words: ``"default"`` (rouge-score's: lowercase, runs of characters
            other than ``a-z0-9`` separate words), ``"unicode"`` or ``"char"`` (words and characters of
            any script, as rouge-score-rs' ``UnicodeTokenizer`` and ``CharacterTokenizer``).
        accumulate: several references of one prediction: ``"best"`` scores each type with the
            reference of the highest F-measure (the first of equals), as rouge-score's ``score_multi``;
            ``"avg"`` averages the precision, recall and F-measure of all references, each on its own.
        sentence_sep_id: rows of plain ids: the id that separates sentences for ``rougeLsum`` (it
            counts as no word); without it a row is one sentence.
        split_sentences: strings and subword ids: a function from a summary's text to its list of
            sentences, such as ``nltk.sent_tokenize``; each prediction and reference is read as its
            sentences joined with newlines (Hugging Face's summarization recipe), on the host
            (:mod:`.sentence_splitting`). Without it, ``rougeLsum`` splits text at its newlines only.
        convention: ``"rouge-score"`` (the default: everything above) or ``"coco"``: pycocoevalcap's
            ``Rouge().compute_score`` of image captions (:mod:`~torch_bleu.metrics.rouge.coco`): ROUGE-L
            only (``rouge_types`` left out, or ``"rougeL"``), words split on single spaces, as they are
            (no lowercasing, tokenizer, stemmer or sentence splitter), the best precision and the best
            recall over the references, F with beta 1.2. Strings, or rows of ids (each id a word; an empty
            row is the empty caption); not subword ids.
        ignore_ids, eos_id, detokenizer: rows of ids (:class:`~torch_bleu.metrics.config.SubwordConfig`).

    Example:
        >>> ROUGEConfig(rouge_types=["rougeL", "rouge2"]).rouge_types
        ('rougeL', 'rouge2')
        >>> ROUGEConfig(convention="coco").rouge_types
        ('rougeL',)
        >>> ROUGEConfig(rouge_types=("rouge10",))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: unknown ROUGE type 'rouge10'; rouge_types are among rouge1 .. rouge9, rougeL, rougeLsum (n-gram ...
    """

    rouge_types: Sequence[RougeType] = DEFAULT_TYPES
    use_stemmer: bool = False
    tokenize: RougeTokenizer = "default"
    accumulate: Accumulate = "best"
    sentence_sep_id: int | None = None
    split_sentences: SentenceSplitter | None = None
    convention: Convention = "rouge-score"

    metric_name = "ROUGE"
    counting_options = (
        "rouge_types",
        "use_stemmer",
        "tokenize",
        "accumulate",
        "sentence_sep_id",
        "split_sentences",
        "convention",
    )
    foreign_options = FOREIGN_OPTIONS
    positional_names = BY_POSITION
    scores_plain_ids = True

    def __post_init__(self) -> None:
        check_choice("convention", self.convention, CONVENTIONS)
        if self.convention == "coco":
            self._check_coco()
        types = ("rougeL",) if self.convention == "coco" else _types(self.rouge_types)
        for rouge_type in types:
            if rouge_type not in ROUGE_TYPES:
                hint = " (n-gram orders run from 1 to 9)" if re.fullmatch(r"rouge\d+", str(rouge_type)) else ""
                raise ValueError(
                    f"unknown ROUGE type {rouge_type!r}; rouge_types are among rouge1 .. rouge9, rougeL, "
                    f"rougeLsum{hint}"
                )
        if not types:
            raise ValueError("rouge_types is empty: name at least one ROUGE type, such as 'rouge1'")
        if len(set(types)) != len(types):
            raise ValueError(f"rouge_types names a type twice: {types}")
        object.__setattr__(self, "use_stemmer", check_flag("use_stemmer", self.use_stemmer))
        check_choice("tokenize", self.tokenize, TOKENIZERS)
        check_choice("accumulate", self.accumulate, ACCUMULATE)
        check_splitter(self.split_sentences)
        if self.sentence_sep_id is not None:
            separator = check_whole("sentence_sep_id", self.sentence_sep_id, 0)
            if separator >= 2**63:
                raise ValueError(f"sentence_sep_id must be a token id that fits in int64, got {separator}")
            object.__setattr__(self, "sentence_sep_id", separator)
        super().__post_init__()
        if self.use_stemmer and self.tokenize != "default":
            raise ValueError(
                f"use_stemmer=True stems English words; it goes with tokenize='default', not {self.tokenize!r}"
            )
        if self.detokenizer is not None and self.tokenize != "default":
            raise ValueError("subword ids are read with the default tokenizer; tokenize= is for strings")
        if self.detokenizer is not None and self.sentence_sep_id is not None:
            raise ValueError(
                "sentence_sep_id is for rows of plain ids; decoded text is split into sentences at its newlines"
            )
        object.__setattr__(self, "rouge_types", types)

    def _check_coco(self) -> None:
        """Refuse what pycocoevalcap's ROUGE-L has no room for: other ROUGE types, and the options of words,
        sentences, several references and subword ids."""
        if self.rouge_types is not DEFAULT_TYPES and _types(self.rouge_types) != ("rougeL",):
            raise ValueError(
                f"convention='coco' computes pycocoevalcap's ROUGE-L only: leave rouge_types out or pass "
                f"rouge_types=('rougeL',), not {self.rouge_types!r} (for other types, use convention='rouge-score')"
            )
        refused = {
            "use_stemmer": (self.use_stemmer, False),
            "tokenize": (self.tokenize, "default"),
            "split_sentences": (self.split_sentences, None),
            "sentence_sep_id": (self.sentence_sep_id, None),
        }
        for name, (value, default) in refused.items():
            if value != default:
                raise ValueError(
                    f"convention='coco' reads words as pycocoevalcap does (each caption split on single spaces, "
                    f"as it is): {name}={value!r} has no place there; leave {name} out, or prepare the captions "
                    "(pycocoevalcap's PTBTokenizer lowercases and tokenizes them first)"
                )
        if self.accumulate != "best":
            raise ValueError(
                f"convention='coco' takes the best precision and the best recall over the references, as "
                f"pycocoevalcap does: accumulate={self.accumulate!r} has no place there; leave accumulate out"
            )
        if self.detokenizer is not None:
            raise ValueError(
                "convention='coco' scores strings or rows of ids (each id a word): decode subword ids and pass "
                "the strings, or leave detokenizer out"
            )

    @property
    def scores_of_statistics(self) -> bool:
        """Whether each sentence's scores are those of its statistics (:func:`.score.rouge_scores`): with
        rouge-score's best reference; not with ``accumulate="avg"`` (means of several references' scores) nor
        under ``convention="coco"`` (the best precision and the best recall may be of different references).

        Example:
            >>> ROUGEConfig().scores_of_statistics, ROUGEConfig(convention="coco").scores_of_statistics
            (True, False)
        """
        return self.convention == "rouge-score" and self.accumulate == "best"

    def check_ids(self, batch: TokenBatch) -> None:
        """Refuse the options of text for rows of plain ids (:meth:`check_plain_ids`)."""
        if self.detokenizer is None:
            self.check_plain_ids()

    def check_plain_ids(self) -> None:
        """Refuse the options of text for rows of plain ids (each id a word already): ``use_stemmer`` and a
        ``tokenize`` other than the default. Whether a batch is plain ids is known per batch only.

        Example:
            >>> ROUGEConfig(tokenize="char").check_plain_ids()  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            ValueError: tokenize='char' splits strings into words; rows of plain ids are words already (pass ...
        """
        if self.use_stemmer:
            raise ValueError(
                "use_stemmer=True stems words of text; rows of plain ids are words already (pass strings, or "
                "subword ids with detokenizer=)"
            )
        if self.tokenize != "default":
            raise ValueError(
                f"tokenize={self.tokenize!r} splits strings into words; rows of plain ids are words already "
                "(pass strings to tokenize them, or leave tokenize='default' for ids)"
            )
        if self.split_sentences is not None:
            raise ValueError(
                "split_sentences splits text into sentences; rows of plain ids have no text (pass "
                "sentence_sep_id= for them, or subword ids with detokenizer=)"
            )

    def counting(self) -> dict[str, Any]:
        """The options that decide the statistics, the splitter by its name (:func:`.splitter_name`): a
        function's ``repr`` holds its address, which differs from process to process.

        Example:
            >>> import textwrap
            >>> ROUGEConfig(split_sentences=textwrap.wrap).counting()["split_sentences"]
            textwrap.wrap
        """
        counting = super().counting()
        if self.split_sentences is not None:
            counting["split_sentences"] = SplitterName(splitter_name(self.split_sentences))
        return counting

    def check_strings(self) -> None:
        """Refuse the options of ids for strings: ``ignore_ids``, ``eos_id`` and ``sentence_sep_id`` (text has
        no ids; ``rougeLsum`` splits a string's summary into sentences at its newlines).

        Example:
            >>> ROUGEConfig(sentence_sep_id=13).check_strings()  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            torch_bleu.errors.InputError: sentence_sep_id applies to rows of token ids; ROUGE reads strings as ...
        """
        super().check_strings()
        if self.sentence_sep_id is not None:
            raise InputError(
                "sentence_sep_id applies to rows of token ids; ROUGE reads strings as they are (text has no ids): "
                "rougeLsum splits a string into sentences at its newlines, so join each summary's sentences with "
                "'\\n' and leave sentence_sep_id out"
            )

    @property
    def types(self) -> tuple[RougeType, ...]:
        """The ROUGE types, in order (one type's name alone is a type of one).

        Example:
            >>> ROUGEConfig(rouge_types="rougeLsum").types
            ('rougeLsum',)
        """
        assert isinstance(self.rouge_types, tuple)  # resolved by __post_init__
        return self.rouge_types

    @property
    def kinds(self) -> tuple[RougeKind, ...]:
        """The kind of each type, in order (:mod:`.kinds`).

        Example:
            >>> ROUGEConfig().kinds
            (NGrams(n=1), NGrams(n=2), LCS(), UnionLCS())
        """
        return tuple(map(kind_of, self.types))

    def result_keys(self) -> list[str]:
        """The keys of a result, ``f"{rouge_type}_{precision|recall|fmeasure}"``, types first.

        Example:
            >>> ROUGEConfig(rouge_types=("rouge1",)).result_keys()
            ['rouge1_precision', 'rouge1_recall', 'rouge1_fmeasure']
        """
        return [f"{rouge_type}_{measure}" for rouge_type in self.types for measure in MEASURES]

    def results(self, values: Iterable[Tensor]) -> ROUGEResults:
        """A result: the values in the order of :meth:`result_keys`, keyed by them (:class:`ROUGEResults`)."""
        return ROUGEResults(zip(self.result_keys(), values))


def _types(rouge_types: object) -> tuple[object, ...]:
    """``rouge_types`` as a tuple, one name alone a tuple of one; what has no order (a set, a dict) or is no
    sequence of names refused.

    Example:
        >>> _types({"rouge1", "rouge2"})
        Traceback (most recent call last):
        ...
        TypeError: rouge_types must be a list or tuple, not a set: the result keys follow its order, which a set lacks
    """
    if isinstance(rouge_types, str):
        return (rouge_types,)
    if isinstance(rouge_types, (Set, Mapping)):
        kind = "set" if isinstance(rouge_types, Set) else "dict"
        raise TypeError(
            f"rouge_types must be a list or tuple, not a {kind}: the result keys follow its order, which a {kind} lacks"
        )
    if not isinstance(rouge_types, Iterable):
        raise TypeError(
            "rouge_types must be a list or tuple of ROUGE types, such as ('rouge1', 'rouge2', 'rougeL'), or one "
            f"type's name, got {type(rouge_types).__name__}"
        )
    return tuple(rouge_types)


#: What each ROUGE type gives, in order.
MEASURES = ("precision", "recall", "fmeasure")


class ROUGEResults(dict[str, "Tensor"]):
    """A result of ROUGE, keyed ``f"{rouge_type}_{precision|recall|fmeasure}"``: a plain ``dict`` (equal to
    one, JSON and ``MetricCollection`` read it as one) whose missing keys are reported with the keys to use.

    Hugging Face ``evaluate`` gives each type's F-measure under the type's own name (``result["rougeL"]``),
    and rouge-score a ``Score`` per type; here a type's name is the start of its three keys.

    Example:
        >>> result = ROUGEResults(rougeL_precision=1.0, rougeL_recall=0.5, rougeL_fmeasure=2 / 3)
        >>> result == {"rougeL_precision": 1.0, "rougeL_recall": 0.5, "rougeL_fmeasure": 2 / 3}
        True
        >>> try:
        ...     result["rougeL"]
        ... except KeyError as error:
        ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
        rougeL is not a key: the keys of rougeL are rougeL_precision, rougeL_recall, rougeL_fmeasure
        (Hugging Face evaluate's rougeL is rougeL_fmeasure)
    """

    def __missing__(self, key: str) -> Tensor:
        own = [f"{key}_{measure}" for measure in MEASURES]
        if all(name in self for name in own):
            raise ResultKeyError(
                f"{key} is not a key: the keys of {key} are {', '.join(own)} "
                f"(Hugging Face evaluate's {key} is {key}_fmeasure)"
            )
        raise ResultKeyError(f"{key!r} is not a key: the keys are {', '.join(self)}")


class ResultKeyError(KeyError):
    """A ``KeyError`` whose message is shown as it is written (``KeyError`` shows the repr of its argument)."""

    def __str__(self) -> str:
        return str(self.args[0])
