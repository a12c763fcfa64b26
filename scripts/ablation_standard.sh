#!/usr/bin/env bash
# The ablation table of docs/BENCHMARKS.md: what each part of the strength recipe buys, every row
# trained from zero at one budget of self-play games and measured with common dice against
# GNU Backgammon 0-ply (gnubg-nn) and pubeval.
#   scripts/ablation_standard.sh                 # GAMES=100000 EVAL=2000 by default
#   GAMES=50000 EVAL=2000 scripts/ablation_standard.sh raw features phases
# Rows: raw (td198, one net) -> features (expert, one net) -> phases (+ contact/race nets and the
# bear-off database) -> targets (+ 1-ply targets on 5% of each batch) -> search (the targets row
# played at 1-ply). Results: runs/ablation/<row>.json (one evaluate JSON per opponent) and a
# summary line per row in runs/ablation/summary.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-100000}
EVAL=${EVAL:-2000}
HIDDEN=${HIDDEN:-128}
TAG=${TAG:-g$GAMES}
ABAK_RL=${ABAK_RL:-.venv/bin/abak-rl}
OUT=runs/ablation
mkdir -p "$OUT"
ROWS=("$@")
[ ${#ROWS[@]} -eq 0 ] && ROWS=(raw features phases targets search)
common=(variant=standard model.hidden="$HIDDEN" train.games="$GAMES" train.max_minutes=null
        train.lr=0.01 train.lr_final=0.0005 train.batch_games=256 train.checkpoint_every=0 eval.every=0 eval.final_games=0
        progress=false threads=1 seed=0)
train_row() {   # name, overrides...
  local name=$1; shift
  local run="ablation-$name-$TAG"
  if [ ! -f "checkpoints/$run/latest.pt" ]; then
    "$ABAK_RL" train run="$run" "${common[@]}" "$@"
  fi
}
measure() {     # row name, agent spec
  local name=$1 spec=$2
  for opp in gnubg pubeval; do
    "$ABAK_RL" evaluate agent="$spec" opponent=$opp games="$EVAL" seed=7 out="$OUT/$name-$TAG-$opp.json"
  done
  python3 - "$name" "$TAG" "$OUT" <<'PY'
import json, sys
name, tag, out = sys.argv[1:]
row = {"row": name, "tag": tag}
for opp in ("gnubg", "pubeval"):
    r = json.load(open(f"{out}/{name}-{tag}-{opp}.json"))
    row[opp] = {k: r.get(k) for k in ("ppg", "ppg_ci95", "win_rate", "games")}
open(f"{out}/summary.jsonl", "a").write(json.dumps(row) + "\n")
print(json.dumps(row))
PY
}
for row in "${ROWS[@]}"; do
  case $row in
    raw)      train_row raw model.features=td198 model.phases=single model.bearoff=false
              measure raw "checkpoint:checkpoints/ablation-raw-$TAG/latest.pt" ;;
    features) train_row features model.features=expert model.phases=single model.bearoff=false
              measure features "checkpoint:checkpoints/ablation-features-$TAG/latest.pt" ;;
    phases)   train_row phases model.features=expert model.phases=contact_race model.bearoff=true
              measure phases "checkpoint:checkpoints/ablation-phases-$TAG/latest.pt" ;;
    targets)  train_row targets model.features=expert model.phases=contact_race model.bearoff=true \
                  train.ply1_fraction=0.05
              measure targets "checkpoint:checkpoints/ablation-targets-$TAG/latest.pt" ;;
    search)   measure search "checkpoint:checkpoints/ablation-targets-$TAG/latest.pt,ply=1" ;;
    *) echo "unknown row $row (raw features phases targets search)" >&2; exit 2 ;;
  esac
done
