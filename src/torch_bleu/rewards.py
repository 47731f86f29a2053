"""Sentence BLEU or chrF as a reward function for RL trainers such as TRL's ``GRPOTrainer``.

TRL calls every function of its ``reward_funcs`` with the batch's ``prompts``, ``completions`` (strings,
or for conversational data lists of messages) and ``completion_ids``, plus every column of the
dataset as a keyword argument (one entry per completion), and expects one float per completion.
:class:`SentenceReward` scores the whole batch in one call of :func:`~torch_bleu.sentence_bleu` or
:func:`~torch_bleu.sentence_chrf`, against the references in a column of the dataset.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from torch import Tensor

from .errors import InputError
from .metrics.bleu.config import BLEUConfig
from .metrics.bleu.functional import sentence_bleu
from .metrics.chrf.config import CHRFConfig
from .metrics.chrf.functional import sentence_chrf
from .threads import within_cpu_share

#: The metrics a reward can score with: name -> (options' config, per-sentence scores).
REWARD_METRICS: dict[str, tuple[type[BLEUConfig] | type[CHRFConfig], Callable[..., Tensor]]] = {
    "bleu": (BLEUConfig, sentence_bleu),
    "chrf": (CHRFConfig, sentence_chrf),
}


class SentenceReward:
    """A reward function: the sentence score (0..1) of every completion against its references.

    Args:
        metric: ``"bleu"`` or ``"chrf"``.
        reference_column: the dataset column that holds each example's reference (a string) or
            references (a list of strings).
        **options: the metric's options (:class:`~torch_bleu.BLEUConfig`, e.g. ``smoothing="exp"``,
            ``effective_order=True``; :class:`~torch_bleu.CHRFConfig`, e.g. ``word_order=2``). BLEU
            tokenizes text with ``tokenize="13a"`` unless told otherwise. With ``detokenizer=``, the
            completions' ids (TRL's ``completion_ids``) are scored as their decoded text, on the device,
            instead of the completion strings.

    The instance is picklable and named after its metric (TRL logs rewards under that name).

    Example:
        >>> reward = SentenceReward("bleu", smoothing="exp", effective_order=True)
        >>> reward(prompts=["Translate: Hallo Welt"] * 2, completions=["hello world", "hi world"],
        ...        reference=["hello world", "hello world"])
        [1.0, 0.5]
        >>> reward.__name__
        'bleu_reward'
    """

    def __init__(self, metric: str = "bleu", reference_column: str = "reference", **options: Any) -> None:
        if metric not in REWARD_METRICS:
            raise InputError(f"metric must be one of {sorted(REWARD_METRICS)}, got {metric!r}")
        config_type, self._score = REWARD_METRICS[metric]
        if metric == "bleu":
            options.setdefault("tokenize", "13a")
        config_type.from_options(dict(options))  # refuse a wrong option now, not at the first batch
        self.metric, self.reference_column, self.options = metric, reference_column, options
        self.__name__ = f"{metric}_reward"

    @within_cpu_share
    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Sequence[int]] | None = None,
        **columns: Any,
    ) -> list[float]:
        """One reward per completion (TRL's arguments; extra columns and trainer state are ignored)."""
        if self.reference_column not in columns:
            given = sorted(key for key in columns if not key.startswith(("trainer_", "log_")))
            raise InputError(f"no column {self.reference_column!r} of references among the reward's arguments {given}")
        references = columns[self.reference_column]
        if self.options.get("detokenizer") is not None:
            if completion_ids is None:
                raise InputError("a reward with a detokenizer scores completion_ids; none were given")
            hypotheses: Any = [list(ids) for ids in completion_ids]
        else:
            if completions is None:
                raise InputError("the reward needs the completions")
            hypotheses = [_text_of(completion) for completion in completions]
        scores: list[float] = self._score(hypotheses, list(references), **self.options).tolist()
        return scores


def _text_of(completion: Any) -> str:
    """A completion's text: itself, or for a conversation the content of its last message."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content", ""))
    raise InputError(f"a completion must be a string or a list of messages, got {type(completion).__name__}")
