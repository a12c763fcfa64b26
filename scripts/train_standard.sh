#!/usr/bin/env bash
# The shipped standard net, from zero, with one command (and the same command resumes it):
#   nohup scripts/train_standard.sh > runs/std-expert.log 2>&1 &
# Recipe (docs/training.md, "The shipped standard net"): the `expert2` inputs (standard; the
# shipped Nackgammon net used `expert`), one net for contact and one for the race (two hidden
# layers of 128 units each for standard, one for Nackgammon), the exact bear-off database for
# bear-off positions, TD(lambda) self-play, Adam with a linearly falling learning rate.
# Checkpoints: checkpoints/$RUN/ (latest.pt, best.pt by ppg against GNU Backgammon 0-ply);
# TensorBoard: runs/$RUN/. If checkpoints/$RUN/latest.pt exists the run is resumed exactly.
# Environment: VARIANT [standard; nackgammon gets the same recipe], RUN [std-l2, or
# nack-expert for nackgammon], GAMES [1000000], MINUTES [null = no limit: stop after GAMES],
# FEATURES [expert2 for standard, expert for nackgammon], LAYERS [hidden layers: 2 for standard,
# 1 for nackgammon], HIDDEN [units per hidden layer: 128], CHECKPOINTS_DIR [checkpoints], RUNS_DIR [runs]; the nets shipped before, kept as baselines: LAYERS=1 RUN=std-e2z is
# std_e2z, FEATURES=expert LAYERS=1 RUN=std-expert is std_expert;
# extra arguments are passed on to `abak-rl train` (e.g. threads=2).
set -euo pipefail
cd "$(dirname "$0")/.."
VARIANT=${VARIANT:-standard}
case $VARIANT in
  standard) RUN=${RUN:-std-l2}; FEATURES=${FEATURES:-expert2}; LAYERS=${LAYERS:-2} ;;
  nackgammon) RUN=${RUN:-nack-expert}; FEATURES=${FEATURES:-expert}; LAYERS=${LAYERS:-1} ;;
  *) echo "train_standard.sh: VARIANT must be standard or nackgammon, not $VARIANT" >&2; exit 2 ;;
esac
GAMES=${GAMES:-1000000}
HIDDEN=${HIDDEN:-128}
MINUTES=${MINUTES:-null}
ABAK_RL=${ABAK_RL:-.venv/bin/abak-rl}
CHECKPOINTS_DIR=${CHECKPOINTS_DIR:-checkpoints}
RUNS_DIR=${RUNS_DIR:-runs}
if [ -f "$CHECKPOINTS_DIR/$RUN/latest.pt" ]; then
  exec "$ABAK_RL" train resume="$CHECKPOINTS_DIR/$RUN" checkpoints_dir="$CHECKPOINTS_DIR" runs_dir="$RUNS_DIR" \
    train.games="$GAMES" train.max_minutes="$MINUTES" "$@"
fi
exec "$ABAK_RL" train run="$RUN" variant="$VARIANT" checkpoints_dir="$CHECKPOINTS_DIR" runs_dir="$RUNS_DIR" \
  model.features="$FEATURES" model.phases=contact_race model.bearoff=true model.hidden="$HIDDEN" model.layers="$LAYERS" \
  train.games="$GAMES" train.max_minutes="$MINUTES" \
  train.lambda=0.7 train.lr=0.01 train.lr_final=0.0005 train.lr_schedule=linear \
  train.batch_games=256 train.batch_states=256 train.checkpoint_every=25000 \
  eval.every=50000 eval.games=1000 eval.final_games=2000 \
  "eval.opponents=[pubeval,gnubg]" eval.best_by=gnubg \
  progress=false threads=1 seed=0 "$@"
