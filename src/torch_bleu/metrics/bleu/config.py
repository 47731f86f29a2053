"""BLEU's options, declared and checked once for the functions, the metric and the command line.

Every public entry point builds one :class:`BLEUConfig` from its keyword arguments, so a bad option is
rejected with the same message wherever it is passed, before any statistic is touched.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal, get_args

from ...inputs.advice import PlainIds, wrong_kind_hint
from ...options import check_choice, check_flag, check_whole
from ...text.tokenizers import TOKENIZERS, TOKENIZERS_ON_CODE_POINTS, Tokenizer
from ..config import SubwordConfig, SubwordOptions

SacrebleuSmoothing = Literal["none", "floor", "add-k", "exp"]
NltkSmoothing = Literal["method0", "method1", "method2", "method3", "method4", "method5", "method6", "method7"]
#: A smoothing method: sacrebleu's, or nltk's (with ``convention="nltk"``).
Smoothing = SacrebleuSmoothing | NltkSmoothing
#: Whose rules BLEU follows.
Convention = Literal["sacrebleu", "nltk", "coco"]
#: Which reference length a hypothesis is compared with.
RefLength = Literal["closest", "shortest"]

SACREBLEU_SMOOTHING: tuple[SacrebleuSmoothing, ...] = get_args(SacrebleuSmoothing)
NLTK_SMOOTHING: tuple[NltkSmoothing, ...] = get_args(NltkSmoothing)
CONVENTIONS: tuple[Convention, ...] = get_args(Convention)
REF_LENGTH_RULES: tuple[RefLength, ...] = get_args(RefLength)
DEFAULT_MAX_ORDER = 4

#: Smoothing names each convention accepts (``"none"`` is nltk's ``method0`` under ``convention="nltk"``).
SMOOTHING_BY_CONVENTION = {"sacrebleu": SACREBLEU_SMOOTHING, "nltk": ("none", *NLTK_SMOOTHING), "coco": ("none",)}

#: The tokenizers of strings under ``convention="coco"``: pycocoevalcap's scorers split captions on whitespace
#: (``str.split()``), which ``tokenize=None`` (strings or ids) and ``"none"`` (strings only) both do.
COCO_TOKENIZERS: tuple[Tokenizer, ...] = ("none",)

#: The highest order of ``convention="coco"``: pycocoevalcap's ``cook_test`` counts 1- to 4-grams.
COCO_MAX_ORDER = 4


#: nltk's name for each sacrebleu smoothing, for error messages that point the way.
NLTK_NAME_OF = {"floor": "method1", "add-k": "method2", "exp": "method3"}

#: Default ``smooth_value`` per smoothing method, as in sacrebleu (``floor``, ``add-k``) and nltk
#: (``method1``'s epsilon, ``method4``'s and ``method7``'s k, ``method6``'s alpha).
DEFAULT_SMOOTH_VALUES = {"floor": 0.1, "add-k": 1.0, "method1": 0.1, "method4": 5.0, "method6": 5.0, "method7": 5.0}

#: nltk methods whose constant must be positive: nltk divides by k (method4, method7) and by
#: ``l + alpha`` (method6), where ``l`` is 0 for a hypothesis without n-grams of that order.
POSITIVE_SMOOTH_VALUES = ("method4", "method6", "method7")

#: nltk methods that read the 5-gram precision whatever ``max_order`` is (``SmoothingFunction.method5``).
FIVE_GRAM_METHODS = ("method5", "method7")

#: nltk methods whose ``corpus_bleu`` reads the last sentence of the corpus only.
SENTENCE_ONLY_METHODS = ("method5", "method6", "method7")


#: What to do with text given where ids are expected.
TEXT_HINT = (
    "to score strings, pass tokenize='13a' (or another of sacrebleu's tokenizers), and torch_bleu tokenizes "
    "them as sacrebleu does; nltk's lists of words give nltk's number exactly when joined by spaces, with "
    "tokenize='none', convention='nltk' (\" \".join(words) for every hypothesis and reference); or map text "
    "to ids with your own tokenizer first"
)

#: What to do where BLEU of decoded ids is not exact.
DECODE_HINT = "decode the rows yourself and pass the strings with tokenize= instead"

#: Option names of other BLEU libraries, each with what to pass here instead.
FOREIGN_OPTIONS = {
    "n_gram": "torchmetrics' n_gram is max_order here",
    "max_ngram_order": "sacrebleu's max_ngram_order is max_order here",
    "smooth": "torchmetrics' smooth=True adds one to every order; the closest here is smoothing='add-k'",
    "smooth_method": "sacrebleu's smooth_method is smoothing here ('none', 'floor', 'add-k' or 'exp')",
    "smoothing_function": (
        "nltk's smoothing_function=SmoothingFunction().methodN is convention='nltk', smoothing='methodN' here"
    ),
    "auto_reweigh": "nltk's auto_reweigh is not supported; pass the weights of the orders you want",
}


class BLEUOptions(SubwordOptions, total=False):
    """BLEU's options for type checkers: :class:`BLEUConfig`'s fields, by name."""

    max_order: int | None
    weights: Sequence[float] | None
    smoothing: Smoothing
    smooth_value: float | None
    effective_order: bool
    ref_length: RefLength
    convention: Convention
    tokenize: Tokenizer | None
    lowercase: bool


@dataclass(frozen=True, kw_only=True)
class BLEUConfig(SubwordConfig):
    """The options that define one flavour of BLEU.

    Args:
        max_order: highest n-gram order ``N`` (sacrebleu's ``max_ngram_order``, torchmetrics' ``n_gram``).
            ``None`` (the default) takes the number of ``weights`` when they are given, as nltk does
            (``weights=(0.5, 0.5)`` is BLEU-2), else 4.
        weights: one non-negative weight per order; ``None`` means uniform ``1/N``. They need not sum to 1.
        smoothing: ``"none"``, ``"floor"``, ``"add-k"``, ``"exp"`` (sacrebleu), or, with
            ``convention="nltk"``, ``"method0"`` ... ``"method7"`` (nltk's ``SmoothingFunction``; there
            ``"none"`` means ``"method0"``).
        smooth_value: the smoothing constant: sacrebleu's floor value or k, nltk's epsilon
            (``method1``), k (``method4``, ``method7``, must be > 0) or alpha (``method6``, must be > 0).
            ``None`` takes the library default. nltk methods without a constant reject one.
        effective_order: average only over the orders the hypothesis has n-grams for (sacrebleu only;
            nltk's denominators are never 0, so the nltk convention has no such option).
        ignore_ids: token ids (PAD, BOS, ...) dropped wherever they occur in a row, before n-grams are formed;
            negative ids (Hugging Face's -100 labels) are never tokens and always dropped.
        eos_id: one id or several: every row is cut at its first EOS, which counts for nothing, and
            neither does any token after it (batched decoding goes on emitting tokens after a row's EOS).
        ref_length: ``"closest"`` reference length (ties go to the shorter one) or ``"shortest"``.
        convention: ``"sacrebleu"``, ``"nltk"`` or ``"coco"``; decides the per-sentence denominators and edge
            rules. ``"coco"`` is pycocoevalcap's ``Bleu(max_order)`` (COCO captions' BLEU-1..4): words split on
            whitespace (strings with ``tokenize`` unset or ``"none"``; rows of ids, each id a word), per order
            the precision ``(matches + 1e-15) / (n-grams + 1e-9)``, BLEU-k the product of orders 1..k to the
            power ``1 / k``, and the brevity penalty ``exp(1 - r / c)`` with ``c + 1e-15`` and ``r + 1e-9``
            whenever their ratio is below 1, ``r`` the closest reference length (ties to the shorter: ``Bleu``
            asks its scorer for ``"closest"`` however many images are scored). Its statistics are sacrebleu's
            with ``ref_length="closest"``. ``max_order`` is 1 to 4 (``Bleu(n)``). It has no smoothing,
            ``smooth_value``, ``effective_order``, unequal ``weights``, other ``ref_length``, other tokenizer
            or ``detokenizer``: those are refused.
        tokenize: ``None`` (the default) to score token ids (under ``convention="coco"``, token ids or
            strings split on whitespace); or the name of one of sacrebleu's
            tokenizers (``"13a"``, ``"intl"``, ``"zh"``, ``"char"``, ``"none"``; ``"ja-mecab"`` /
            ``"ko-mecab"`` with sacrebleu's extras; ``"flores101"`` / ``"flores200"`` with sentencepiece
            and sacrebleu's model) to score strings, tokenized as sacrebleu does.
        lowercase: lowercase strings before tokenizing them (sacrebleu's ``lowercase``); text only.
        detokenizer: a :class:`~torch_bleu.Detokenizer` to score rows of subword ids as sacrebleu scores
            their decoded text, on the device; ``tokenize`` is then ``"13a"`` (the default), ``"intl"``,
            ``"zh"``, ``"none"`` or ``"char"``; rows are cut at ``eos_id`` and ``ignore_ids`` dropped before decoding.
            References may be ids or the original strings.

    Example:
        >>> BLEUConfig(max_order=2).weights
        (0.5, 0.5)
        >>> BLEUConfig(weights=(0.5, 0.5)).max_order
        2
        >>> BLEUConfig(smoothing="floor").smooth_value
        0.1
        >>> BLEUConfig(convention="nltk", smoothing="method4").smooth_value
        5.0
        >>> BLEUConfig(convention="coco", smoothing="floor")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: smoothing 'floor' does not belong to convention 'coco'; pycocoevalcap's BLEU has no smoothing ...
        >>> BLEUConfig(max_order=0)
        Traceback (most recent call last):
        ...
        ValueError: max_order must be an integer >= 1, got 0
    """

    max_order: int | None = None
    weights: Sequence[float] | None = None
    smoothing: Smoothing = "none"
    smooth_value: float | None = None
    effective_order: bool = False
    ref_length: RefLength = "closest"
    convention: Convention = "sacrebleu"
    tokenize: Tokenizer | None = None
    lowercase: bool = False

    metric_name = "BLEU"
    counting_options = ("max_order", "ref_length", "convention", "tokenize", "lowercase")
    foreign_options = FOREIGN_OPTIONS
    positional_names = ("n_gram", "smooth", "weights")
    scores_plain_ids: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        for flag in ("lowercase", "effective_order"):  # NumPy's bools become bools
            object.__setattr__(self, flag, check_flag(flag, getattr(self, flag)))
        order = _resolve_max_order(self.max_order, self.weights)
        check_choice("convention", self.convention, CONVENTIONS)
        if self.convention == "coco":
            _check_coco_options(self)
        tokenize = self.tokenize
        if self.detokenizer is None:
            _check_text_options(tokenize, self.lowercase, self.ignored_ids, self.eos_ids)
        else:
            tokenize = _check_detokenizer_options(tokenize, self.lowercase)
        check_choice("ref_length", self.ref_length, REF_LENGTH_RULES)
        _check_smoothing(self.smoothing, self.convention)
        if self.effective_order and self.convention != "sacrebleu":
            raise ValueError(
                f"effective_order is sacrebleu's option; convention={self.convention!r} has none (its "
                + ("denominators are never 0)" if self.convention == "nltk" else "offsets keep every order defined)")
            )
        if self.convention == "coco" and order > COCO_MAX_ORDER:
            raise ValueError(
                f"convention='coco' has orders 1..{COCO_MAX_ORDER}: pycocoevalcap's Bleu(n) counts n-grams of at "
                f"most {COCO_MAX_ORDER} words whatever n is (and fails past it), got max_order={order}"
            )
        weights = _check_weights(self.weights, order)
        if self.convention == "coco" and len(set(weights)) > 1:
            raise ValueError(
                "convention='coco' scores BLEU-N as pycocoevalcap does, the geometric mean of orders 1..N with "
                f"equal weights; pass max_order={order} instead of weights={self.weights!r}"
            )
        resolved = {
            "max_order": order,
            "weights": weights,
            "smooth_value": _check_smooth_value(self.smoothing, self.smooth_value),
            "tokenize": tokenize,
        }
        for name, value in resolved.items():
            object.__setattr__(self, name, value)

    @property
    def orders(self) -> int:
        """How many orders the score has: ``max_order``, or the number of ``weights``, or 4.

        Example:
            >>> BLEUConfig(weights=(0.5, 0.5)).orders
            2
        """
        assert self.max_order is not None  # resolved by __post_init__
        return self.max_order

    @property
    def order_weights(self) -> tuple[float, ...]:
        """The weight of each order (uniform unless ``weights`` are given).

        Example:
            >>> BLEUConfig(max_order=2).order_weights
            (0.5, 0.5)
        """
        assert self.weights is not None  # resolved by __post_init__
        return tuple(self.weights)

    @property
    def constant(self) -> float:
        """``smooth_value`` of a smoothing method that has a constant (floor, add-k, method1, 4, 6, 7).

        Example:
            >>> BLEUConfig(smoothing="add-k").constant
            1.0
        """
        if self.smooth_value is None:
            raise ValueError(f"smoothing {self.smoothing!r} has no constant")
        return self.smooth_value

    @property
    def statistics_order(self) -> int:
        """How many n-gram orders the statistics must cover: ``max_order``, or at least 5 for nltk's
        ``method5`` and ``method7``, which always read the 5-gram precision.

        Example:
            >>> BLEUConfig(max_order=2, convention="nltk", smoothing="method5").statistics_order
            5
        """
        return max(self.orders, 5) if self.smoothing in FIVE_GRAM_METHODS else self.orders

    @property
    def plain_ids(self) -> PlainIds:
        """Rows of ids are read as they are where ``tokenize`` is ``None``; with a tokenizer, strings are.
        Under ``convention="coco"`` without a tokenizer, strings (words split on whitespace) or ids.

        Example:
            >>> BLEUConfig().plain_ids, BLEUConfig(tokenize="13a").plain_ids, BLEUConfig(convention="coco").plain_ids
            ('always', 'never', 'unless strings')
        """
        if self.tokenize is not None:
            return "never"
        return "unless strings" if self.convention == "coco" else "always"

    @property
    def text_tokenizer(self) -> Tokenizer:
        """The tokenizer of strings: ``tokenize``, or under ``convention="coco"`` without one, whitespace words
        (sacrebleu's ``"none"``, which is ``str.split()``).

        Example:
            >>> BLEUConfig(convention="coco").text_tokenizer, BLEUConfig(tokenize="13a").text_tokenizer
            ('none', '13a')
        """
        if self.tokenize is not None:
            return self.tokenize
        if self.convention != "coco":
            raise ValueError(f"tokenize=None scores ids: {TEXT_HINT}")
        return "none"

    @property
    def input_hint(self) -> str:
        """What to do with input of the wrong kind: text where ids go, or ids where text goes."""
        if self.detokenizer is not None:
            return wrong_kind_hint(self.metric_name, self.plain_ids, self.unit, subwords=True) + " and pass tokenize="
        if self.tokenize is None and self.convention == "coco":
            return (
                "with convention='coco', BLEU scores strings (words split on whitespace) or rows of ids (each id "
                "one word); for subword ids, decode them and pass strings"
            )
        if self.tokenize is None:
            return TEXT_HINT
        return (
            "with tokenize=, BLEU scores strings; for token ids leave tokenize=None, for subword ids pass detokenizer="
        )


def require_corpus_smoothing(config: BLEUConfig) -> None:
    """Reject nltk's ``method5``, ``method6`` and ``method7`` for corpus scores.

    nltk's ``corpus_bleu`` feeds these methods the last sentence of the corpus (its 5-gram precision,
    its n-gram counts), so the corpus score would depend on which sentence a batch or a DDP rank
    happens to see last. They are well defined per sentence: use :func:`~torch_bleu.sentence_bleu`.

    Example:
        >>> require_corpus_smoothing(BLEUConfig(convention="nltk", smoothing="method6"))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: smoothing='method6' is sentence-level only: ... torch_bleu.sentence_bleu(..., smoothing='method6')
    """
    if config.smoothing in SENTENCE_ONLY_METHODS:
        raise ValueError(
            f"smoothing={config.smoothing!r} is sentence-level only: nltk's corpus_bleu applies it to the last "
            "sentence of the corpus, which has no meaning under batching or DDP; score sentences with "
            f"torch_bleu.sentence_bleu(..., convention='nltk', smoothing={config.smoothing!r})"
        )


def _check_coco_options(config: BLEUConfig) -> None:
    """Refuse, under ``convention="coco"``, the options pycocoevalcap's ``Bleu`` has no counterpart of: other
    tokenizers than whitespace words, lowercasing without ``tokenize="none"``, subword ids, a reference length
    rule, a smoothing constant (smoothing itself is checked with the other conventions')."""
    if config.tokenize is not None and config.tokenize not in COCO_TOKENIZERS:
        raise ValueError(
            "convention='coco' splits captions on whitespace, as pycocoevalcap's scorers do: leave tokenize unset "
            f"(strings or ids) or pass tokenize='none' (strings only), not tokenize={config.tokenize!r}"
        )
    if config.lowercase and config.tokenize is None:
        raise ValueError("lowercase applies to strings: with convention='coco' pass tokenize='none' with it")
    if config.detokenizer is not None:
        raise ValueError("convention='coco' does not decode subword ids: decode them and pass the captions as strings")
    if config.ref_length != "closest":
        raise ValueError(
            "convention='coco' takes the closest reference length, as pycocoevalcap's Bleu does; leave ref_length "
            f"unset, not {config.ref_length!r}"
        )
    if config.smooth_value is not None:
        raise ValueError("convention='coco' has no smoothing, so no smooth_value: leave it unset")


def _resolve_max_order(max_order: int | None, weights: Sequence[float] | None) -> int:
    """``max_order`` as given, else the number of weights (nltk's rule), else 4."""
    if max_order is None:
        if weights is None or isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__"):
            return DEFAULT_MAX_ORDER  # bad weights are reported by _check_weights
        if not weights:
            raise ValueError("weights must have one entry per order, got none")
        max_order = len(weights)
    return check_whole("max_order", max_order, minimum=1)


def _check_weights(weights: Sequence[float] | None, max_order: int) -> tuple[float, ...]:
    if weights is None:
        return (1.0 / max_order,) * max_order
    if isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__"):
        raise TypeError(f"weights must be a sequence of {max_order} numbers, got {type(weights).__name__}")
    if len(weights) != max_order:
        raise ValueError(f"weights must have one entry per order: expected {max_order}, got {len(weights)}")
    checked: list[float] = []
    for weight in weights:
        if isinstance(weight, bool) or not isinstance(weight, numbers.Real):
            raise TypeError(f"weights must be real numbers, got {weight!r}")
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"weights must be finite and non-negative, got {weight!r}")
        checked.append(float(weight))
    if not any(checked):
        raise ValueError("weights must not all be zero")
    return tuple(checked)


def _check_smoothing(smoothing: object, convention: Convention) -> None:
    """Refuse a smoothing that is not a name, or not one of ``convention``'s; nltk's smoothing function
    itself (``SmoothingFunction().method1``) is told its name here."""
    name = getattr(smoothing, "__name__", "")
    if callable(smoothing) and name in NLTK_SMOOTHING:
        raise TypeError(
            f"smoothing takes the name of nltk's method, not the function: pass convention='nltk', smoothing={name!r}"
        )
    check_choice("smoothing", smoothing, SACREBLEU_SMOOTHING + NLTK_SMOOTHING)
    if smoothing in SMOOTHING_BY_CONVENTION[convention]:
        return
    if convention == "coco":
        hint = "pycocoevalcap's BLEU has no smoothing (its offsets 1e-15 and 1e-9 keep every precision positive)"
    elif convention == "nltk":
        hint = f"nltk calls it {NLTK_NAME_OF[str(smoothing)]!r}"
    else:
        hint = "pass convention='nltk' for nltk's smoothing methods"
    raise ValueError(f"smoothing {smoothing!r} does not belong to convention {convention!r}; {hint}")


def _check_smooth_value(smoothing: str, smooth_value: float | None) -> float | None:
    if smooth_value is None:
        return DEFAULT_SMOOTH_VALUES.get(smoothing)
    if isinstance(smooth_value, bool) or not isinstance(smooth_value, numbers.Real):
        raise TypeError(f"smooth_value must be a real number, got {smooth_value!r}")
    if not math.isfinite(smooth_value) or smooth_value < 0:
        raise ValueError(f"smooth_value must be finite and non-negative, got {smooth_value!r}")
    if smoothing in NLTK_SMOOTHING and smoothing not in DEFAULT_SMOOTH_VALUES:
        raise ValueError(f"smoothing {smoothing!r} has no constant; leave smooth_value unset")
    if smoothing in POSITIVE_SMOOTH_VALUES and smooth_value == 0:
        raise ValueError(f"smoothing {smoothing!r} needs smooth_value > 0, got 0")
    return float(smooth_value)


def _check_text_options(
    tokenize: object, lowercase: object, ignore_ids: tuple[int, ...], eos_ids: tuple[int, ...]
) -> None:
    if tokenize is not None and tokenize not in TOKENIZERS:
        raise ValueError(f"tokenize must be None (token ids) or one of sacrebleu's {TOKENIZERS}, got {tokenize!r}")
    if lowercase and tokenize is None:
        raise ValueError("lowercase applies to text: pass tokenize='13a' (or another tokenizer) with it")
    if tokenize is not None and ignore_ids:
        raise ValueError("ignore_ids apply to token ids; strings scored with tokenize= have none to ignore")
    if tokenize is not None and eos_ids:
        raise ValueError("eos_id applies to token ids; strings scored with tokenize= end where they end")


def _check_detokenizer_options(tokenize: Tokenizer | None, lowercase: object) -> Tokenizer:
    """The tokenizer to use on decoded ids (``"13a"`` by default), refusing what is not exact on ids."""
    if tokenize is None:
        tokenize = "13a"
    if tokenize not in TOKENIZERS_ON_CODE_POINTS:
        raise ValueError(
            f"tokenize={tokenize!r} is not reproduced on decoded ids (only {', '.join(TOKENIZERS_ON_CODE_POINTS)}): "
            + DECODE_HINT
        )
    if lowercase is not False:
        raise ValueError(
            "lowercase=True is not computed on ids (lowercasing is Unicode case mapping, not a byte rule): "
            + DECODE_HINT
        )
    return tokenize
