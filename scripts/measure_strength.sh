#!/usr/bin/env bash
# The strength figures of docs/BENCHMARKS.md for one net: cubeless money games with common dice
# (each dice sequence played from both seats) against GNU Backgammon 0-ply (gnubg-nn) and
# pubeval, at 0-ply and 1-ply.
#   scripts/measure_strength.sh checkpoints/pretrained/standard            # 10,000 games each
#   GAMES=2000 PLY1_GAMES=1000 scripts/measure_strength.sh checkpoints/std-expert/latest.pt
# A folder with model_card.json is read as an export (torch-free), anything else as a checkpoint.
# Results: runs/strength/<name>-<opponent>-ply<k>.json (the `abak-rl evaluate` JSON).
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${1:?usage: scripts/measure_strength.sh MODEL}
GAMES=${GAMES:-10000}
PLY1_GAMES=${PLY1_GAMES:-$GAMES}
SEED=${SEED:-20261201}
OPPONENTS=${OPPONENTS:-gnubg pubeval}
ABAK_RL=${ABAK_RL:-.venv/bin/abak-rl}
if [ -f "$MODEL/model_card.json" ]; then kind=export; else kind=checkpoint; fi
name=${NAME:-$(basename "$(dirname "$MODEL")")-$(basename "$MODEL" .pt)}
[ "$kind" = export ] && name=${NAME:-$(basename "$MODEL")}
mkdir -p runs/strength
for ply in 0 1; do
  n=$GAMES; [ "$ply" = 1 ] && n=$PLY1_GAMES
  [ "$n" = 0 ] && continue
  for opp in $OPPONENTS; do
    "$ABAK_RL" evaluate agent="$kind:$MODEL,ply=$ply" opponent="$opp" games="$n" seed="$SEED" \
      out="runs/strength/$name-$opp-ply$ply.json"
  done
done
