#!/usr/bin/env bash
# What 1-ply targets buy on top of TD(lambda): fork a trained run twice at the same checkpoint,
# continue both for the same number of games at the same constant learning rate, one with pure
# TD and one with train.ply1_fraction of every batch trained toward the net's 1-ply value, then
# play each against GNU Backgammon 0-ply with common dice and the two against each other.
#   scripts/ab_ply1_targets.sh checkpoints/std-expert/latest.pt
# Environment: GAMES [100000 more games], FRACTION [0.05], LR [0.0005], EVAL [4000], TAG [ab].
# Results: runs/ab_ply1/<tag>-{td,ply1}-gnubg.json, <tag>-ply1-vs-td.json.
set -euo pipefail
cd "$(dirname "$0")/.."
FROM=${1:?usage: scripts/ab_ply1_targets.sh CHECKPOINT}
GAMES=${GAMES:-100000}
FRACTION=${FRACTION:-0.05}
LR=${LR:-0.0005}
EVAL=${EVAL:-4000}
TAG=${TAG:-ab}
ABAK_RL=${ABAK_RL:-.venv/bin/abak-rl}
start=$(.venv/bin/python -c "import torch,sys; print(torch.load(sys.argv[1], weights_only=True)['counters']['games'])" "$FROM")
total=$((start + GAMES))
mkdir -p runs/ab_ply1
for arm in td ply1; do
  frac=0; [ "$arm" = ply1 ] && frac=$FRACTION
  run="$TAG-$arm"
  if [ ! -f "checkpoints/$run/latest.pt" ]; then
    "$ABAK_RL" train resume="$FROM" run="$run" train.games="$total" train.max_minutes=null \
      train.lr="$LR" train.lr_final="$LR" train.ply1_fraction="$frac" eval.every=0 eval.final_games=0
  fi
  "$ABAK_RL" evaluate agent="checkpoint:checkpoints/$run/latest.pt" opponent=gnubg games="$EVAL" \
    seed=424242 out="runs/ab_ply1/$TAG-$arm-gnubg.json"
done
"$ABAK_RL" evaluate agent="checkpoint:checkpoints/$TAG-ply1/latest.pt" \
  opponent="checkpoint:checkpoints/$TAG-td/latest.pt" games="$EVAL" seed=515151 \
  out="runs/ab_ply1/$TAG-ply1-vs-td.json"
