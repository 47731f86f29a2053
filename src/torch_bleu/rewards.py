"""Sentence BLEU, chrF, ROUGE or CIDEr-D as a reward function for RL trainers such as TRL's ``GRPOTrainer``.

TRL calls every function of its ``reward_funcs`` with the batch's ``prompts``, ``completions`` (strings,
or for conversational data lists of messages) and ``completion_ids``, plus every column of the
dataset as a keyword argument (one entry per completion), and expects one float per completion.
:class:`SentenceReward` scores the whole batch in one call of :func:`~torch_bleu.sentence_bleu`,
:func:`~torch_bleu.sentence_chrf`, :func:`~torch_bleu.sentence_rouge` or :func:`~torch_bleu.sentence_cider`,
against the references in a column of the dataset.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, overload

import numpy as np
from torch import Tensor

from .arrays import is_integer
from .errors import InputError
from .metrics.bleu.config import BLEUConfig, BLEUOptions
from .metrics.bleu.functional import sentence_bleu
from .metrics.chrf.config import CHRFConfig, CHRFOptions
from .metrics.chrf.functional import sentence_chrf
from .metrics.cider.config import CIDErConfig, CIDErOptions
from .metrics.cider.functional import sentence_cider
from .metrics.rouge.config import ROUGEConfig, ROUGEOptions, RougeType
from .metrics.rouge.functional import sentence_rouge
from .threads import within_cpu_share

if TYPE_CHECKING:
    from typing_extensions import Unpack


class RewardMetric(NamedTuple):
    """A metric a reward can score with.

    Attributes:
        config: the class of the metric's options, built once when the reward is made to refuse a wrong
            option there rather than at the first batch.
        score: the per-sentence scores, ``(preds, target, **options) -> (B,) tensor`` (in 0..1 but for CIDEr-D,
            0..10 and more).
        defaults: the options a reward passes unless told otherwise (the metric's own defaults hold for
            the others). Each must also suit a reward given ``detokenizer=``.
        score_options: the options ``score`` takes, of those the reward was given (defaults included).
    """

    config: type[BLEUConfig] | type[CHRFConfig] | type[ROUGEConfig] | type[CIDErConfig]
    score: Callable[..., Tensor]
    defaults: Mapping[str, Any]
    score_options: Callable[[dict[str, Any]], dict[str, Any]] = dict


def rouge_fmeasure(preds: Any, target: Any, **options: Any) -> Tensor:
    """``(B,)`` float64: the sentence ROUGE F-measure of the one type of ``rouge_types``.

    Example:
        >>> rouge_fmeasure(["the cat sat"], ["the cat sat down"], rouge_types=("rougeL",)).tolist()
        [0.8571428571428571]
    """
    (rouge_type,) = options["rouge_types"]
    return sentence_rouge(preds, target, **options)[f"{rouge_type}_fmeasure"]


def one_rouge_type(options: dict[str, Any]) -> dict[str, Any]:
    """A ROUGE reward's options with its ``rouge_type`` (``"rougeL"`` unless told) as ``rouge_types``.

    Example:
        >>> one_rouge_type({"rouge_type": "rouge2", "use_stemmer": True})
        {'use_stemmer': True, 'rouge_types': ('rouge2',)}
    """
    if "rouge_types" in options:
        raise InputError(
            f"a ROUGE reward scores one type: pass rouge_type='rougeL' (or another), not rouge_types="
            f"{options['rouge_types']!r}"
        )
    rouge_type = options.get("rouge_type", "rougeL")
    if not isinstance(rouge_type, str):
        raise InputError(f"rouge_type must be one ROUGE type's name, such as 'rougeL', got {rouge_type!r}")
    return {**{name: value for name, value in options.items() if name != "rouge_type"}, "rouge_types": (rouge_type,)}


#: The metrics a reward can score with, by name. BLEU's reward scores text with sacrebleu's default
#: tokenizer, ``"13a"`` (which is also what a detokenizer's decoded ids get by default).
REWARD_METRICS: dict[str, RewardMetric] = {
    "bleu": RewardMetric(BLEUConfig, sentence_bleu, {"tokenize": "13a"}),
    "chrf": RewardMetric(CHRFConfig, sentence_chrf, {}),
    "rouge": RewardMetric(ROUGEConfig, rouge_fmeasure, {}, one_rouge_type),
    "cider": RewardMetric(CIDErConfig, sentence_cider, {}),
}

_short = reprlib.Repr()
_short.maxstring = _short.maxother = 80


class SentenceReward:
    """A reward function: the sentence score (0..1) of every completion against its references.

    Args:
        metric: ``"bleu"``, ``"chrf"``, ``"rouge"`` or ``"cider"`` (a name of :data:`REWARD_METRICS`).
        reference_column: the dataset column that holds each example's reference (a string) or
            references (a list of strings): one entry per completion.
        **options: the metric's options (:class:`~torch_bleu.BLEUConfig`, e.g. ``smoothing="exp"``,
            ``effective_order=True``; :class:`~torch_bleu.CHRFConfig`, e.g. ``word_order=2``;
            :class:`~torch_bleu.ROUGEConfig`, e.g. ``use_stemmer=True``). BLEU tokenizes text with
            ``tokenize="13a"`` unless told otherwise. ROUGE's reward is the F-measure of one type,
            ``rouge_type="rougeL"`` unless told otherwise (``"rouge1"`` .. ``"rouge9"``, ``"rougeLsum"``),
            against the best of several references (rouge-score's ``score_multi``; ``accumulate="avg"``:
            their mean). CIDEr-D's reward (0 to 10 and more) splits completions on whitespace, with the
            document frequencies of ``document_frequency=`` (a training corpus', as self-critical training
            uses) or else of the batch's own references (each completion an image). With ``detokenizer=``
            (not for CIDEr-D), the completions' ids (TRL's ``completion_ids``) are scored as their decoded text,
            on the device, instead of the completion strings.

    A completion is a string, or a conversation (a list of messages, dicts with ``"role"`` and
    ``"content"``) whose last message is scored. That message's ``content`` may be a string; ``None``
    (a message without text, such as a tool call), scored as the empty string; or a list of parts as in
    OpenAI's and Hugging Face's chat format, each a string or a dict with a ``"type"``. Its text is the
    text of its parts in order, joined with nothing between them, as Hugging Face chat templates render
    a content list (they emit ``part["text"]`` for each part of type ``"text"``, one after the other):
    a string part is its own text, a part of type ``"text"`` its ``"text"``, and the parts of other
    types (``"image"``, ``"audio"``, ...) add nothing.

    ``completion_ids`` (with ``detokenizer=``) may be one list of ints or 1-D integer tensor per
    completion, or a ``(completions, length)`` integer tensor (or NumPy array), a row per completion. The rows of
    a padded tensor are scored whole: pass ``ignore_ids=[pad_id]`` to drop the padding, or
    ``eos_id=`` to cut each row at its first EOS.

    The instance is picklable and named after its metric (TRL logs rewards under that name).

    Example:
        >>> reward = SentenceReward("bleu", smoothing="exp", effective_order=True)
        >>> reward(prompts=["Translate: Hallo Welt"] * 2, completions=["hello world", "hi world"],
        ...        reference=["hello world", "hello world"])
        [1.0, 0.5]
        >>> reward.__name__
        'bleu_reward'
        >>> parts = [{"type": "text", "text": "hello "}, {"type": "image"}, {"type": "text", "text": "world"}]
        >>> reward(completions=[[{"role": "assistant", "content": parts}]], reference=["hello world"])
        [1.0]
        >>> rouge = SentenceReward("rouge", rouge_type="rouge1")
        >>> rouge(completions=["the cat sat", "a dog"], reference=[["the cat sat down", "a cat"], "the dog"])
        [0.8571428571428571, 0.5]
        >>> rouge.__name__
        'rouge_reward'
        >>> from torch_bleu import cider_document_frequency
        >>> training = [["a cat sat on the mat", "the cat sat"], ["a dog ran"], ["a dog sat"]]
        >>> cider = SentenceReward("cider", document_frequency=cider_document_frequency(training))
        >>> rewards = cider(completions=["a cat sat", "a dog"], reference=[training[0], "a dog ran"])
        >>> [round(value, 4) for value in rewards]
        [3.364, 1.7073]
    """

    @overload
    def __init__(
        self, metric: Literal["bleu"] = "bleu", reference_column: str = "reference", **options: Unpack[BLEUOptions]
    ) -> None: ...

    @overload
    def __init__(
        self, metric: Literal["chrf"], reference_column: str = "reference", **options: Unpack[CHRFOptions]
    ) -> None: ...

    @overload
    def __init__(
        self, metric: Literal["cider"], reference_column: str = "reference", **options: Unpack[CIDErOptions]
    ) -> None: ...

    @overload
    def __init__(
        self,
        metric: Literal["rouge"],
        reference_column: str = "reference",
        *,
        rouge_type: RougeType = "rougeL",
        **options: Unpack[ROUGEOptions],
    ) -> None: ...

    def __init__(self, metric: str = "bleu", reference_column: str = "reference", **options: Any) -> None:
        if metric not in REWARD_METRICS:
            raise InputError(f"metric must be one of {sorted(REWARD_METRICS)}, got {metric!r}")
        config_type, self._score, defaults, score_options = REWARD_METRICS[metric]
        options = score_options({**defaults, **options})
        config_type.from_options(dict(options))  # refuse a wrong option now, not at the first batch
        self.metric, self.reference_column, self.options = metric, reference_column, options
        self.__name__ = f"{metric}_reward"

    @within_cpu_share
    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Sequence[int]] | Sequence[Tensor] | Tensor | None = None,
        **columns: Any,
    ) -> list[float]:
        """One reward per completion (TRL's arguments; extra columns and trainer state are ignored)."""
        if self.reference_column not in columns:
            given = sorted(key for key in columns if not key.startswith(("trainer_", "log_")))
            raise InputError(f"no column {self.reference_column!r} of references among the reward's arguments {given}")
        hypotheses: Any
        if self.options.get("detokenizer") is not None:
            if completion_ids is None:
                raise InputError("a reward with a detokenizer scores completion_ids; none were given")
            hypotheses = _id_rows(completion_ids)
        else:
            if completions is None:
                raise InputError("the reward needs the completions")
            entries = _entries(completions)
            if entries is None:
                raise InputError(f"completions must be a list of completions, got {type(completions).__name__}")
            hypotheses = [_text_of(completion, index) for index, completion in enumerate(entries)]
        references = _column_entries(columns[self.reference_column], self.reference_column, len(hypotheses))
        scores: list[float] = self._score(hypotheses, references, **self.options).tolist()
        return scores


def _column_entries(column: Any, name: str, count: int) -> list[Any]:
    """The entries of the reference column, one per completion."""
    wanted = f"column {name!r} must have one entry per completion ({count} here)"
    if isinstance(column, str):
        raise InputError(f"{wanted}, got the string {_short.repr(column)}")
    entries = _entries(column)
    if entries is None:
        raise InputError(f"{wanted}, got {type(column).__name__}")
    if len(entries) != count:
        raise InputError(f"{wanted}, got {len(entries)} entries")
    for index, entry in enumerate(entries):
        if _absent(entry):
            raise InputError(
                f"{name}[{index}] is {entry!r}: completion {index} has no reference to be scored against; a reward "
                "needs one for every completion: pass '' for an empty reference, a list of strings for several, or "
                "leave examples without one out of the dataset (dataset.filter)"
            )
        for position, reference in enumerate([] if isinstance(entry, str) else _entries(entry) or []):
            if _absent(reference):
                raise InputError(
                    f"{name}[{index}][{position}] is {reference!r}: each reference of completion {index} is a string "
                    "('' for an empty one); leave an absent reference out of the list"
                )
    return entries


def _absent(reference: object) -> bool:
    """Whether ``reference`` marks a missing value: ``None`` (Hugging Face datasets) or NaN (pandas)."""
    return reference is None or (isinstance(reference, float) and math.isnan(reference))


def _entries(value: Any) -> list[Any] | None:
    """The entries of a batch-wide argument (a list, a tuple, a 1-D array, ...); ``None`` for a string, a
    dict or what is not iterable (a number, ``None``, a 0-d tensor)."""
    if isinstance(value, (str, bytes, Mapping)):
        return None
    try:
        return list(value)
    except TypeError:
        return None


def _id_rows(completion_ids: Any) -> Any:
    """The completions' ids as the metric takes them: a ``(B, L)`` integer tensor or array as it is, else
    one row per completion (a 1-D integer tensor or array as it is, anything else as a list)."""
    if isinstance(completion_ids, (Tensor, np.ndarray)):
        if completion_ids.ndim != 2 or not is_integer(completion_ids):
            raise InputError(
                "completion_ids must be one row of ids per completion: a list of lists of ints or of 1-D integer "
                "tensors, or a (completions, length) integer tensor; got a tensor of shape "
                f"{tuple(completion_ids.shape)} and dtype {completion_ids.dtype}"
            )
        return completion_ids
    entries = _entries(completion_ids)
    if entries is None:
        raise InputError(
            "completion_ids must be a list with one row of ids per completion or a (completions, length) integer "
            f"tensor, got {type(completion_ids).__name__}"
        )
    rows: list[Any] = []
    for index, row in enumerate(entries):
        if isinstance(row, (Tensor, np.ndarray)):
            if row.ndim != 1 or not is_integer(row):
                raise InputError(
                    f"completion_ids[{index}] must be a list of ints or a 1-D integer tensor, got a tensor of shape "
                    f"{tuple(row.shape)} and dtype {row.dtype}"
                )
            rows.append(row)
        elif isinstance(row, (str, bytes)) or not isinstance(row, Sequence):
            raise InputError(
                f"completion_ids[{index}] must be a list of ints or a 1-D integer tensor, got {type(row).__name__}"
            )
        else:
            rows.append(list(row))
    return rows


def _text_of(completion: Any, index: int) -> str:
    """A completion's text: itself, or for a conversation the text of its last message's content."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and not isinstance(completion, bytes):
        if not completion:
            raise InputError(f"completions[{index}]: a conversation completion has no messages")
        message = completion[-1]
        if not isinstance(message, Mapping):
            raise InputError(
                f"completions[{index}]: a message must be a dict with 'role' and 'content', got "
                f"{type(message).__name__} {_short.repr(message)}"
            )
        if "content" not in message:
            raise InputError(
                f"completions[{index}]: its last message {_short.repr(dict(message))} has no 'content' key "
                "(a message without text has content=None)"
            )
        return _content_text(message["content"], index)
    raise InputError(f"completions[{index}] must be a string or a list of messages, got {type(completion).__name__}")


def _content_text(content: Any, index: int) -> str:
    """The text of a message's content: a string, ``None`` (no text) or a list of parts, their text joined."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    where = f"completions[{index}]: the last message's content"
    if not isinstance(content, Sequence) or isinstance(content, bytes):
        raise InputError(f"{where} must be a string, None or a list of parts, got {type(content).__name__}")
    texts = []
    for number, part in enumerate(content):
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, Mapping) and "type" in part:
            if part["type"] != "text":
                continue
            text = part.get("text")
            if not isinstance(text, str):
                raise InputError(
                    f"{where} has a part {number} of type 'text' without a string 'text': {_short.repr(dict(part))}"
                )
            texts.append(text)
        else:
            raise InputError(
                f"{where} has a part {number} that is neither a string nor a dict with a 'type': {_short.repr(part)}"
            )
    return "".join(texts)
