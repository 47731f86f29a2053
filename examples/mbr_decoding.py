"""MBR decoding of a Hugging Face model's samples by aggregate chrF++, from the sampled ids.

Minimum Bayes risk (MBR) decoding samples ``N`` candidates per source and keeps the one with the
highest expected utility against the others, used as pseudo-references. ``torch_bleu.aggregate_chrf``
estimates that expectation in one pass (reference aggregation): each candidate's chrF++ against the
*mean* n-gram statistics of the samples, weighted here by the model's own sequence probabilities (a
softmax of their log-probabilities per source). It reads the sampled ids directly: with
``detokenizer=``, the ids are decoded on their device, and nothing is decoded on the host to choose::

    weights = torch.softmax(log_probs, -1)                                # (S, N) per source
    utilities = torch_bleu.aggregate_chrf(ids, reference_weights=weights, word_order=2,
                                          detokenizer=detokenizer, ignore_ids=[pad], eos_id=eos)
    chosen = torch_bleu.mbr_select(utilities)                            # (S,) indices

Everything is offline: a byte-level BPE tokenizer is trained on the few lines of text below and a
tiny GPT-2 learns them for a few steps, so its samples are rough copies of those lines. The script
also picks by the full pairwise matrix (``pairwise_chrf``, N x N per source) and says where the two
choices agree.

Run:  python examples/mbr_decoding.py [--samples 16] [--steps 150] [--seed 0] [--device cpu] [--quick]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import torch
from _device import usable_device
from _tiny_lm import PAIRS, tiny_tokenizer

import torch_bleu


def trained_model(tokenizer, steps: int, device: torch.device):  # type: ignore[no-untyped-def]
    """A tiny GPT-2 taught the lines ``prompt reference</s>`` for ``steps`` steps."""
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(
        vocab_size=len(tokenizer), n_positions=64, n_embd=64, n_layer=2, n_head=2,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
    )  # fmt: skip
    model = GPT2LMHeadModel(config).to(device)
    lines = [f"{prompt} {reference}{tokenizer.eos_token}" for prompt, reference in PAIRS]
    batch = tokenizer(lines, return_tensors="pt", padding=True).to(device)
    labels = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(steps):
        loss = model(**batch, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()
    return model


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=16, help="candidates sampled per source")
    parser.add_argument("--steps", type=int, default=150, help="training steps of the tiny model")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", type=usable_device, default="cpu")
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads for the model")
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    samples, steps = (4, 30) if args.quick else (args.samples, args.steps)
    tokenizer = tiny_tokenizer(padding_side="left")
    model = trained_model(tokenizer, steps, args.device)
    pad, eos = tokenizer.pad_token_id, tokenizer.eos_token_id

    prompts = [f"{prompt} " for prompt, _ in PAIRS[:4]]
    batch = tokenizer(prompts, return_tensors="pt", padding=True).to(args.device)
    with torch.no_grad():
        out = model.generate(
            **batch, do_sample=True, num_return_sequences=samples, max_new_tokens=16, pad_token_id=pad,
            return_dict_in_generate=True, output_scores=True,
        )  # fmt: skip
        steps_log_probs = model.compute_transition_scores(out.sequences, out.scores, normalize_logits=True)
    new = out.sequences[:, batch["input_ids"].shape[1] :]  # (S * N, L): the sampled ids, padded after EOS
    sampled = new != pad
    log_probs = torch.where(sampled, steps_log_probs, 0.0).sum(-1).view(len(prompts), samples)
    ids = new.view(len(prompts), samples, -1)  # (S, N, L)

    detokenizer = torch_bleu.Detokenizer.from_huggingface(tokenizer)
    options = {"detokenizer": detokenizer, "ignore_ids": [pad], "eos_id": eos, "word_order": 2}
    weights = torch.softmax(log_probs, -1)  # each sample's share of the model's probability, per source
    utilities = torch_bleu.aggregate_chrf(ids, reference_weights=weights, **options)  # (S, N)
    chosen = torch_bleu.mbr_select(utilities)
    uniform = torch_bleu.mbr_select(torch_bleu.aggregate_chrf(ids, **options))
    pairwise = torch_bleu.mbr_select(torch_bleu.pairwise_chrf(ids, **options))  # (S, N, N), the exact means

    # decoded only to show the result
    picks = tokenizer.batch_decode(ids[torch.arange(len(prompts)), chosen], skip_special_tokens=True)
    for source, (prompt, pick) in enumerate(zip(prompts, picks)):
        print(f"{prompt.strip()!r} -> {pick!r} (sample {int(chosen[source])}, weighted aggregate chrF++ "
              f"{utilities[source, chosen[source]].item():.3f})")  # fmt: skip
    agree = int((uniform == pairwise).sum())
    print(f"uniform aggregate and pairwise MBR agree on {agree} of {len(prompts)} sources")
    return {"chosen": chosen.tolist(), "uniform": uniform.tolist(), "pairwise": pairwise.tolist(), "picks": picks,
            "utilities": utilities, "weights": weights}  # fmt: skip


if __name__ == "__main__":
    main()
