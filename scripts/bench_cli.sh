#!/usr/bin/env bash
# torch-bleu vs sacrebleu on the 16 WMT17 en-de systems (LIUM-NMT first = baseline), -tok none, BLEU
# and chrF++ (-m chrf -cw 2), --paired-bs -pbsn 2000 and --paired-ar -parn 10000: wall-clock seconds
# of the whole command (median of the repeats), the speed-up, and whether the two print the same
# text (apart from the version in the signature).
# Usage: [JOBS=N] bash scripts/bench_cli.sh [repeats] [extra torch-bleu options, e.g. --device cuda]
# JOBS=N gives both tools --paired-jobs N (worker processes; both default to 1).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
data="${DATA:-$repo/../shared/data/wmt17-en-de}"
repeats="${1:-1}"
shift || true
jobs="${JOBS:-1}"
cd "$data"
systems="sys.LIUM-NMT.4900.de $(ls sys.*.de | grep -v LIUM-NMT | tr '\n' ' ')"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
echo "| metric | test | sacrebleu | torch-bleu | speed-up | output |"
echo "| --- | --- | --- | --- | --- | --- |"
for metric in "-m bleu" "-m chrf -cw 2"; do
  for test in "--paired-bs -pbsn 2000" "--paired-ar -parn 10000"; do
    for round in $(seq "$repeats"); do  # rounds interleave the two tools, so that both see the same machine load
      for tool in sacrebleu torch-bleu; do
        extra=()
        [[ $tool == torch-bleu ]] && extra=("$@")
        /usr/bin/time -f "%e" -a -o "$out/$tool.times" \
          "$repo/.venv/bin/$tool" -tok none newstest2017.ref.de -i $systems $metric $test -j "$jobs" -f text \
          "${extra[@]}" > "$out/$tool.txt" 2>/dev/null
      done
    done
    "$repo/.venv/bin/python" - "$out" "$metric" "$test" <<'PY'
import re, statistics, sys
folder, metric, test = sys.argv[1:]
seconds = {tool: statistics.median(map(float, open(f"{folder}/{tool}.times").read().split()))
           for tool in ("sacrebleu", "torch-bleu")}
ours, theirs = (re.sub(r"version:\S+", "version", open(f"{folder}/{tool}.txt").read())
                for tool in ("torch-bleu", "sacrebleu"))
print(f"| `{metric}` | `{test}` | {seconds['sacrebleu']:.2f} s | {seconds['torch-bleu']:.2f} s "
      f"| {seconds['sacrebleu'] / seconds['torch-bleu']:.1f}x | {'identical' if ours == theirs else 'DIFFERENT'} |")
PY
    rm -f "$out"/*.times
  done
done
