"""SentenceReward refuses what it cannot score with an InputError that says what to pass instead:
conversations without a message or a content, a reference column that is not one entry per completion,
completion ids that are not one row per completion."""

from __future__ import annotations

import re

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from torch_bleu import Detokenizer, SentenceReward
from torch_bleu.errors import InputError


def _detokenizer():
    from subword_tokenizers import cached_transformers

    return Detokenizer.from_huggingface(cached_transformers(False))


@pytest.mark.parametrize(
    ("completion", "message"),
    [
        ([], "completions[1]: a conversation completion has no messages"),
        (
            [{"role": "user", "content": "hi"}, {"role": "assistant"}],
            "completions[1]: its last message {'role': 'assistant'} has no 'content' key (a message without text has "
            "content=None)",
        ),
        (
            [{"role": "assistant", "content": 3}],
            "completions[1]: the last message's content must be a string, None or a list of parts, got int",
        ),
        (
            [{"role": "assistant", "content": ["a", 3]}],
            "completions[1]: the last message's content has a part 1 that is neither a string nor a dict with a "
            "'type': 3",
        ),
        (
            [{"role": "assistant", "content": [{"text": "a"}]}],
            "completions[1]: the last message's content has a part 0 that is neither a string nor a dict with a "
            "'type': {'text': 'a'}",
        ),
        (
            [{"role": "assistant", "content": [{"type": "text", "text": None}]}],
            "completions[1]: the last message's content has a part 0 of type 'text' without a string 'text': "
            "{'text': None, 'type': 'text'}",
        ),
        (["hello"], "completions[1]: a message must be a dict with 'role' and 'content', got str 'hello'"),
        (3, "completions[1] must be a string or a list of messages, got int"),
    ],
)
def test_a_completion_that_is_no_text_or_conversation(completion, message):
    reward = SentenceReward("chrf")
    with pytest.raises(InputError) as error:
        reward(completions=["fine", completion], reference=["a", "b"])
    assert str(error.value) == message


def test_a_long_message_is_shortened_in_the_error():
    message = {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "x" * 1000}}]}
    with pytest.raises(InputError, match="has no 'content' key") as error:
        SentenceReward("chrf")(completions=[[message]], reference=["a"])
    assert len(str(error.value)) < 300


@pytest.mark.parametrize(
    ("column", "message"),
    [
        ("abc", "column 'reference' must have one entry per completion (3 here), got the string 'abc'"),
        (b"abc", "column 'reference' must have one entry per completion (3 here), got bytes"),
        (None, "column 'reference' must have one entry per completion (3 here), got NoneType"),
        ({"a": 1, "b": 2, "c": 3}, "column 'reference' must have one entry per completion (3 here), got dict"),
        (torch.tensor(1), "column 'reference' must have one entry per completion (3 here), got Tensor"),
        (["a", "b"], "column 'reference' must have one entry per completion (3 here), got 2 entries"),
    ],
)
@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_a_reference_column_that_is_not_one_entry_per_completion(metric, column, message):
    with pytest.raises(InputError) as error:
        SentenceReward(metric)(completions=["a", "b", "c"], reference=column)
    assert str(error.value) == message


@given(completions=st.integers(0, 6), entries=st.integers(0, 6))
def test_the_reference_column_has_as_many_entries_as_there_are_completions(completions, entries):
    reward = SentenceReward("chrf", reference_column="answer")
    arguments = {"completions": ["the cat"] * completions, "answer": ["the cat"] * entries}
    if completions == entries:
        assert reward(**arguments) == [1.0] * completions
    else:
        expected = f"column 'answer' must have one entry per completion ({completions} here), got {entries} entries"
        with pytest.raises(InputError, match=re.escape(expected)):
            reward(**arguments)


def test_completions_that_are_one_string():
    with pytest.raises(InputError, match=re.escape("completions must be a list of completions, got str")):
        SentenceReward("chrf")(completions="abc", reference=["a", "b", "c"])


@pytest.mark.parametrize(
    ("completion_ids", "message"),
    [
        (
            torch.tensor([[1.0, 2.0], [3.0, 4.0]]),
            "completion_ids must be one row of ids per completion: a list of lists of ints or of 1-D integer tensors, "
            "or a (completions, length) integer tensor; got a tensor of shape (2, 2) and dtype torch.float32",
        ),
        (
            torch.tensor([1, 2]),
            "completion_ids must be one row of ids per completion: a list of lists of ints or of 1-D integer tensors, "
            "or a (completions, length) integer tensor; got a tensor of shape (2,) and dtype torch.int64",
        ),
        (
            7,
            "completion_ids must be a list with one row of ids per completion or a (completions, length) integer "
            "tensor, got int",
        ),
        (
            [[1, 2], torch.tensor([[3, 4]])],
            "completion_ids[1] must be a list of ints or a 1-D integer tensor, got a tensor of shape (1, 2) and dtype "
            "torch.int64",
        ),
        ([[1, 2], "ab"], "completion_ids[1] must be a list of ints or a 1-D integer tensor, got str"),
        ([[1, 2], 3], "completion_ids[1] must be a list of ints or a 1-D integer tensor, got int"),
        (
            torch.tensor([[1, 2], [3, 4], [5, 6]]),
            "column 'reference' must have one entry per completion (3 here), got 2 entries",
        ),
    ],
)
def test_completion_ids_that_are_not_one_row_per_completion(completion_ids, message):
    reward = SentenceReward("bleu", detokenizer=_detokenizer())
    with pytest.raises(InputError) as error:
        reward(completions=["a", "b"], completion_ids=completion_ids, reference=["a", "b"])
    assert str(error.value) == message
