"""The one decision every metric makes first: which kind of input a batch is, checked as that kind.

There are three kinds, and every metric's counting is a short ``match`` over them:

* :class:`Text`: strings, the hypotheses and each one's references (read on the host);
* :class:`TokenIds`: rows of token ids, each id one token of the metric (a word; a character of CER);
* :class:`SubwordIds`: rows of subword ids that a :class:`~torch_bleu.Detokenizer` decodes, their
  references ids or strings.

A metric's options (:class:`InputRules`) decide between them: with a detokenizer, subword ids; else a
metric reads plain ids always, never or unless the hypotheses are strings, as its options say
(:data:`~.advice.PlainIds`). The advice for input of the wrong kind is written in one place too
(:func:`~.advice.wrong_kind_hint`), so every metric words it alike.

Example:
    >>> import torch
    >>> from torch_bleu.metrics.wer.config import WERConfig
    >>> read_input(["a b"], ["a c"], WERConfig())
    Text(hypotheses=['a b'], references=[['a c']])
    >>> ids = read_input(torch.tensor([[5, 6, 0]]), torch.tensor([[5, 7]]), WERConfig(ignore_ids=[0]))
    >>> type(ids).__name__, ids.rows.lengths.tolist()
    ('TokenIds', [[2, 2]])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ..engine.rows import StackedRows, stack_rows
from .advice import PlainIds
from .batch import SEQUENCES, TokenBatch
from .ids import token_batch
from .strings import sentences, subword_batch

if TYPE_CHECKING:
    from torch import Tensor

    from ..detokenize.detokenizer import Detokenizer


class InputRules(Protocol):
    """What the dispatch asks of a metric's options (every :class:`~torch_bleu.metrics.config.SubwordConfig`)."""

    @property
    def detokenizer(self) -> Detokenizer | None: ...

    @property
    def ignored_ids(self) -> tuple[int, ...]: ...

    @property
    def eos_ids(self) -> tuple[int, ...]: ...

    @property
    def plain_ids(self) -> PlainIds: ...

    @property
    def input_hint(self) -> str: ...

    def check_strings(self) -> None:
        """Refuse options that strings cannot have (ids to drop, to end at)."""

    def check_text(self, text: Text) -> None:
        """Refuse checked strings this metric cannot count (too many references, say)."""

    def check_ids(self, batch: TokenBatch) -> None:
        """Refuse a checked batch of ids this metric cannot count, from its shapes (too many references, say)."""


class Text(NamedTuple):
    """Strings, checked: the hypotheses and, per hypothesis, the list of its references."""

    hypotheses: list[str]
    references: list[list[str]]


class TokenIds:
    """Rows of token ids, checked (:class:`~.batch.TokenBatch`), each id one token of the metric.

    Its rows and the references that count are found when first asked for (BLEU pads a batch first,
    under ``torch.compile``), and kept.
    """

    __match_args__ = ("batch",)

    def __init__(self, batch: TokenBatch, rules: InputRules) -> None:
        self.batch = batch
        self.rules = rules
        self._rows: StackedRows[Any] | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.batch!r})"

    @property
    def rows(self) -> StackedRows[Any]:
        """Each hypothesis beside its references, the ignored ids dropped and each row cut at its first EOS
        (tensors, or NumPy arrays as the batch's fields are: :class:`~.batch.TokenBatch`)."""
        if self._rows is None:
            self._rows = kept_rows(self.batch, self.rules)
        return self._rows

    @property
    def present(self) -> Any:
        """``(B, R)`` bool: the references that count (``None``: all), decided on the ids; of the rows' kind."""
        return self.batch.references_present(self.rows.lengths[:, 1:])

    def check_values(self) -> None:
        """Refuse values that counting would refuse, where reading them waits for no device (none here)."""


class SubwordIds(TokenIds):
    """Rows of subword ids that ``rules.detokenizer`` decodes; references as ids, or as strings (their code
    points in ``batch.reference_chars``)."""

    @property
    def detokenizer(self) -> Detokenizer:
        """The detokenizer that decodes the rows."""
        detokenizer = self.rules.detokenizer
        assert detokenizer is not None  # a batch is subword ids only with one
        return detokenizer

    @property
    def present(self) -> Tensor | None:
        """``(B, R)`` bool: the references that count (``None``: all), decided on the ids before decoding."""
        present: Tensor | None = self.batch.references_present(self.rows.lengths[:, 1:])
        return present

    def decoded(self) -> Tensor:
        """``(B, 1 + R, W)`` code points of the decoded rows, ``-1`` past each row's end, on the ids' device."""
        from ..detokenize.pipeline import decoded_text

        return decoded_text(self.rows, self.batch.reference_chars, self.detokenizer)

    def check_values(self) -> None:
        """Refuse ids outside the detokenizer's vocabulary now where that waits for no device (on the CPU);
        elsewhere the device asserts it when the rows are decoded
        (:func:`~torch_bleu.detokenize.pipeline.check_ids`)."""
        import torch

        from ..detokenize.pipeline import check_ids

        tokens, keep = self.rows.tokens, self.rows.keep
        if tokens.device.type == "cpu":
            keep = keep if keep is not None else torch.ones_like(tokens, dtype=torch.bool)
            check_ids(tokens, keep, self.detokenizer.vocab_size)


#: A batch of any kind.
Input = Text | TokenIds | SubwordIds


def read_input(preds: Any, target: Any, rules: InputRules, on_host: bool = False) -> Input:
    """The batch as its kind, checked: strings as :class:`Text`, ids as :class:`TokenIds` or :class:`SubwordIds`.

    With ``on_host``, a batch of token ids on the CPU comes as NumPy arrays on its memory
    (:meth:`~.batch.TokenBatch.on_host`), which the engine counts fastest.
    """
    text = checked_text(preds, target, rules)
    if text is not None:
        return text
    if rules.detokenizer is None:
        batch = token_batch(preds, target, rules.input_hint)
        rules.check_ids(batch)
        return TokenIds(batch.on_host() if on_host else batch, rules)
    batch = subword_batch(preds, target, rules.input_hint)
    rules.check_ids(batch)
    return SubwordIds(batch, rules)


def ids_input(batch: TokenBatch, rules: InputRules) -> TokenIds:
    """A checked batch of ids as its kind: :class:`SubwordIds` where ``rules`` have a detokenizer, else
    :class:`TokenIds`.

    Example:
        >>> import torch
        >>> from torch_bleu.metrics.wer.config import WERConfig
        >>> type(ids_input(token_batch(torch.tensor([[5]]), torch.tensor([[5]])), WERConfig())).__name__
        'TokenIds'
    """
    return TokenIds(batch, rules) if rules.detokenizer is None else SubwordIds(batch, rules)


def checked_text(preds: object, target: object, rules: InputRules) -> Text | None:
    """A batch of strings, checked as the metric counts it; ``None`` for a batch of ids (of either kind).

    Example:
        >>> from torch_bleu.metrics.ter.config import TERConfig
        >>> checked_text(["a b"], [["a", "b c"]], TERConfig())
        Text(hypotheses=['a b'], references=[['a', 'b c']])
    """
    if not reads_text(preds, rules):
        return None
    rules.check_strings()
    text = Text(*sentences(preds, target, rules.input_hint))
    rules.check_text(text)
    return text


def reads_text(preds: object, rules: InputRules) -> bool:
    """Whether a metric of ``rules`` reads ``preds`` as text: without a detokenizer, by its options, or, where
    it takes either, when ``preds`` holds strings (or what :func:`~.strings.sentences` refuses with advice:
    a lone string, lists of words).

    Example:
        >>> from torch_bleu.metrics.rouge.config import ROUGEConfig
        >>> reads_text(["the cat"], ROUGEConfig()), reads_text([[5, 6]], ROUGEConfig())
        (True, False)
    """
    if rules.detokenizer is not None or rules.plain_ids == "always":
        return False
    if rules.plain_ids == "never" or isinstance(preds, str):
        return True
    first = preds[0] if isinstance(preds, SEQUENCES) and preds else None
    return isinstance(first, str) or (isinstance(first, SEQUENCES) and bool(first) and isinstance(first[0], str))


def kept_rows(batch: TokenBatch, rules: InputRules) -> StackedRows[Any]:
    """The rows of a batch of ids as the engine counts them: each hypothesis beside its references, the ids
    of ``rules.ignored_ids`` dropped and each row cut at its first id of ``rules.eos_ids``.

    Example:
        >>> import torch
        >>> from torch_bleu.metrics.bleu.config import BLEUConfig
        >>> rows = kept_rows(token_batch(torch.tensor([[5, 0, 6, 2, 7]]), torch.tensor([[5, 6]])),
        ...                  BLEUConfig(ignore_ids=[0], eos_id=2))
        >>> rows.lengths.tolist()
        [[2, 2]]
    """
    return stack_rows(batch.preds, batch.target, rules.ignored_ids, batch.ref_present, batch.row_lengths, rules.eos_ids)
