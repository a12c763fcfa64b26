#!/usr/bin/env bash
# The shipped standard model, from zero, with one command (and the same command resumes it):
#   nohup scripts/train_standard_ensemble.sh > runs/std-ens.log 2>&1 &
# Two nets of the standard recipe (scripts/train_standard.sh: expert2 inputs, contact and race
# nets, the bear-off database, 1,000,000 games of TD(lambda) each), one with two hidden layers
# of 128 units (run std-l2) and one with three (run std-l3), trained at the same time, one per
# core; then scripts/combine_nets.py averages them into checkpoints/std-ens/latest.pt, the
# model checkpoints/pretrained/standard exports (docs/training.md, "Ensembles"). A stopped run
# resumes each member from its latest.pt; a finished member is not trained again.
# Environment: GAMES [1000000 per member], CHECKPOINTS_DIR [checkpoints], RUNS_DIR [runs]; extra
# arguments go to both members' `abak-rl train`.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
export CHECKPOINTS_DIR=${CHECKPOINTS_DIR:-checkpoints}
export RUNS_DIR=${RUNS_DIR:-runs}
mkdir -p "$RUNS_DIR"
pids=()
for layers in 2 3; do     # (the logs are appended to: a resumed run keeps what it printed before)
  RUN=std-l$layers LAYERS=$layers scripts/train_standard.sh "$@" >> "$RUNS_DIR/std-l$layers.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || status=$?
done
if [ "$status" -ne 0 ]; then
  echo "train_standard_ensemble.sh: a member's training failed (exit $status); see $RUNS_DIR/std-l2.log and $RUNS_DIR/std-l3.log" >&2
  exit "$status"
fi
mkdir -p "$CHECKPOINTS_DIR/std-ens"
exec "$PYTHON" scripts/combine_nets.py "$CHECKPOINTS_DIR/std-ens/latest.pt" \
  "$CHECKPOINTS_DIR/std-l2/latest.pt" "$CHECKPOINTS_DIR/std-l3/latest.pt"
