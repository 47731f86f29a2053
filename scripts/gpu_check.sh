#!/usr/bin/env bash
# Every GPU check in one command, the release gate (at most 8 minutes of commands on a GPU, each step capped):
#   1. the exactness and life-cycle tests of every metric and input path with their tensors on the
#      device (pytest --device: PyTorch's default device, one set of tests), Triton's kernels included
#      (the default TORCH_BLEU_KERNELS=auto runs them for CUDA tensors);
#   2. update() of every metric path under torch.cuda.set_sync_debug_mode("error"), each host sync named
#      (TER's documented read-back allowed);
#   3. scripts/bench.py on the device: TensorBLEU's shapes (16 to 512 rows x 256 and 1024 tokens, per
#      sentence and corpus; pip install rxlm --no-deps), WER, CER, ROUGE-L and rougeLsum from ids at batch
#      8 / 32 / 128 / a whole system against the CPU path and the usual loop, the SCST reward and COCO's
#      caption scores against pycocoevalcap (captioning), pairwise, rl, update;
#   4. one JSON report (device, versions, tests, syncs, bench, every figure with what it is compared
#      with and the ratio, seconds per step), its path printed last. On a GPU it is also copied to
#      docs/bench-gpu.json and the GPU tables of README.md and docs/speed.md are written from it
#      (python scripts/gpu_check.py tables docs/bench-gpu.json does that alone).
#
# Usage: bash scripts/gpu_check.sh [--device cuda|cpu] [--out DIR] [--step-limit SECONDS]
#   --step-limit stops any one step after SECONDS (the report says which ran out); by default on a GPU the
#   steps are capped at 180, 60 and 240 seconds, so that a 15-minute lease, start-up included, brings back
#   every step's figures.
#   --device cpu runs the same steps on the CPU with a smaller bench (a few minutes), so that the
#   script is exercised where there is no GPU.
# On a machine whose python3 already has PyTorch with CUDA (a lent GPU machine), that Python is used
# as it is, with wheels from .whl/ (if any) installed beside it; elsewhere the project's .venv.
set -uo pipefail
cd "$(dirname "$0")/.."
device=cuda
out=out/gpu-check
step_limit=""
while [ $# -gt 0 ]; do
    case "$1" in
        --device) device="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --step-limit) step_limit="$2"; shift 2 ;;
        *) echo "gpu_check: unknown argument $1 (usage: --device cuda|cpu, --out DIR, --step-limit SECONDS)" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"

if [ "$device" != cpu ] && python3 -c "import torch, sys; sys.exit(not torch.cuda.is_available())" 2>/dev/null; then
    python=python3
    if compgen -G ".whl/*.whl" >/dev/null; then  # packages the machine lacks, carried as wheels
        python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
        export PYTHONPATH="/tmp/site:${PYTHONPATH:-}"
    fi
    export PYTHONPATH="$PWD/src:${PYTHONPATH:-}"  # the package from this checkout, as it is
else
    source scripts/setup_env.sh
    python=python
fi
export PYTHONUNBUFFERED=1

tests=(
    tests/test_against_sacrebleu.py tests/test_corpus_statistics.py tests/test_metric_lifecycle.py
    tests/test_eos.py tests/test_ragged_input.py tests/test_device_and_inputs.py tests/test_subword_ids.py
    tests/test_chrf.py tests/test_ter.py tests/test_pairwise.py tests/test_rewards.py tests/test_compile.py
    tests/test_wer.py tests/test_metric_significance.py tests/test_aggregate_chrf.py tests/test_aggregate_and_self_bleu.py
    tests/test_wer_long_rows.py tests/test_negative_ids.py tests/test_rouge.py tests/test_pairwise_rouge.py
    tests/test_rewards_rouge.py tests/test_triton_wer.py tests/test_triton_rouge.py tests/test_queued_ids.py
    tests/test_cider.py tests/test_self_critical.py tests/test_coco_caption_scores.py
)
if [ "$device" = cpu ]; then
    bench=(--quick)
else
    bench=(--repeats 3)
fi

seconds=()
failed=0
step() {  # step NAME LIMIT COMMAND...: run (for at most LIMIT seconds, 0: no limit), time, remember a failure
    local name="$1" limit="${step_limit:-$2}" start took
    shift 2
    echo "gpu_check: $name" >&2
    start=$(date +%s%N)
    if [ "$limit" -gt 0 ]; then
        timeout "$limit" "$@" || failed=1
    else
        "$@" || failed=1
    fi
    took=$((($(date +%s%N) - start) / 1000000))  # milliseconds
    seconds+=(--seconds "$name=$((took / 1000)).$(printf '%03d' $((took % 1000)))")
}

if [ "$device" = cpu ]; then
    limits=(0 0 0)
else
    limits=(180 60 240)
fi

step tests "${limits[0]}" "$python" -m pytest "${tests[@]}" --device "$device" -n auto -q -p no:cacheprovider \
    --junitxml="$out/tests.xml"
step syncs "${limits[1]}" "$python" scripts/gpu_check.py syncs --device "$device" --json "$out/syncs.json"
step bench "${limits[2]}" "$python" scripts/bench.py --device "$device" "${bench[@]}" --busy 0 \
    --skip wmt17 subwords batches grid memory threads text chrf ter wer rouge self_bleu significance \
    --json "$out/bench.json"
"$python" scripts/gpu_check.py report --out "$out/report.json" --device "$device" "${seconds[@]}" \
    --step tests="$out/tests.xml" --step syncs="$out/syncs.json" --step bench="$out/bench.json"
if [ "$device" != cpu ]; then
    cp "$out/report.json" docs/bench-gpu.json
    "$python" scripts/gpu_check.py tables docs/bench-gpu.json >/dev/null || failed=1
fi
echo "$out/report.json"
exit "$failed"
