#!/usr/bin/env bash
# Train one small net per variant with the project's trainer and export each into
# checkpoints/pretrained/<variant>/ (model_card.json + model.safetensors + model.onnx), the place
# `abak-rl hint` and `abak-rl play` look when no --model is given.
#
#   scripts/train_pretrained.sh                      # all four variants, one after another
#   scripts/train_pretrained.sh standard abak        # only these
#   GAMES=50000 MINUTES=30 scripts/train_pretrained.sh standard
#
# Environment (defaults in brackets):
#   GAMES        self-play games per variant                      [20000]
#   MINUTES      wall-clock cap per training run, minutes          [15]
#   HIDDEN       hidden units of the net                           [80]
#   EVAL_GAMES   games per opponent in each run's final evaluation [1000]
#   SEED         training seed                                     [1]
#   THREADS      torch CPU threads                                 [2]
#   DEVICE       auto | cpu | cuda                                 [auto]
#   OUT          where the exports go                              [checkpoints/pretrained]
#   CKPT_DIR     where the training checkpoints go                 [checkpoints]
#   RUNS_DIR     where the TensorBoard logs go                     [runs]
#   ABAK_RL      the abak-rl command                               [.venv/bin/abak-rl, else abak-rl]
#   EXTRA        more Hydra overrides for every run, e.g. "train.lr=0.0005"
# The training runs themselves stay in $CKPT_DIR/pretrained-<variant>/ and $RUNS_DIR/ (resumable:
# `abak-rl train resume=checkpoints/pretrained-<variant>`); only the exports are meant to ship.
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES=${GAMES:-20000}
MINUTES=${MINUTES:-15}
HIDDEN=${HIDDEN:-80}
EVAL_GAMES=${EVAL_GAMES:-1000}
SEED=${SEED:-1}
THREADS=${THREADS:-2}
DEVICE=${DEVICE:-auto}
OUT=${OUT:-checkpoints/pretrained}
CKPT_DIR=${CKPT_DIR:-checkpoints}
RUNS_DIR=${RUNS_DIR:-runs}
EXTRA=${EXTRA:-}
if [ -z "${ABAK_RL:-}" ]; then
  if [ -x .venv/bin/abak-rl ]; then ABAK_RL=.venv/bin/abak-rl; else ABAK_RL=abak-rl; fi
fi

variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
  variants=(standard nackgammon acey_deucey abak)
fi
for v in "${variants[@]}"; do
  case "$v" in
    standard|nackgammon|acey_deucey|abak) ;;
    *) echo "train_pretrained.sh: unknown variant '$v' (standard, nackgammon, acey_deucey, abak)" >&2; exit 2 ;;
  esac
done

for v in "${variants[@]}"; do
  run="pretrained-$v"
  echo "== $v: training $GAMES games (at most $MINUTES min) -> $CKPT_DIR/$run/"
  # shellcheck disable=SC2086  # EXTRA is a list of overrides
  "$ABAK_RL" train "variant=$v" "run=$run" "seed=$SEED" "threads=$THREADS" "device=$DEVICE" \
      "model.hidden=$HIDDEN" "train.games=$GAMES" "train.max_minutes=$MINUTES" \
      "eval.every=0" "eval.final_games=$EVAL_GAMES" "progress=false" \
      "checkpoints_dir=$CKPT_DIR" "runs_dir=$RUNS_DIR" $EXTRA
  echo "== $v: exporting -> $OUT/$v/"
  rm -rf "${OUT:?}/$v"
  "$ABAK_RL" export "checkpoint=$CKPT_DIR/$run/latest.pt" "format=onnx,safetensors" "out=$OUT/$v"
  "$ABAK_RL" hint --model "$OUT/$v" --variant "$v" --dice 3 1 --top 3
done
echo "done: ${variants[*]} in $OUT/ (try: $ABAK_RL play --variant ${variants[0]})"
