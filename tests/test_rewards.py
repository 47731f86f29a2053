"""SentenceReward as TRL's GRPO trainer calls it: its arguments, conversational completions, several
references, subword ids; TRL itself with a tiny random model; the GRPO example."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import pytest
from subword_tokenizers import cached_transformers, requires

from torch_bleu import Detokenizer, SentenceReward
from torch_bleu.errors import InputError

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU, CHRF  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
COMPLETIONS = ["The cat sits on the mat.", "the cat sat", "", "A dog (barking)!"]
REFERENCES = ["The cat sits on the mat.", "The cat is sitting.", "Hello.", "The dog barks!"]


def _trl_arguments(completions, **columns):
    """What TRL's GRPOTrainer passes to a reward function: prompts, completions, completion ids, every
    other dataset column, its trainer state and two logging hooks."""
    return {
        "prompts": ["Translate: ..."] * len(completions),
        "completions": completions,
        "completion_ids": [[1, 2, 3]] * len(completions),
        "trainer_state": object(),
        "log_extra": lambda *args: None,
        "log_metric": lambda *args: None,
        **columns,
    }


@pytest.mark.parametrize(
    ("metric", "options", "sacrebleu_metric"),
    [
        ("bleu", {"smoothing": "exp", "effective_order": True}, BLEU(effective_order=True)),
        ("chrf", {"word_order": 2}, CHRF(word_order=2)),
        ("chrf", {}, CHRF()),
    ],
)
def test_rewards_are_sacrebleus_sentence_scores(metric, options, sacrebleu_metric):
    reward = SentenceReward(metric, **options)
    rewards = reward(**_trl_arguments(COMPLETIONS, reference=REFERENCES, difficulty=[1, 2, 3, 4]))
    expected = [sacrebleu_metric.sentence_score(c, [r]).score / 100 for c, r in zip(COMPLETIONS, REFERENCES)]
    assert isinstance(rewards, list) and all(isinstance(value, float) for value in rewards)
    assert rewards == pytest.approx(expected, abs=1e-12)
    assert reward.__name__ == f"{metric}_reward"
    assert pickle.loads(pickle.dumps(reward))(**_trl_arguments(COMPLETIONS, reference=REFERENCES)) == rewards


def test_conversational_completions_and_several_references():
    conversations = [[{"role": "assistant", "content": text}] for text in COMPLETIONS]
    several = [[reference, "another reference"] for reference in REFERENCES]
    reward = SentenceReward("chrf", reference_column="answers")
    rewards = reward(**_trl_arguments(conversations, answers=several))
    expected = [CHRF().sentence_score(c, refs).score / 100 for c, refs in zip(COMPLETIONS, several)]
    assert rewards == pytest.approx(expected, abs=1e-12)


def test_completion_ids_with_a_detokenizer():
    tokenizer = cached_transformers(False)
    ids = [tokenizer(text, add_special_tokens=False)["input_ids"] for text in COMPLETIONS]
    reward = SentenceReward("bleu", detokenizer=Detokenizer.from_huggingface(tokenizer), smoothing="exp")
    arguments = _trl_arguments(["ignored"] * len(ids), reference=REFERENCES)
    arguments["completion_ids"] = ids
    expected = [BLEU().sentence_score(tokenizer.decode(row), [r]).score / 100 for row, r in zip(ids, REFERENCES)]
    assert reward(**arguments) == pytest.approx(expected, abs=1e-12)


def test_mistakes_are_said_clearly():
    with pytest.raises(InputError, match="metric must be one of"):
        SentenceReward("ter")
    with pytest.raises(ValueError, match="smoothing"):
        SentenceReward("bleu", smoothing="bogus")
    with pytest.raises(InputError, match=r"no column 'reference'.*'answer'"):
        SentenceReward("bleu")(**_trl_arguments(COMPLETIONS, answer=REFERENCES))
    with pytest.raises(InputError, match="string or a list of messages"):
        SentenceReward("chrf")(**_trl_arguments([3, 4], reference=["a", "b"]))


@pytest.mark.slow
def test_trl_grpo_trainer_calls_the_reward_and_logs_it(tmp_path):
    requires("trl", "datasets", "transformers")
    from datasets import Dataset
    from transformers import GPT2Config, GPT2LMHeadModel
    from trl import GRPOConfig, GRPOTrainer

    tokenizer = cached_transformers(False)
    model = GPT2LMHeadModel(
        GPT2Config(vocab_size=len(tokenizer), n_positions=64, n_embd=16, n_layer=1, n_head=2,
                   pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id)
    )  # fmt: skip
    dataset = Dataset.from_dict({"prompt": ["the cat", "a dog", "hello", "good day"], "reference": REFERENCES})
    reward = SentenceReward("chrf")
    seen = []

    def spy(**arguments):
        rewards = reward(**arguments)
        seen.append((arguments, rewards))
        return rewards

    spy.__name__ = reward.__name__
    args = GRPOConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=4, num_generations=2, max_completion_length=6,
        max_steps=1, report_to=[], use_cpu=True, save_strategy="no", seed=0, disable_tqdm=True,
    )  # fmt: skip
    trainer = GRPOTrainer(model=model, reward_funcs=[spy], args=args, train_dataset=dataset, processing_class=tokenizer)
    trainer.train()
    (arguments, rewards), *_ = seen
    expected = [
        CHRF().sentence_score(c, [r]).score / 100 for c, r in zip(arguments["completions"], arguments["reference"])
    ]
    assert rewards == pytest.approx(expected, abs=1e-12)
    logged = [entry for entry in trainer.state.log_history if "rewards/chrf_reward/mean" in entry]
    assert logged and logged[0]["rewards/chrf_reward/mean"] == pytest.approx(sum(rewards) / len(rewards), abs=1e-6)


@pytest.mark.slow
def test_the_grpo_example_runs(capsys):
    requires("trl", "datasets", "tokenizers", "transformers")
    sys.path.insert(0, str(EXAMPLES))
    import grpo_reward

    result = grpo_reward.main(["--quick"])
    assert len(result["rewards"]) == 1 and 0 <= result["rewards"][0] <= 1
    assert 0 <= result["chosen"] < len(result["completions"])
    assert "MBR pick among 8 samples" in capsys.readouterr().out
