"""SentenceReward as TRL's GRPO trainer calls it: its arguments, conversational completions, several
references, subword ids; TRL itself with a tiny random model; the GRPO example."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from subword_tokenizers import cached_transformers, requires

from torch_bleu import BLEUConfig, Detokenizer, SentenceReward
from torch_bleu.errors import InputError
from torch_bleu.metrics.bleu.functional import sentence_bleu
from torch_bleu.rewards import REWARD_METRICS, RewardMetric

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


WORDS = st.sampled_from(["the", "cat", "sat", " ", "on", "mat", ".", "\u00e9t\u00e9", ""])
TEXTS = st.lists(WORDS, max_size=6).map("".join)
#: Parts of a message's content that hold text, as OpenAI's and Hugging Face's chat format write them.
TEXT_PARTS = st.one_of(TEXTS.map(lambda text: {"type": "text", "text": text}), TEXTS)
#: Parts without text: they add nothing to the completion's text.
OTHER_PARTS = st.sampled_from(
    [{"type": "image"}, {"type": "image_url", "image_url": {"url": "http://x/cat.png"}}, {"type": "audio", "path": "a"}]
)


def _text_of_parts(parts):
    return "".join(part if isinstance(part, str) else part.get("text", "") for part in parts)


@pytest.mark.parametrize("metric", sorted(REWARD_METRICS))
@settings(max_examples=40)
@given(parts=st.lists(st.one_of(TEXT_PARTS, OTHER_PARTS), max_size=6), reference=TEXTS)
def test_a_content_list_is_scored_as_its_text_parts_joined(metric, parts, reference):
    reward = SentenceReward(metric)
    conversation = [{"role": "user", "content": "Translate"}, {"role": "assistant", "content": parts}]
    expected = reward(completions=[_text_of_parts(parts)], reference=[reference])
    assert reward(completions=[conversation], reference=[reference]) == expected


@settings(max_examples=25)
@given(texts=st.lists(TEXTS, min_size=1, max_size=5))
def test_text_parts_are_joined_as_hugging_face_chat_templates_render_them(texts):
    """A list of text parts renders, with a chat template of transformers that takes content lists (Llama 4's),
    exactly as the string the reward scores."""
    requires("transformers")
    from transformers.models.llama4.processing_llama4 import chat_template

    tokenizer = _tokenizer()
    parts = [{"type": "text", "text": text} for text in texts]

    def rendered(content):
        conversation = [{"role": "assistant", "content": content}]
        return tokenizer.apply_chat_template(conversation, chat_template=chat_template, tokenize=False)

    assert rendered(parts) == rendered("".join(texts))
    reward = SentenceReward("chrf")
    expected = reward(completions=["".join(texts)], reference=["the cat"])
    assert reward(completions=[[{"role": "assistant", "content": parts}]], reference=["the cat"]) == expected


def test_trls_structured_messages_score_as_their_strings():
    requires("trl")
    from trl.data_utils import prepare_multimodal_messages

    conversations = [[{"role": "assistant", "content": text}] for text in COMPLETIONS]
    structured = [prepare_multimodal_messages(conversation) for conversation in conversations]
    assert all(isinstance(conversation[-1]["content"], list) for conversation in structured)
    reward = SentenceReward("bleu", smoothing="exp")
    assert reward(completions=structured, reference=REFERENCES) == reward(completions=COMPLETIONS, reference=REFERENCES)


@pytest.mark.parametrize("metric", sorted(REWARD_METRICS))
def test_a_message_without_text_is_an_empty_completion(metric):
    reward = SentenceReward(metric)
    tool_call = {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "f"}}]}
    references = ["None", ""]
    expected = reward(completions=[""] * 2, reference=references)
    assert reward(completions=[[tool_call]] * 2, reference=references) == expected
    assert reward(completions=[[tool_call]], reference=["None"]) == [0.0]


def test_a_last_message_is_scored_after_tool_messages():
    reward = SentenceReward("chrf")
    conversation = [
        {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "f"}}]},
        {"role": "tool", "content": "42"},
        {"role": "assistant", "content": [{"type": "text", "text": "The cat sits on the mat."}]},
    ]
    assert reward(completions=[conversation], reference=REFERENCES[:1]) == [1.0]


def _tokenizer():
    return cached_transformers(False)


def _padded(rows, pad, width):
    return torch.tensor([row + [pad] * (width - len(row)) for row in rows])


@pytest.mark.parametrize(("metric", "options"), [("bleu", {"smoothing": "exp"}), ("chrf", {})])
@settings(max_examples=15)
@given(extra=st.integers(0, 4), garbage=st.lists(st.integers(3, 200), max_size=3))
def test_completion_ids_as_a_padded_tensor(metric, options, extra, garbage):
    """A (completions, length) tensor scores as the rows it holds: padding dropped with ignore_ids, each
    row cut at its EOS with eos_id."""
    tokenizer = _tokenizer()
    pad, eos = tokenizer.pad_token_id, tokenizer.eos_token_id
    rows = [tokenizer(text, add_special_tokens=False)["input_ids"] for text in COMPLETIONS]
    detokenizer = Detokenizer.from_huggingface(tokenizer)
    width = max(map(len, rows)) + extra
    expected = SentenceReward(metric, detokenizer=detokenizer, **options)(completion_ids=rows, reference=REFERENCES)
    expected = pytest.approx(expected, rel=1e-14, abs=0)  # lists are scored on the CPU, tensors on their device

    padding = SentenceReward(metric, detokenizer=detokenizer, ignore_ids=[pad], **options)
    assert padding(completion_ids=_padded(rows, pad, width), reference=REFERENCES) == expected
    assert padding(completion_ids=_padded(rows, pad, width).cpu().numpy(), reference=REFERENCES) == expected

    ended = [[*row, eos, *garbage] for row in rows]
    cut = SentenceReward(metric, detokenizer=detokenizer, eos_id=eos, **options)
    assert cut(completion_ids=_padded(ended, eos, width + 1 + len(garbage)), reference=REFERENCES) == expected
    assert cut(completion_ids=[torch.tensor(row) for row in ended], reference=REFERENCES) == expected


#: The reward metrics that decode subword ids (CIDEr-D scores strings and plain ids only).
DECODING_METRICS = sorted(set(REWARD_METRICS) - {"cider"})


@pytest.mark.parametrize("metric", DECODING_METRICS)
def test_completion_ids_as_a_list_of_tensors(metric):
    tokenizer = _tokenizer()
    rows = [tokenizer(text, add_special_tokens=False)["input_ids"] for text in COMPLETIONS]
    reward = SentenceReward(metric, detokenizer=Detokenizer.from_huggingface(tokenizer))
    expected = reward(completion_ids=rows, reference=REFERENCES)
    tensors = [torch.tensor(row, dtype=torch.long) for row in rows]
    # lists are scored on the CPU, tensors on their device: equal to the last bits of float64
    assert reward(completion_ids=tensors, reference=REFERENCES) == pytest.approx(expected, rel=1e-14, abs=0)
    assert reward(completion_ids=tuple(tuple(row) for row in rows), reference=tuple(REFERENCES)) == expected


def test_each_metrics_defaults_live_in_the_registry(monkeypatch):
    """A metric is one entry of REWARD_METRICS: its options' config, its sentence scores, its defaults."""
    assert all(isinstance(entry, RewardMetric) for entry in REWARD_METRICS.values())
    assert SentenceReward("bleu").options == {"tokenize": "13a"}
    assert SentenceReward("bleu", tokenize="intl").options == {"tokenize": "intl"}
    assert SentenceReward("chrf", word_order=2).options == {"word_order": 2}
    bigrams = RewardMetric(BLEUConfig, sentence_bleu, {"tokenize": "13a", "max_order": 2})
    monkeypatch.setitem(REWARD_METRICS, "bleu2", bigrams)
    reward = SentenceReward("bleu2", reference_column="answer")
    assert reward.__name__ == "bleu2_reward"
    expected = BLEU(max_ngram_order=2).sentence_score("the cat sat", ["the cat is"]).score / 100
    assert reward(completions=["the cat sat"], answer=["the cat is"]) == [pytest.approx(expected, abs=1e-12)]


def test_bleus_text_default_leaves_a_detokenizer_its_own():
    """BLEU's reward default (tokenize="13a") is what a detokenizer takes by default; other tokenizers it
    can reproduce on ids are still chosen by name."""
    tokenizer = _tokenizer()
    detokenizer = Detokenizer.from_huggingface(tokenizer)
    rows = [tokenizer(text, add_special_tokens=False)["input_ids"] for text in COMPLETIONS]
    reward = SentenceReward("bleu", detokenizer=detokenizer, smoothing="exp")
    expected = sentence_bleu(rows, [[r] for r in REFERENCES], detokenizer=detokenizer, smoothing="exp").tolist()
    assert reward(completion_ids=rows, reference=REFERENCES) == expected
    intl = SentenceReward("bleu", detokenizer=detokenizer, tokenize="intl", smoothing="exp")
    decoded = [tokenizer.decode(row) for row in rows]
    assert intl(completion_ids=rows, reference=REFERENCES) == pytest.approx(
        [BLEU(tokenize="intl").sentence_score(d, [r]).score / 100 for d, r in zip(decoded, REFERENCES)], abs=1e-12
    )


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
