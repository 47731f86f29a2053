#!/usr/bin/env bash
# The demo: train a small Transformer for about a minute and validate it with torch_bleu every epoch,
# checked against nltk's corpus_bleu on the same ids (examples/seq2seq_validation.py).
# It saves a plot of validation BLEU per epoch to out/validation_bleu.png; a --quick smoke run saves
# out/validation_bleu_quick.png instead, so it never overwrites the full run's plot.
# Usage: bash scripts/demo.sh [--epochs N] [--device cuda] [--seed S] [--threads N] [--plot PATH] [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
# the "test" extras hold everything the demo uses (tqdm, matplotlib, nltk) and match scripts/test.sh,
# so running one after the other installs nothing
export TORCH_BLEU_EXTRAS="${TORCH_BLEU_EXTRAS:-test}"
source scripts/setup_env.sh
python examples/seq2seq_validation.py "$@"
