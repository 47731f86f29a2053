"""SentenceReward("rouge"): rouge-score's F-measure of one ROUGE type as TRL's GRPO trainer asks for it,
from strings, conversations, several references and subword ids."""

from __future__ import annotations

import pickle

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from subword_tokenizers import cached_transformers

from torch_bleu import Detokenizer, SentenceReward
from torch_bleu.errors import InputError

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

COMPLETIONS = ["The cat sits on the mat.", "the cat sat\nthe dog ran", "", "A dog (barking)!"]
REFERENCES = ["The cat sits on the mat.", "the dog ran\nThe cat is sitting.", "Hello.", "The dog barks!"]
TYPES = ("rouge1", "rouge2", "rouge4", "rougeL", "rougeLsum")
WORDS = st.sampled_from(["the", "cat", "cats", "sat", "sitting", " ", "\n", "on", "mat", ".", "Été", ""])
TEXTS = st.lists(WORDS, max_size=8).map("".join)


def _trl_arguments(completions, **columns):
    """What TRL's GRPOTrainer passes to a reward function, as tests/test_rewards.py writes it."""
    return {
        "prompts": ["Summarize: ..."] * len(completions),
        "completions": completions,
        "completion_ids": [[1, 2, 3]] * len(completions),
        "trainer_state": object(),
        **columns,
    }


def _expected(completions, references, rouge_type, use_stemmer=False):
    """rouge-score's ``score_multi`` F-measure of each completion (the best of its references)."""
    scorer = rouge_scorer.RougeScorer([rouge_type], use_stemmer=use_stemmer)
    return [
        scorer.score_multi(refs if isinstance(refs, list) else [refs], completion)[rouge_type].fmeasure
        for completion, refs in zip(completions, references)
    ]


@pytest.mark.parametrize("rouge_type", TYPES)
def test_rewards_are_rouge_scores_fmeasures(rouge_type):
    reward = SentenceReward("rouge", rouge_type=rouge_type)
    rewards = reward(**_trl_arguments(COMPLETIONS, reference=REFERENCES, difficulty=[1, 2, 3, 4]))
    assert isinstance(rewards, list) and all(isinstance(value, float) for value in rewards)
    assert rewards == _expected(COMPLETIONS, REFERENCES, rouge_type)
    assert reward.__name__ == "rouge_reward"
    assert pickle.loads(pickle.dumps(reward))(**_trl_arguments(COMPLETIONS, reference=REFERENCES)) == rewards


def test_rougeL_is_the_default_type():
    assert SentenceReward("rouge").options == {"rouge_types": ("rougeL",)}
    reward = SentenceReward("rouge", use_stemmer=True)
    assert reward(completions=COMPLETIONS, reference=REFERENCES) == _expected(COMPLETIONS, REFERENCES, "rougeL", True)


@settings(max_examples=30, deadline=None)
@given(
    completions=st.lists(TEXTS, min_size=1, max_size=4),
    references=st.lists(st.lists(TEXTS, min_size=1, max_size=3), min_size=4, max_size=4),
    rouge_type=st.sampled_from(TYPES),
    use_stemmer=st.booleans(),
)
def test_several_references_and_conversations(completions, references, rouge_type, use_stemmer):
    references = references[: len(completions)]
    conversations = [[{"role": "user", "content": "?"}, {"role": "assistant", "content": text}] for text in completions]
    reward = SentenceReward("rouge", reference_column="answers", rouge_type=rouge_type, use_stemmer=use_stemmer)
    expected = _expected(completions, references, rouge_type, use_stemmer)
    assert reward(**_trl_arguments(conversations, answers=references)) == expected
    assert reward(**_trl_arguments(completions, answers=references)) == expected


def test_avg_accumulates_the_mean_over_the_references():
    references = [[reference, "the cat"] for reference in REFERENCES]
    reward = SentenceReward("rouge", rouge_type="rouge1", accumulate="avg")
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    expected = [
        sum(scorer.score(reference, completion)["rouge1"].fmeasure for reference in refs) / len(refs)
        for completion, refs in zip(COMPLETIONS, references)
    ]
    assert reward(completions=COMPLETIONS, reference=references) == pytest.approx(expected, abs=1e-15)


def test_completion_ids_with_a_detokenizer():
    tokenizer = cached_transformers(False)
    pad = tokenizer.pad_token_id
    ids = [tokenizer(text, add_special_tokens=False)["input_ids"] for text in COMPLETIONS]
    detokenizer = Detokenizer.from_huggingface(tokenizer)
    reward = SentenceReward("rouge", rouge_type="rouge2", detokenizer=detokenizer, ignore_ids=[pad])
    decoded = [tokenizer.decode(row) for row in ids]
    expected = _expected(decoded, REFERENCES, "rouge2")
    assert reward(completions=["ignored"] * len(ids), completion_ids=ids, reference=REFERENCES) == expected
    width = max(map(len, ids)) + 2
    padded = torch.tensor([row + [pad] * (width - len(row)) for row in ids])
    assert reward(completion_ids=padded, reference=REFERENCES) == expected


def test_mistakes_are_said_clearly():
    with pytest.raises(InputError, match="pass rouge_type='rougeL'"):
        SentenceReward("rouge", rouge_types=("rouge1", "rouge2"))
    with pytest.raises(InputError, match="rouge_type must be one ROUGE type"):
        SentenceReward("rouge", rouge_type=("rouge1",))
    with pytest.raises(ValueError, match="unknown ROUGE type 'rougeS'"):
        SentenceReward("rouge", rouge_type="rougeS")
    with pytest.raises(ValueError, match="accumulate"):
        SentenceReward("rouge", accumulate="max")
    with pytest.raises(InputError, match="metric must be one of"):
        SentenceReward("rouge2")
