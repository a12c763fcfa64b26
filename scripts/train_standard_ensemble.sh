#!/usr/bin/env bash
# The shipped standard model, from zero, with one command (and the same command resumes it):
#   nohup scripts/train_standard_ensemble.sh > runs/std-ens.log 2>&1 &
# Two nets of the standard recipe (scripts/train_standard.sh: expert2 inputs, contact and race
# nets of two hidden layers of 128 units, the bear-off database, 1,000,000 games of TD(lambda)
# each), one trained on the squared TD error (run std-l2, train.loss=mse) and one on each
# output's cross-entropy (run std-l2b, train.loss=bce), at the same time, one per core; then
# scripts/combine_nets.py averages them into checkpoints/std-ens/latest.pt, the model
# checkpoints/pretrained/standard exports (docs/training.md, "Ensembles"). A stopped run
# resumes each member from its latest.pt; a finished member is not trained again.
# Environment: GAMES [1000000 per member], CHECKPOINTS_DIR [checkpoints], RUNS_DIR [runs]; extra
# arguments go to both members' `abak-rl train`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wait_all.sh
PYTHON=${PYTHON:-.venv/bin/python}
export CHECKPOINTS_DIR=${CHECKPOINTS_DIR:-checkpoints}
export RUNS_DIR=${RUNS_DIR:-runs}
mkdir -p "$RUNS_DIR"
pids=()
for member in std-l2:mse std-l2b:bce; do   # (the logs are appended to: a resumed run keeps what it printed before)
  run=${member%%:*}
  RUN=$run LAYERS=2 scripts/train_standard.sh train.loss="${member#*:}" "$@" >> "$RUNS_DIR/$run.log" 2>&1 &
  pids+=($!)
done
wait_all "train_standard_ensemble.sh: a member's training" "$RUNS_DIR/std-l2.log and $RUNS_DIR/std-l2b.log" "${pids[@]}"
mkdir -p "$CHECKPOINTS_DIR/std-ens"
exec "$PYTHON" scripts/combine_nets.py "$CHECKPOINTS_DIR/std-ens/latest.pt" \
  "$CHECKPOINTS_DIR/std-l2/latest.pt" "$CHECKPOINTS_DIR/std-l2b/latest.pt"
