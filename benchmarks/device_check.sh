#!/usr/bin/env bash
# benchmarks/device_check.sh -- every GPU check and timing of issue 24 in ONE run (~9 min max).
#
# Run on a machine with an NVIDIA GPU (the workplace's H100/H200 device machine), from the
# repository root.  Steps, each under its own time limit so one hang cannot eat the slot:
#   0. install the carried wheels in .whl/ (numba-cuda 0.30.4 fails with the image's
#      numpy 2.5: numpy 2.4 travels as a wheel) into /tmp/site, first on PYTHONPATH
#   1. report the device and the versions found
#   2. benchmarks/gpu.py, one part at a time (--list-parts; MM matmul rows next to
#      torch.matmul and CuPy, W2/W3 next to PyTorch CUDA and CuPy, W1-GPU when gpu.py has
#      it, SEEDS: the seed tutorials with CUDA as the default device, fresh processes)
#   3. in parallel, the device checks and the replay:
#      - the CUDA simulator test scripts run on the real GPU (tests/test_cuda_sim.py,
#        test_cuda_kernels_sim.py, test_cuda_sim_nn.py, test_linalg_cuda_sim.py as scripts;
#        the tests that use tests/simulator_run.py through pytest with
#        EAGERAD_SIMULATOR_TESTS_ON_GPU=1, which keeps the simulator off)
#      - a selection of the CPU suite with EAGERAD_DEFAULT_DEVICE=cuda (tests/conftest.py;
#        tests marked cpu_only are skipped with their reason)
#   4. a summary table (the device tool's reply carries the last 12,000 characters)
# Timings run first, on a quiet GPU; the correctness steps share the GPU afterwards.
# Everything is also written to $OUT/device_check.log (and the pytest/benchmark logs to
# $OUT/*.log, at most 8 files) when $OUT is set.
#
# Through the device tool (one call; leave ~60 s spare for the machine's start):
#   run(command="bash benchmarks/device_check.sh", carry=[".whl"], timeout_s=600)
# DEVICE_CHECK_BUDGET (seconds, default 540) is the deadline every step's limit fits under.
# Variables: DEVICE_CHECK_REPLAY="tests/test_x.py ..." replaces the replay selection;
# DEVICE_CHECK_SIM_SCRIPTS / DEVICE_CHECK_SIM_PYTEST replace the device-check files;
# DEVICE_CHECK_SKIP="replay seeds ..." skips steps by name (install, gpu:<part>, sim, replay).
#
# Wheels to carry (run here, in the repository root, once; .whl/ must be git-ignored, e.g.
# `echo /.whl/ >> .git/info/exclude`):
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#     --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
#     --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64 \
#     --platform manylinux2014_x86_64 -d .whl numpy==2.4.6 numba-cuda==0.30.4
# (18.5 MB together; checked 2026-11-27.  numba-cuda's needs -- numba, cuda-bindings,
# cuda-core, cuda-pathfinder, packaging -- are on the device image.)
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUDGET=${DEVICE_CHECK_BUDGET:-540}
START=$SECONDS
LOGDIR=${OUT:-/tmp/device_check_out}
mkdir -p "$LOGDIR"
MAIN_LOG="$LOGDIR/device_check.log"
: > "$MAIN_LOG"
SUMMARY=()
SKIP=" ${DEVICE_CHECK_SKIP:-} "
export PYTHONUNBUFFERED=1 PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
PY=${PYTHON:-python3}

say() { echo "$@" | tee -a "$MAIN_LOG"; }
left() { echo $(( BUDGET - (SECONDS - START) )); }
limit() {   # limit WANTED RESERVE: WANTED seconds, or what is left before RESERVE seconds
  local l=$(( $(left) - $2 ))
  (( l < $1 )) && echo $(( l > 5 ? l : 5 )) || echo "$1"
}
step() {    # step NAME SECONDS command...: run with a time limit, log, record the outcome
  local name=$1 secs=$2 t0=$SECONDS rc
  shift 2
  if [[ "$SKIP" == *" $name "* ]]; then SUMMARY+=("$(printf '%-28s skipped' "$name")"); return; fi
  say ""
  say "===== $name (limit ${secs}s) ====="
  timeout -k 5 "$secs" "$@" 2>&1 | tee -a "$MAIN_LOG"
  rc=${PIPESTATUS[0]}
  local verdict=ok
  (( rc == 124 || rc == 137 )) && verdict="TIMED OUT" || { (( rc )) && verdict="FAILED rc=$rc"; }
  SUMMARY+=("$(printf '%-28s %-14s %4ds' "$name" "$verdict" $(( SECONDS - t0 )))")
}

# ------------------------------------------------------------------ 0. wheels
if [[ "$SKIP" != *" install "* ]] && ls .whl/*.whl >/dev/null 2>&1; then
  step install 90 $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH="/tmp/site:$PYTHONPATH"
fi

# ------------------------------------------------------------------ 1. versions
step versions 60 bash -c "nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; \
  $PY -c 'import sys, numpy, numba; print(sys.version.split()[0], \"numpy\", numpy.__version__, \"numba\", numba.__version__)
import importlib.metadata as m
for p in (\"numba-cuda\", \"cuda-core\", \"cuda-bindings\", \"cupy-cuda13x\", \"cupy-cuda12x\", \"torch\"):
    try: print(p, m.version(p))
    except Exception: print(p, \"absent\")
from numba import cuda; d = cuda.get_current_device(); print(\"numba.cuda device:\", getattr(d, \"name\", d))
import eagerad; print(\"eagerad cuda problem:\", eagerad.context.cuda_problem())'"

# ------------------------------------------------------------------ 2. timings
PARTS=$($PY benchmarks/gpu.py --list-parts 2>/dev/null || echo "w2w3 matmul seeds")
for part in $PARTS; do
  case $part in
    seeds) want=150 ;;
    *) want=120 ;;
  esac
  step "gpu:$part" "$(limit $want 150)" $PY benchmarks/gpu.py --only "$part"
done

# ------------------------------------------------------------------ 3. checks (parallel)
SIM_SCRIPTS=${DEVICE_CHECK_SIM_SCRIPTS-"tests/test_cuda_kernels_sim.py tests/test_cuda_sim.py \
tests/test_cuda_sim_nn.py tests/test_linalg_cuda_sim.py"}
SIM_PYTEST=${DEVICE_CHECK_SIM_PYTEST-$(grep -l "run_on_simulator" tests/test_*.py | tr '\n' ' ')}
REPLAY=${DEVICE_CHECK_REPLAY:-"tests/test_engine.py tests/test_grad_api.py tests/test_hooks.py \
tests/test_higher_order_paths.py tests/test_inplace.py tests/test_functional.py tests/test_activations.py \
tests/test_losses_normalization.py tests/test_loss_edges.py tests/test_nn.py tests/test_autograd_functional.py"}
CHECK_SECS=$(limit 400 10)
say ""
say "===== device checks and replay in parallel (limit ${CHECK_SECS}s each) ====="
TMP=$(mktemp -d)
pids=()
if [[ "$SKIP" != *" sim "* ]]; then
  for s in $SIM_SCRIPTS; do
    n=$(basename "$s" .py)
    ( t0=$SECONDS; timeout -k 5 "$CHECK_SECS" $PY "$s" > "$TMP/$n.out" 2>&1; echo "$? $(( SECONDS - t0 ))" > "$TMP/$n.rc" ) &
    pids+=($!)
  done
  if [[ -n "$SIM_PYTEST" ]]; then
    ( t0=$SECONDS; EAGERAD_SIMULATOR_TESTS_ON_GPU=1 timeout -k 5 "$CHECK_SECS" $PY -m pytest -q \
        -p no:cacheprovider -o addopts="" $SIM_PYTEST > "$TMP/sim_pytest.out" 2>&1
      echo "$? $(( SECONDS - t0 ))" > "$TMP/sim_pytest.rc" ) &
    pids+=($!)
  fi
fi
if [[ "$SKIP" != *" replay "* ]]; then
  ( t0=$SECONDS; EAGERAD_DEFAULT_DEVICE=cuda timeout -k 5 "$CHECK_SECS" $PY -m pytest -q -rs \
      -p no:cacheprovider -o addopts="" $REPLAY > "$TMP/replay.out" 2>&1
    echo "$? $(( SECONDS - t0 ))" > "$TMP/replay.rc" ) &
  pids+=($!)
fi
wait "${pids[@]}" 2>/dev/null
for f in "$TMP"/*.rc; do
  [[ -e "$f" ]] || continue
  n=$(basename "$f" .rc)
  read -r rc secs < "$f"
  out="$TMP/$n.out"
  say ""
  say "----- $n (rc=$rc, ${secs}s) -----"
  # each simulator script prints a verdict line; show the failures and the pytest tails
  if grep -q "RESULTS " "$out"; then
    grep "RESULTS " "$out" | $PY -c '
import json, sys
line = sys.stdin.read().split("RESULTS ", 1)[1]
v = json.loads(line)
bad = {k: t for k, t in v.items() if t != "ok"}
print(f"{len(v) - len(bad)}/{len(v)} checks ok")
for k, t in bad.items():
    print(f"FAILED {k}:\n{t[-1500:]}")
sys.exit(1 if bad else 0)' | tee -a "$MAIN_LOG"
    [[ ${PIPESTATUS[1]} == 0 ]] || rc=1
  else
    tail -n 40 "$out" | tee -a "$MAIN_LOG"
    grep -q -E "CUDASIM-NN-OK|LINALG-SIM ok" "$out" && rc=0
  fi
  cp "$out" "$LOGDIR/$n.log" 2>/dev/null
  verdict=ok
  [[ $rc == 124 || $rc == 137 ]] && verdict="TIMED OUT" || { [[ $rc != 0 ]] && verdict="FAILED rc=$rc"; }
  SUMMARY+=("$(printf '%-28s %-14s %4ds' "$n" "$verdict" "$secs")")
done
rm -rf "$TMP"

# ------------------------------------------------------------------ 4. summary
say ""
say "===== summary (${SECONDS}s in all) ====="
for line in "${SUMMARY[@]}"; do say "$line"; done
say ""
say "key figures:"
grep -E "^ *(256|512|1024|2048|4096) |^eagerad  |^PyTorch CUDA|^CuPy  |eagerad / PyTorch|W1|second process|first process|target|MM relative|passed|failed" \
  "$MAIN_LOG" | grep -v "^=====" | tail -n 40
