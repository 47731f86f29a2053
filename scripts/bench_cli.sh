#!/usr/bin/env bash
# torch-bleu vs sacrebleu on the 16 WMT17 en-de systems (LIUM-NMT first = baseline), -tok none,
# --paired-bs -pbsn 2000 and --paired-ar -parn 10000: wall-clock and CPU seconds, and the largest
# p-value difference between the two. Usage: bash scripts/bench_cli.sh [repeats]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
data="${DATA:-$repo/../shared/data/wmt17-en-de}"
cd "$data"
systems="sys.LIUM-NMT.4900.de $(ls sys.*.de | grep -v LIUM-NMT | tr '\n' ' ')"
out="$(mktemp -d)"
for round in $(seq "${1:-1}"); do
  for test in "--paired-bs -pbsn 2000" "--paired-ar -parn 10000"; do
    for tool in sacrebleu torch-bleu; do
      /usr/bin/time -f "%e %U %S" -o "$out/time" \
        "$repo/.venv/bin/$tool" -tok none newstest2017.ref.de -i $systems $test -f json > "$out/$tool.json" 2>/dev/null
      read -r wall user system < "$out/time"
      printf '%-10s %-24s wall %6.2f s   cpu %6.2f s\n' "$tool" "$test" "$wall" "$(echo "$user + $system" | bc)"
    done
    "$repo/.venv/bin/python" - "$out" <<'PY'
import json, sys
ours, theirs = (json.load(open(f"{sys.argv[1]}/{tool}.json")) for tool in ("torch-bleu", "sacrebleu"))
worst = max(abs((a["BLEU"]["p_value"] or 0) - (b["BLEU"]["p_value"] or 0)) for a, b in zip(ours, theirs))
print(f"  largest p-value difference to sacrebleu: {worst:.2g}")
PY
  done
done
