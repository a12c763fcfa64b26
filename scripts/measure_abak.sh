#!/usr/bin/env bash
# The Abak strength figures of docs/BENCHMARKS.md for one net, at 0-ply, cubeless money games
# with common dice (each dice sequence played from both seats): class-blind pubeval and abak60
# (the earlier shipped net) over 10,000 games each, the class-aware heuristic over 2,000.
#   scripts/measure_abak.sh checkpoints/abak-expert/latest.pt
#   GAMES=2000 scripts/measure_abak.sh checkpoints/pretrained/abak
# A folder with model_card.json is read as an export (torch-free), anything else as a checkpoint.
# Results: runs/abak_strength/<name>-<opponent>.json (the `abak-rl evaluate` JSON).
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${1:?usage: scripts/measure_abak.sh MODEL}
GAMES=${GAMES:-10000}
HEURISTIC_GAMES=${HEURISTIC_GAMES:-2000}
SEED=${SEED:-20261202}
OPPONENTS=${OPPONENTS:-pubeval heuristic abak60}
ABAK_RL=${ABAK_RL:-.venv/bin/abak-rl}
if [ -f "$MODEL/model_card.json" ]; then kind=export; else kind=checkpoint; fi
name=${NAME:-$(basename "$(dirname "$MODEL")")-$(basename "$MODEL" .pt)}
[ "$kind" = export ] && name=${NAME:-$(basename "$MODEL")}
mkdir -p runs/abak_strength
for opp in $OPPONENTS; do
  n=$GAMES; [ "$opp" = heuristic ] && n=$HEURISTIC_GAMES
  "$ABAK_RL" evaluate agent="$kind:$MODEL" opponent="$opp" variant=abak games="$n" seed="$SEED" \
    out="runs/abak_strength/$name-$opp.json"
done
