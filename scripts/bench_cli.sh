#!/usr/bin/env bash
# torch-bleu vs sacrebleu on the 16 WMT17 en-de systems (LIUM-NMT first = baseline), -tok none,
# --paired-bs -pbsn 2000 and --paired-ar -parn 10000: wall-clock seconds of the whole command (median
# of the repeats), the speed-up, and the largest p-value difference between the two.
# Usage: bash scripts/bench_cli.sh [repeats] [extra torch-bleu options, e.g. --device cuda]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
data="${DATA:-$repo/../shared/data/wmt17-en-de}"
repeats="${1:-1}"
shift || true
cd "$data"
systems="sys.LIUM-NMT.4900.de $(ls sys.*.de | grep -v LIUM-NMT | tr '\n' ' ')"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
echo "| test | sacrebleu | torch-bleu | speed-up | largest p-value difference |"
echo "| --- | --- | --- | --- | --- |"
for test in "--paired-bs -pbsn 2000" "--paired-ar -parn 10000"; do
  for round in $(seq "$repeats"); do  # rounds interleave the two tools, so that both see the same machine load
    for tool in sacrebleu torch-bleu; do
      extra=()
      [[ $tool == torch-bleu ]] && extra=("$@")
      /usr/bin/time -f "%e" -a -o "$out/$tool.times" \
        "$repo/.venv/bin/$tool" -tok none newstest2017.ref.de -i $systems $test -f json "${extra[@]}" \
        > "$out/$tool.json" 2>/dev/null
    done
  done
  "$repo/.venv/bin/python" - "$out" "$test" <<'PY'
import json, statistics, sys
folder, test = sys.argv[1:]
seconds = {tool: statistics.median(map(float, open(f"{folder}/{tool}.times").read().split()))
           for tool in ("sacrebleu", "torch-bleu")}
ours, theirs = (json.load(open(f"{folder}/{tool}.json")) for tool in ("torch-bleu", "sacrebleu"))
worst = max(abs((a["BLEU"]["p_value"] or 0) - (b["BLEU"]["p_value"] or 0)) for a, b in zip(ours, theirs))
print(f"| `{test}` | {seconds['sacrebleu']:.2f} s | {seconds['torch-bleu']:.2f} s "
      f"| {seconds['sacrebleu'] / seconds['torch-bleu']:.1f}x | {worst:.2g} |")
PY
  rm -f "$out"/*.times
done
