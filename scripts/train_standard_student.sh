#!/usr/bin/env bash
# The shipped standard net from zero, with one command (the same command resumes it): a fresh
# student of the standard pair, then fine-tuned on its own 2-ply values.
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
#    Skipped when that file is newer than every label chunk (a rerun after a finished fit).
# 5. A 2-ply round on top (PLY2_POSITIONS=0 skips it): a 1 x 32 screen fitted to the student's
#    0-ply values (SCREEN_POSITIONS of them), then LABELLERS processes labelling the student's
#    top 5 plays of each roll (those within TOP_MARGIN of the best by its 0-ply equity, when
#    set) with its own 2-ply values (bf16, replies picked at 0-ply, the full
#    net valuing the screen's best SCREEN_K = 6 plays that lie within SCREEN_MARGIN = 0.2 of the
#    screen's best; seeds 451, 452, ...; chunks of 2,500), then the student fine-tuned on them,
#    8 epochs at lr 0.001, into $CHECKPOINTS_DIR/std-stu-ft2/latest.pt: the shipped standard net.
#    Timings of the round on two cores: docs/BENCHMARKS.md ("The shipped standard model").
#    Stopped, it resumes from the
#    chunks; the fine-tune (a minute) is redone. A refit student (new 1-ply labels) discards the
#    old round's screen and 2-ply labels: they were the old student's.
# Self-play data only: GNU Backgammon is not used (the teacher's periodic evaluations aside).
# Environment: POSITIONS [4800000], LABELLERS [2], HIDDEN [256], PLY2_POSITIONS [460000],
# SCREEN_POSITIONS [1000000], SCREEN_K [6], SCREEN_MARGIN [0.2], TOP_MARGIN [none], CHECKPOINTS_DIR [checkpoints], RUNS_DIR [runs], GAMES [the
# teacher's games per member]; extra arguments go to the teacher's `abak-rl train`.
# docs/training.md ("A teacher and a student", "Deeper labels") and docs/BENCHMARKS.md.
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
PLY2_POSITIONS=${PLY2_POSITIONS:-460000}
SCREEN_POSITIONS=${SCREEN_POSITIONS:-1000000}
SCREEN_K=${SCREEN_K:-6}
SCREEN_MARGIN=${SCREEN_MARGIN:-0.2}
TOP_MARGIN=${TOP_MARGIN:-}
for n in POSITIONS LABELLERS HIDDEN PLY2_POSITIONS SCREEN_POSITIONS SCREEN_K; do
  case ${!n} in
    ''|*[!0-9]*) echo "train_standard_student.sh: $n must be a whole number, not '${!n}'" >&2; exit 2 ;;
  esac
  printf -v "$n" '%d' "$((10#${!n}))"      # 08 is eight (bash arithmetic would read it as octal)
done
case $SCREEN_MARGIN in
  ''|*[!0-9.]*|*.*.*|.) echo "train_standard_student.sh: SCREEN_MARGIN must be a number >= 0, not '$SCREEN_MARGIN'" >&2; exit 2 ;;
esac
top_margin=()
if [ -n "$TOP_MARGIN" ]; then
  case $TOP_MARGIN in
    *[!0-9.]*|*.*.*|.) echo "train_standard_student.sh: TOP_MARGIN must be a number >= 0, not '$TOP_MARGIN'" >&2; exit 2 ;;
  esac
  top_margin=(--top-margin "$TOP_MARGIN")
fi
if [ "$SCREEN_K" -lt 1 ]; then
  echo "train_standard_student.sh: SCREEN_K must be at least 1" >&2; exit 2
fi
if [ "$LABELLERS" -lt 1 ] || [ "$POSITIONS" -lt "$LABELLERS" ] || [ "$HIDDEN" -lt 1 ]; then
  echo "train_standard_student.sh: need POSITIONS >= LABELLERS >= 1 and HIDDEN >= 1" >&2; exit 2
fi
if [ "$PLY2_POSITIONS" -gt 0 ] && { [ "$PLY2_POSITIONS" -lt "$LABELLERS" ] || [ "$SCREEN_POSITIONS" -lt 1 ]; }; then
  echo "train_standard_student.sh: need PLY2_POSITIONS >= LABELLERS and SCREEN_POSITIONS >= 1 for a 2-ply round" >&2; exit 2
fi
TEACHER=$CHECKPOINTS_DIR/std-ens/latest.pt
OUT=$CHECKPOINTS_DIR/std-stu
mkdir -p "$RUNS_DIR" "$OUT"
[ -f "$TEACHER" ] || scripts/train_standard_ensemble.sh "$@"
# A fresh net of expert2 inputs, contact and race nets and the bear-off database (one game of TD:
# in effect untrained), unless FOLDER/s/latest.pt is there.   fresh_net FOLDER RUNS HIDDEN LAYERS SEED
fresh_net() {
  [ -f "$1/s/latest.pt" ] || "$ABAK_RL" train run=s checkpoints_dir="$1" runs_dir="$2" \
    model.features=expert2 model.phases=contact_race model.bearoff=true model.hidden="$3" model.layers="$4" \
    train.games=1 train.max_minutes=null eval.every=0 eval.final_games=0 progress=false seed="$5"
}
# LABELLERS labellers side by side (one per core), labeller k writing its share of TOTAL labels of
# NET into FOLDER-k with seed SEED0 + k (log LOG-k.log); leaves the fit's --data arguments in `data`.
#   label_on_each_core NET FOLDER SEED0 TOTAL LOG WHAT distill_ply1-options...
label_on_each_core() {
  local net=$1 folder=$2 seed0=$3 total=$4 log=$5 what=$6 k per pids=()
  shift 6
  per=$(( (total + LABELLERS - 1) / LABELLERS ))
  data=()
  for k in $(seq 1 "$LABELLERS"); do
    data+=(--data "$folder-$k")
    "$PYTHON" scripts/distill_ply1.py "$net" "$OUT/unused.pt" "$@" --label-only --no-progress \
      --positions "$per" --seed $((seed0 + k)) --data "$folder-$k" >> "$log-$k.log" 2>&1 &
    pids+=($!)
  done
  wait_all "train_standard_student.sh: $what" "$log-*.log" "${pids[@]}"
}
fresh_net "$OUT/fresh" "$RUNS_DIR/std-stu-fresh" "$HIDDEN" 2 7
chunk=()
[ -z "${CHUNK:-}" ] || chunk=(--chunk "$CHUNK")     # (a smaller chunk than 50,000: for tests)
label_on_each_core "$TEACHER" "$OUT/labels" 400 "$POSITIONS" "$RUNS_DIR/std-stu-labels" "a labeller" --all-plays "${chunk[@]}"
if [ ! -f "$OUT/latest.pt" ] || [ -n "$(find "$OUT"/labels-* -name 'chunk*.npz' -newer "$OUT/latest.pt" | head -1)" ]; then
  rm -rf "$OUT"/ply2-* "$OUT/screen32.pt" "$OUT/screen"     # the old student's round
  "$PYTHON" scripts/distill_ply1.py "$TEACHER" "$OUT/latest.pt" "${data[@]}" --positions "$POSITIONS" \
    --all-plays --student "$OUT/fresh/s/latest.pt" --epochs 8 --lr 0.003 --seed 505 --no-progress "${chunk[@]}"
fi
[ "$PLY2_POSITIONS" -gt 0 ] || exit 0

# 5. The 2-ply round: the student's screen, its own 2-ply labels, the fine-tune.
STUDENT=$OUT/latest.pt
FT2=$CHECKPOINTS_DIR/std-stu-ft2
SCREEN=$OUT/screen32.pt
mkdir -p "$FT2"
if [ ! -f "$SCREEN" ]; then
  fresh_net "$OUT/screen" "$RUNS_DIR/std-stu-screen" 32 1 8
  "$PYTHON" scripts/distill_ply1.py "$STUDENT" "$SCREEN" --ply 0 --all-plays --student "$OUT/screen/s/latest.pt" \
    --positions "$SCREEN_POSITIONS" --epochs 4 --lr 0.003 --seed 601 --data "$OUT/screen/ply0" --no-progress \
    "${chunk[@]}" >> "$RUNS_DIR/std-stu-screen.log" 2>&1 \
    || { echo "train_standard_student.sh: the screen's fit failed; see $RUNS_DIR/std-stu-screen.log" >&2; exit 1; }
fi
search=(--ply 2 --all-plays --top 5 "${top_margin[@]}" --precision bf16 --reply-k 1 --screen "$SCREEN" --screen-k "$SCREEN_K"
        --screen-margin "$SCREEN_MARGIN" --chunk "${CHUNK:-2500}")
label_on_each_core "$STUDENT" "$OUT/ply2" 450 "$PLY2_POSITIONS" "$RUNS_DIR/std-stu-ply2" "a 2-ply labeller" "${search[@]}"
exec "$PYTHON" scripts/distill_ply1.py "$STUDENT" "$FT2/latest.pt" "${data[@]}" "${search[@]}" \
  --positions "$PLY2_POSITIONS" --epochs 8 --lr 0.001 --seed 509 --no-progress
