#!/usr/bin/env bash
# The 60-minute standard-variant run reported in docs/benchmarks/training.md.
#   nohup scripts/train_std60.sh > runs/std60.log 2>&1 &
# Checkpoints: checkpoints/std60/ (latest.pt, best.pt by ppg against pubeval, games_<n>.pt);
# TensorBoard: runs/std60/. Extra arguments are passed on (e.g. threads=2).
# The reported run finished these 300,000 games in 32 minutes and was then continued, the same
# run, for the rest of the hour at a low learning rate:
#   .venv/bin/abak-rl train resume=checkpoints/std60 train.games=600000 train.max_minutes=25 \
#       train.lr=0.0005 train.lr_final=0.0001
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/abak-rl train run=std60 variant=standard \
  train.games=300000 train.max_minutes=60 \
  train.lr=0.01 train.lr_final=0.0005 train.lr_schedule=linear train.batch_games=256 \
  train.checkpoint_every=20000 \
  eval.every=10000 eval.games=1000 eval.final_games=4000 \
  progress=false threads=1 "$@"
