#!/usr/bin/env bash
# What the Abak knowledge inputs buy: the same short recipe from zero with the earlier encoding
# (abak_stack, one net) and with abak_expert (contact/race nets), then each against class-blind
# pubeval with the same dice.
#   GAMES=50000 EVAL=2000 scripts/ablation_abak.sh
# Results: runs/ablation_abak/<row>.json; checkpoints in checkpoints/ablation-abak-<row>-g<GAMES>/.
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-50000}
EVAL=${EVAL:-2000}
ABAK_RL=${ABAK_RL:-.venv/bin/abak-rl}
mkdir -p runs/ablation_abak
for row in stack expert; do
  case $row in
    stack) model="model.features=abak_stack model.phases=single" ;;
    expert) model="model.features=abak_expert model.phases=contact_race" ;;
  esac
  run="ablation-abak-$row-g$GAMES"
  if [ ! -f "checkpoints/$run/latest.pt" ]; then
    # shellcheck disable=SC2086
    "$ABAK_RL" train run="$run" variant=abak $model model.hidden=80 train.games="$GAMES" \
      train.max_minutes=null train.lr=0.01 train.lr_final=0.0005 train.batch_games=512 \
      eval.every=0 eval.final_games=0 progress=false threads=1 seed=0
  fi
  "$ABAK_RL" evaluate agent="checkpoint:checkpoints/$run/latest.pt" opponent=pubeval variant=abak \
    games="$EVAL" seed=777 out="runs/ablation_abak/$row.json"
done
