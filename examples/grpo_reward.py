"""chrF (or BLEU) as the reward of TRL's GRPO trainer, and MBR selection among the samples of a prompt.

GRPO samples a group of completions per prompt and rewards each; ``torch_bleu.SentenceReward`` is a
reward function as TRL calls them: it gets the completions and the dataset's columns, and scores the
whole batch against the ``reference`` column in one call::

    reward = torch_bleu.SentenceReward("chrf", reference_column="reference")
    trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=args, train_dataset=dataset, ...)

TRL logs the rewards under the reward's name (``rewards/chrf_reward/mean``). After training, the script
samples a group of completions for one prompt and picks one by minimum Bayes risk: the completion with
the highest mean chrF against the others (``torch_bleu.pairwise_chrf`` and ``torch_bleu.mbr_select``).

Everything is offline: a byte-level BPE tokenizer is trained on the few lines of text below and the
model is a tiny GPT-2 with random weights, so the completions are noise and the rewards small; the
point is the wiring. Needs ``pip install trl`` (it brings ``datasets`` and ``accelerate``).

Run:  python examples/grpo_reward.py [--steps 4] [--metric chrf|bleu] [--seed 0] [--quick]
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence

import torch
from _tiny_lm import PAIRS, tiny_tokenizer

import torch_bleu


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4, help="GRPO steps")
    parser.add_argument("--metric", choices=["chrf", "bleu"], default="chrf")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="one step")
    args = parser.parse_args(argv)
    from datasets import Dataset
    from transformers import GPT2Config, GPT2LMHeadModel
    from trl import GRPOConfig, GRPOTrainer

    torch.manual_seed(args.seed)
    tokenizer = tiny_tokenizer()
    config = GPT2Config(
        vocab_size=len(tokenizer), n_positions=128, n_embd=32, n_layer=2, n_head=2,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
    )  # fmt: skip
    model = GPT2LMHeadModel(config)
    dataset = Dataset.from_dict({"prompt": [p for p, _ in PAIRS], "reference": [r for _, r in PAIRS]})
    options = {"smoothing": "exp", "effective_order": True} if args.metric == "bleu" else {"word_order": 2}
    reward = torch_bleu.SentenceReward(args.metric, reference_column="reference", **options)
    with tempfile.TemporaryDirectory() as output:
        training = GRPOConfig(
            output_dir=output, per_device_train_batch_size=8, num_generations=4, max_completion_length=12,
            max_steps=1 if args.quick else args.steps, learning_rate=1e-3, logging_steps=1, report_to=[],
            use_cpu=True, save_strategy="no", seed=args.seed, disable_tqdm=True,
        )  # fmt: skip
        trainer = GRPOTrainer(
            model=model, reward_funcs=[reward], args=training, train_dataset=dataset, processing_class=tokenizer
        )
        trainer.train()
    logged = [entry[f"rewards/{reward.__name__}/mean"] for entry in trainer.state.log_history if "reward" in entry]
    for step, value in enumerate(logged, 1):
        print(f"step {step}: mean {args.metric} reward {value:.4f}")

    # MBR: 8 samples of the first prompt, the one with the highest mean chrF against the others
    prompt = tokenizer(PAIRS[0][0], return_tensors="pt")
    with torch.no_grad():
        samples = model.generate(
            **prompt, do_sample=True, num_return_sequences=8, max_new_tokens=12, pad_token_id=tokenizer.pad_token_id
        )
    completions = tokenizer.batch_decode(samples[:, prompt["input_ids"].shape[1] :], skip_special_tokens=True)
    utilities = torch_bleu.pairwise_chrf([completions])
    chosen = int(torch_bleu.mbr_select(utilities)[0])
    print(f"MBR pick among {len(completions)} samples: #{chosen} {completions[chosen]!r}")
    return {"rewards": logged, "completions": completions, "chosen": chosen}


if __name__ == "__main__":
    main()
