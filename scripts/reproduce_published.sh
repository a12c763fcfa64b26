#!/usr/bin/env bash
# Reproduce the published reference figures and the heuristic bot's, 10,000 games each
# (5,000 dice sequences, each played from both seats). Results: one JSON per match in $OUT.
#   pubeval vs random      published: about +2.5 ppg, 99.6-99.8% wins
#   gnubg 0-ply vs pubeval published: about +0.63 ppg, about 71% wins
# Usage: scripts/reproduce_published.sh [OUT_DIR] [GAMES] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-benchmarks_out}
GAMES=${2:-10000}
SEED=${3:-0}
BIN=${ABAK_RL:-.venv/bin/abak-rl}
mkdir -p "$OUT"
run() { "$BIN" evaluate agent="$1" opponent="$2" games="$GAMES" seed="$SEED" variant="${3:-standard}" \
          out="$OUT/$1_vs_$2${3:+_$3}.json"; }
run pubeval random
run gnubg pubeval
run heuristic random
run heuristic pubeval
run gnubg heuristic
