#!/usr/bin/env bash
# A fresh student of the standard pair, from zero, with one command (the same command resumes it):
#   nohup scripts/train_standard_student.sh > runs/std-stu.log 2>&1 &
# 1. The teacher: the shipped pair's recipe (scripts/train_standard_ensemble.sh, about an hour),
#    unless $CHECKPOINTS_DIR/std-ens/latest.pt is there already.
# 2. A fresh student net: expert2 inputs, contact and race nets of two hidden layers of HIDDEN
#    units, the bear-off database (one game of TD from seed 7: in effect untrained).
# 3. Labels: LABELLERS processes side by side (one per core), each writing POSITIONS/LABELLERS
#    afterstates, every legal play of a random roll from positions of the teacher's own games,
#    each labelled with the teacher's 1-ply value (scripts/distill_ply1.py --all-plays
#    --label-only, seeds 401, 402, ...; chunks of 50,000 that a stopped run reuses). This is the
#    long part: about 770 labels a second per core here (104 minutes for the whole script, from zero).
# 4. The fit: all the labels, 8 epochs, Adam at lr 0.003 falling to 0, into
#    $CHECKPOINTS_DIR/std-stu/latest.pt (a full checkpoint: agent=checkpoint:..., export, hint).
# Self-play data only: GNU Backgammon is not used (the teacher's periodic evaluations aside).
# Environment: POSITIONS [4800000], LABELLERS [2], HIDDEN [256], CHECKPOINTS_DIR [checkpoints],
# RUNS_DIR [runs], GAMES [the teacher's games per member]; extra arguments go to the teacher's
# `abak-rl train`. docs/training.md ("A teacher and a student") and docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/wait_all.sh
PYTHON=${PYTHON:-.venv/bin/python}
ABAK_RL=${ABAK_RL:-.venv/bin/abak-rl}
export CHECKPOINTS_DIR=${CHECKPOINTS_DIR:-checkpoints}
export RUNS_DIR=${RUNS_DIR:-runs}
POSITIONS=${POSITIONS:-4800000}
LABELLERS=${LABELLERS:-2}
HIDDEN=${HIDDEN:-256}
case $POSITIONS$LABELLERS$HIDDEN in
  *[!0-9]*) echo "train_standard_student.sh: POSITIONS, LABELLERS and HIDDEN must be whole numbers" >&2; exit 2 ;;
esac
if [ "$LABELLERS" -lt 1 ] || [ "$POSITIONS" -lt "$LABELLERS" ] || [ "$HIDDEN" -lt 1 ]; then
  echo "train_standard_student.sh: need POSITIONS >= LABELLERS >= 1 and HIDDEN >= 1" >&2; exit 2
fi
TEACHER=$CHECKPOINTS_DIR/std-ens/latest.pt
OUT=$CHECKPOINTS_DIR/std-stu
mkdir -p "$RUNS_DIR" "$OUT"
[ -f "$TEACHER" ] || scripts/train_standard_ensemble.sh "$@"
if [ ! -f "$OUT/fresh/s/latest.pt" ]; then
  "$ABAK_RL" train run=s checkpoints_dir="$OUT/fresh" runs_dir="$RUNS_DIR/std-stu-fresh" \
    model.features=expert2 model.phases=contact_race model.bearoff=true model.hidden="$HIDDEN" model.layers=2 \
    train.games=1 train.max_minutes=null eval.every=0 eval.final_games=0 progress=false seed=7
fi
chunk=()
[ -z "${CHUNK:-}" ] || chunk=(--chunk "$CHUNK")     # (a smaller chunk than 50,000: for tests)
per=$(( (POSITIONS + LABELLERS - 1) / LABELLERS ))
pids=() data=()
for k in $(seq 1 "$LABELLERS"); do
  data+=(--data "$OUT/labels-$k")
  "$PYTHON" scripts/distill_ply1.py "$TEACHER" "$OUT/unused.pt" --all-plays --label-only --no-progress \
    --positions "$per" --seed $((400 + k)) --data "$OUT/labels-$k" "${chunk[@]}" >> "$RUNS_DIR/std-stu-labels-$k.log" 2>&1 &
  pids+=($!)
done
wait_all "train_standard_student.sh: a labeller" "$RUNS_DIR/std-stu-labels-*.log" "${pids[@]}"
exec "$PYTHON" scripts/distill_ply1.py "$TEACHER" "$OUT/latest.pt" "${data[@]}" --positions "$POSITIONS" \
  --all-plays --student "$OUT/fresh/s/latest.pt" --epochs 8 --lr 0.003 --seed 505 --no-progress "${chunk[@]}"
