#!/usr/bin/env bash
# torch-bleu vs sacrebleu on the command line, WMT17 en-de systems (LIUM-NMT first = baseline):
# * 4 systems, default BLEU (-m bleu: 13a tokenizer, exp smoothing), no significance test;
# * the 16 systems, -tok none, BLEU and chrF++ (-m chrf -cw 2), each with --paired-bs -pbsn 2000 and
#   with --paired-ar -parn 10000;
# * the 16 systems, BLEU, chrF and TER together (-m bleu chrf ter), --paired-bs -pbsn 1000.
# Per case: wall-clock seconds of the whole command (median of the repeats), the speed-up, whether
# the two print the same text (apart from the version in the signature), and torch-bleu's seconds
# beside as many busy processes as cores (BUSY=N other processes; BUSY=0 leaves that column out).
# Usage: [JOBS=N] bash scripts/bench_cli.sh [repeats] [extra torch-bleu options, e.g. --device cuda]
# JOBS=N gives both tools --paired-jobs N (worker processes; both default to 1) in the significance tests.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
data="${DATA:-$repo/../shared/data/wmt17-en-de}"
repeats="${1:-1}"
shift || true
extra_ours=("$@")
jobs="${JOBS:-1}"
busy="${BUSY:-$(nproc)}"
cd "$data"
all_systems="sys.LIUM-NMT.4900.de $(ls sys.*.de | grep -v LIUM-NMT | tr '\n' ' ')"
four_systems="$(echo $all_systems | cut -d' ' -f1-4)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# One table row: both tools run with the same arguments, rounds interleaving the two tools so that
# both see the same machine load.
# Usage: run_case SYSTEMS_LABEL "SIGNIFICANCE TEST OPTIONS" (or "") OTHER_OPTIONS...
run_case() {
  local systems_label="$1" test="$2"
  shift 2
  local round tool
  for round in $(seq "$repeats"); do
    for tool in sacrebleu torch-bleu; do
      local extra=()
      [[ $tool == torch-bleu ]] && extra=("${extra_ours[@]}")
      /usr/bin/time -f "%e" -a -o "$out/$tool.times" \
        "$repo/.venv/bin/$tool" newstest2017.ref.de "$@" $test -f text "${extra[@]}" > "$out/$tool.txt" 2>/dev/null
    done
  done
  if [[ $busy -gt 0 ]]; then  # torch-bleu again, beside $busy spinning processes
    local spinners=() i
    for i in $(seq "$busy"); do python3 -c "while True: pass" & spinners+=($!); done
    sleep 0.5
    for round in $(seq "$repeats"); do
      /usr/bin/time -f "%e" -a -o "$out/busy.times" \
        "$repo/.venv/bin/torch-bleu" newstest2017.ref.de "$@" $test -f text "${extra_ours[@]}" > /dev/null 2>&1
    done
    kill "${spinners[@]}"
    wait "${spinners[@]}" 2>/dev/null || true
  fi
  "$repo/.venv/bin/python" - "$out" "$systems_label" "$test" "$*" <<'PY'
import os, re, statistics, sys
folder, systems, test, arguments = sys.argv[1:]
options = re.sub(r"-i (sys\.\S+ ?)+|-j \d+", "", arguments).strip()  # systems: their own column
test = f"`{test}`" if test else "none"
seconds = {tool: statistics.median(map(float, open(f"{folder}/{tool}.times").read().split()))
           for tool in ("sacrebleu", "torch-bleu")}
ours, theirs = (re.sub(r"version:\S+", "version", open(f"{folder}/{tool}.txt").read())
                for tool in ("torch-bleu", "sacrebleu"))
busy = ""
if os.path.exists(f"{folder}/busy.times"):
    beside = statistics.median(map(float, open(f"{folder}/busy.times").read().split()))
    busy = f" {beside:.2f} s ({beside / seconds['torch-bleu']:.2f}x) |"
print(f"| {systems} | `{options}` | {test} | {seconds['sacrebleu']:.2f} s | {seconds['torch-bleu']:.2f} s "
      f"| {seconds['sacrebleu'] / seconds['torch-bleu']:.1f}x | {'identical' if ours == theirs else 'DIFFERENT'} |"
      + busy)
PY
  rm -f "$out"/*.times
}

# pip compiled sacrebleu's bytecode when it installed it; let Python write torch-bleu's (an editable
# install) too, and run each tool once untimed, so that neither pays for compiling or cold files
unset PYTHONDONTWRITEBYTECODE
for tool in sacrebleu torch-bleu; do
  "$repo/.venv/bin/$tool" newstest2017.ref.de -i $four_systems -m bleu chrf > /dev/null 2>&1
done

if [[ $busy -gt 0 ]]; then
  echo "| systems | options | test | sacrebleu | torch-bleu | speed-up | output | torch-bleu beside $busy busy |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
else
  echo "| systems | options | test | sacrebleu | torch-bleu | speed-up | output |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
fi
run_case 4 "" -i $four_systems -m bleu
for metric in "-m bleu" "-m chrf -cw 2"; do
  for test in "--paired-bs -pbsn 2000" "--paired-ar -parn 10000"; do
    run_case 16 "$test" -tok none -i $all_systems $metric -j "$jobs"
  done
done
run_case 16 "--paired-bs -pbsn 1000" -i $all_systems -m bleu chrf ter -j "$jobs"
