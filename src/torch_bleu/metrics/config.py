"""What the options of every metric share: one declaration, checked once, and a fingerprint of how they count.

A metric's options are the fields of one frozen dataclass, a subclass of :class:`MetricConfig`, checked
in its ``__post_init__``: the functions, the ``Metric`` and the command line all build it, so an option
is declared, defaulted and checked in one place. The subclass names the options that decide the
per-sentence statistics (:attr:`MetricConfig.counting_options`): their values make up the
:meth:`~MetricConfig.fingerprint` that metrics compare before they add up each other's statistics.

For type checkers, each config has a ``TypedDict`` twin with the same names and types (``**options:
Unpack[...]`` in the signatures), so a misspelled option or a value of the wrong type is reported
where it is written. :class:`SubwordConfig` and :class:`SubwordOptions` declare the options of subword
ids that every metric shares. Needs neither PyTorch nor NumPy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar, TypedDict, TypeVar

from ..errors import InputError
from ..inputs.advice import PlainIds, wrong_kind_hint
from ..options import TokenIdsOption, check_token_ids

if TYPE_CHECKING:
    from ..detokenize.detokenizer import Detokenizer
    from ..inputs.batch import TokenBatch
    from ..inputs.kinds import Text

Config = TypeVar("Config", bound="MetricConfig")

#: A fingerprint is this many numbers of 16 bits each (a 128-bit digest): small enough to be compared
#: exactly wherever states are compared, float comparisons included.
FINGERPRINT_WORDS = 8

#: What each fingerprint made in this process stands for, the metric's name and its counting options as
#: text, so that statistics refused for their fingerprint can be told apart by option.
_COUNTED_AS: dict[tuple[int, ...], tuple[str, dict[str, str]]] = {}


@dataclass(frozen=True, kw_only=True)
class MetricConfig:
    """Base of every metric's options.

    Subclasses are frozen dataclasses whose fields are the options, and set:

    * :attr:`metric_name`, the metric's name in messages;
    * :attr:`counting_options`, the options that decide the per-sentence statistics (any option whose
      value can change them, including those that choose among references);
    * :attr:`foreign_options`, other libraries' names for options, each with what to pass instead;
    * :attr:`positional_names`, the names torchmetrics' metric of the same kind gives the arguments
      it takes by position, to read such a call.
    """

    metric_name: ClassVar[str] = "metric"
    counting_options: ClassVar[tuple[str, ...]] = ()
    foreign_options: ClassVar[Mapping[str, str]] = {}
    positional_names: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """The options: the metric's own, then those it shares with other metrics (:class:`SubwordConfig`'s)."""
        names = [field.name for field in fields(cls)]
        own = [name for name in names if name in vars(cls).get("__annotations__", {})]
        return (*own, *(name for name in names if name not in own))

    @classmethod
    def from_options(cls: type[Config], options: Mapping[str, Any]) -> Config:
        """The config of keyword arguments, naming the right option for each one it does not have."""
        try:
            return cls(**options)
        except TypeError:  # the names are read only then: torch.compile does not follow dataclasses.fields
            unknown = [name for name in options if name not in cls.option_names()]
            if unknown:
                raise cls.unknown_options(unknown) from None
            raise

    @classmethod
    def unknown_options(cls, names: Sequence[str], more: str = "") -> TypeError:
        """The error for options this metric does not have, all of them in one message: for a name another
        library gives an option, what to pass instead; for the others, the options there are (and ``more``).

        Example:
            >>> from dataclasses import dataclass
            >>> @dataclass(frozen=True)
            ... class Options(MetricConfig):
            ...     max_order: int = 4
            ...     foreign_options = {"n_gram": "n_gram is max_order here"}
            >>> print(Options.unknown_options(["n_gram", "colour"]))
            unknown options 'n_gram': n_gram is max_order here; 'colour': the options of metric are max_order
        """
        hints = [f"{name!r}: {cls.foreign_options[name]}" for name in names if name in cls.foreign_options]
        others = [name for name in names if name not in cls.foreign_options]
        if others:
            hints.append(
                f"{', '.join(map(repr, others))}: the options of {cls.metric_name} are "
                f"{', '.join(cls.option_names())}{more}"
            )
        return TypeError(f"unknown option{'s' if len(names) > 1 else ''} {'; '.join(hints)}")

    @classmethod
    def positional_error(cls, metric: str, values: Sequence[object]) -> TypeError:
        """The error for options passed by position to ``metric``: how torchmetrics' metric of the same
        kind reads that call, and what to pass by name instead.

        Example:
            >>> class Options(MetricConfig):
            ...     positional_names = ("n_gram",)
            ...     foreign_options = {"n_gram": "n_gram is max_order here"}
            >>> print(Options.positional_error("Score", [4]))
            Score takes its options by name; Score(4) reads as torchmetrics' Score(n_gram=4): n_gram is max_order here
        """
        shown = ", ".join(map(repr, values))
        if len(values) > len(cls.positional_names):
            return TypeError(
                f"{metric} takes its options by name, got {metric}({shown}); they are {', '.join(cls.option_names())}"
            )
        named = dict(zip(cls.positional_names, values))
        reading = ", ".join(f"{name}={value!r}" for name, value in named.items())
        hints = [cls.foreign_options.get(name, f"pass {name}={value!r}") for name, value in named.items()]
        return TypeError(
            f"{metric} takes its options by name; {metric}({shown}) reads as torchmetrics' {metric}({reading}): "
            + "; ".join(hints)
        )

    def counting(self) -> dict[str, Any]:
        """The options that decide the statistics, by name."""
        return {name: getattr(self, name) for name in self.counting_options}

    def counting_description(self) -> str:
        """The counting options as ``name=value``, for messages."""
        return ", ".join(f"{name}={value!r}" for name, value in self.counting().items())

    def fingerprint(self) -> tuple[int, ...]:
        """:data:`FINGERPRINT_WORDS` numbers below ``2**16``, equal for configs that count alike and (but
        for a 128-bit digest's collisions) different otherwise: a digest of the metric's name and its
        counting options. A value that is an object with a ``fingerprint`` of its own (a
        :class:`~torch_bleu.Detokenizer`) enters by it. What a fingerprint stands for is remembered, so that
        statistics refused for theirs can be told apart by option (:meth:`counted_otherwise`).
        """
        text = ";".join([self.metric_name, *(f"{name}={_canonical(value)}" for name, value in self.counting().items())])
        digest = hashlib.blake2b(text.encode(), digest_size=2 * FINGERPRINT_WORDS).digest()
        fingerprint = tuple(int.from_bytes(digest[index : index + 2], "little") for index in range(0, len(digest), 2))
        _COUNTED_AS.setdefault(fingerprint, (self.metric_name, self._counting_text()))
        return fingerprint

    def _counting_text(self) -> dict[str, str]:
        return {name: _shown(value) for name, value in self.counting().items()}

    def counted_otherwise(self, fingerprint: Sequence[int]) -> tuple[str, str] | None:
        """The counting options in which statistics of ``fingerprint`` were counted otherwise than by this
        config, as text: theirs, then this config's; ``None`` when no config of this process made it.

        Example:
            >>> from torch_bleu import BLEUConfig
            >>> BLEUConfig().counted_otherwise(BLEUConfig(max_order=2, eos_id=3).fingerprint())
            ('max_order=2, eos_id=(3,)', 'max_order=4, eos_id=()')
            >>> BLEUConfig().counted_otherwise((1, 2, 3, 4, 5, 6, 7, 8)) is None
            True
        """
        known = _COUNTED_AS.get(tuple(fingerprint))
        if known is None:
            return None
        metric_name, theirs = known
        if metric_name != self.metric_name:
            return f"the options of {metric_name}", f"those of {self.metric_name}"
        own = self._counting_text()
        differing = [name for name, value in theirs.items() if own.get(name) != value]
        return _options_text(theirs, differing), _options_text(own, differing)


def _shown(value: object) -> str:
    """``value`` as messages show it: its ``repr``, and the start of its own fingerprint where it has one (a
    :class:`~torch_bleu.Detokenizer`, whose ``repr`` does not tell two vocabularies of one size apart)."""
    own = getattr(value, "fingerprint", None)
    return f"{value!r} (fingerprint {own[:12]})" if isinstance(own, str) else repr(value)


def _options_text(options: dict[str, str], names: Sequence[str]) -> str:
    return ", ".join(f"{name}={options[name]}" for name in names)


def _canonical(value: object) -> str:
    """A text that stands for ``value`` the same way in every process."""
    own = getattr(value, "fingerprint", None)
    if isinstance(own, str):
        return f"{type(value).__name__}({own})"
    if isinstance(value, tuple):
        return "(" + ",".join(map(_canonical, value)) + ")"
    return repr(value)


class SubwordOptions(TypedDict, total=False):
    """The options of subword ids, shared by every metric (:class:`SubwordConfig`'s fields)."""

    ignore_ids: TokenIdsOption
    eos_id: TokenIdsOption
    detokenizer: Detokenizer | None


@dataclass(frozen=True, kw_only=True)
class SubwordConfig(MetricConfig):
    """A metric's options for rows of token ids, shared by every metric and checked here.

    Args:
        ignore_ids: token ids (PAD, BOS, ...) dropped wherever they occur in a row; negative ids (Hugging
            Face's -100 labels) are never tokens and always dropped.
        eos_id: one id or several: every row is cut at its first EOS, which counts for nothing, and
            neither does any token after it (batched decoding goes on emitting tokens after a row's EOS).
        detokenizer: a :class:`~torch_bleu.Detokenizer` to score rows of subword ids as their decoded
            text, on the device; ``ignore_ids`` are dropped and rows cut at ``eos_id`` before decoding.

    A metric that scores text only takes ids with a detokenizer; one that also counts plain token ids
    (BLEU, WER, ROUGE) sets :attr:`scores_plain_ids`. What the options say of the kind of input
    (:attr:`plain_ids`, :attr:`input_hint`, :meth:`check_strings`, :meth:`check_text`) is what the input
    dispatch (:mod:`torch_bleu.inputs.kinds`) reads; the advice is worded by :mod:`torch_bleu.inputs.advice`.

    Example:
        >>> SubwordConfig(eos_id=2)
        Traceback (most recent call last):
        ...
        ValueError: eos_id is an option of subword ids, which need a detokenizer; text has no ids
    """

    ignore_ids: TokenIdsOption = ()
    eos_id: TokenIdsOption = None
    detokenizer: Detokenizer | None = None

    #: Whether rows of ids are scored as they are, without a detokenizer.
    scores_plain_ids: ClassVar[bool] = False

    def __post_init__(self) -> None:
        token_ids = {name: check_token_ids(name, getattr(self, name)) for name in ("ignore_ids", "eos_id")}
        if self.detokenizer is not None:
            _check_detokenizer(self.detokenizer)
        elif not self.scores_plain_ids:
            for name, value in token_ids.items():
                if value:
                    raise ValueError(f"{name} is an option of subword ids, which need a detokenizer; text has no ids")
        for name, value in token_ids.items():
            object.__setattr__(self, name, value)

    @property
    def plain_ids(self) -> PlainIds:
        """When rows of ids are read as they are, without a detokenizer: unless the hypotheses are strings,
        where the metric scores plain ids, else never.

        Example:
            >>> from torch_bleu.metrics.wer.config import WERConfig
            >>> WERConfig().plain_ids
            'unless strings'
        """
        return "unless strings" if self.scores_plain_ids else "never"

    @property
    def unit(self) -> str:
        """What one plain id stands for, in messages."""
        return "word"

    @property
    def input_hint(self) -> str:
        """What to do with input of the wrong kind: text where ids go, or ids where text goes.

        Example:
            >>> from torch_bleu.metrics.chrf.config import CHRFConfig
            >>> print(CHRFConfig().input_hint)
            chrF scores strings; for subword ids, pass detokenizer= (a torch_bleu.Detokenizer of their tokenizer)
        """
        return wrong_kind_hint(self.metric_name, self.plain_ids, self.unit, self.detokenizer is not None)

    def check_strings(self) -> None:
        """Refuse the options of ids where a metric that also counts plain ids is given strings: text has no
        ids to drop or to end at.

        Example:
            >>> from torch_bleu.metrics.wer.config import WERConfig
            >>> WERConfig(eos_id=2).check_strings()
            Traceback (most recent call last):
            ...
            torch_bleu.errors.InputError: eos_id applies to rows of token ids; WER reads strings as they are (text ...
        """
        for name, ids in (("ignore_ids", self.ignored_ids), ("eos_id", self.eos_ids)):
            if ids:
                reads = f"{self.metric_name} reads strings as they are (text has no ids)"
                raise InputError(f"{name} applies to rows of token ids; {reads}")

    def check_text(self, text: Text) -> None:
        """Refuse checked strings this metric cannot count (none here; TER's references are at most 16, say)."""

    def check_ids(self, batch: TokenBatch) -> None:
        """Refuse a checked batch of ids this metric cannot count, from its shapes (none here; WER's
        references are one per hypothesis, say)."""

    def counting(self) -> dict[str, Any]:
        """The options that decide the statistics: the metric's own, then the subword options, which all do."""
        return {**super().counting(), **{name: getattr(self, name) for name in SUBWORD_OPTIONS}}

    @property
    def ignored_ids(self) -> tuple[int, ...]:
        """The ids dropped from every row, sorted (none unless ``ignore_ids`` are given)."""
        assert isinstance(self.ignore_ids, tuple)  # resolved by __post_init__
        return self.ignore_ids

    @property
    def eos_ids(self) -> tuple[int, ...]:
        """The ids that end a row, sorted (none unless ``eos_id`` is given)."""
        assert isinstance(self.eos_id, tuple)  # resolved by __post_init__
        return self.eos_id


#: The options :class:`SubwordConfig` adds to a metric's.
SUBWORD_OPTIONS = tuple(field.name for field in fields(SubwordConfig))


def _check_detokenizer(detokenizer: object) -> None:
    """Refuse anything but a :class:`~torch_bleu.Detokenizer` as ``detokenizer``."""
    from ..detokenize.detokenizer import Detokenizer  # imports PyTorch, which a config of text needs not

    if not isinstance(detokenizer, Detokenizer):
        raise TypeError(
            "detokenizer must be a torch_bleu.Detokenizer (Detokenizer.from_sentencepiece or from_huggingface), "
            f"got {type(detokenizer).__name__}"
        )
