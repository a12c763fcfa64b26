#!/usr/bin/env bash
# The shipped Abak Evolution net, from zero, with one command (the same command resumes it):
#   nohup scripts/train_abak.sh > runs/abak-expert.log 2>&1 &
# Recipe (docs/training.md, "The shipped Abak net"): the `abak_expert` inputs (abak_stack's
# column and class units + Abak knowledge, evaluated from packed rows), one net for contact and
# one for the race (80 hidden units each), TD(lambda) self-play of 512 games in lockstep, Adam
# with a linearly falling learning rate. No bear-off database: Abak bear-offs are not the
# classic one (Wounded dice, stacks, the General), so the race net learns them.
# Checkpoints: checkpoints/$RUN/ (latest.pt; best.pt by ppg against pubeval); TensorBoard:
# runs/$RUN/. If checkpoints/$RUN/latest.pt exists the run is resumed exactly.
# Environment: RUN [abak-expert], GAMES [300000], MINUTES [null = stop after GAMES];
# extra arguments are passed on to `abak-rl train`.
set -euo pipefail
cd "$(dirname "$0")/.."
RUN=${RUN:-abak-expert}
GAMES=${GAMES:-300000}
MINUTES=${MINUTES:-null}
ABAK_RL=${ABAK_RL:-.venv/bin/abak-rl}
if [ -f "checkpoints/$RUN/latest.pt" ]; then
  exec "$ABAK_RL" train resume="checkpoints/$RUN" train.games="$GAMES" train.max_minutes="$MINUTES" "$@"
fi
exec "$ABAK_RL" train run="$RUN" variant=abak \
  model.features=abak_expert model.phases=contact_race model.hidden=80 \
  train.games="$GAMES" train.max_minutes="$MINUTES" \
  train.lambda=0.7 train.lr=0.01 train.lr_final=0.0005 train.lr_schedule=linear \
  train.batch_games=512 train.batch_states=256 train.checkpoint_every=25000 \
  eval.every=50000 eval.games=500 eval.final_games=0 \
  "eval.opponents=[pubeval,heuristic]" eval.best_by=pubeval \
  progress=false threads=1 seed=0 "$@"
