#!/usr/bin/env bash
# tests/measure_links_script.sh SRCDIR — scripts/measure_links.py where there
# is no GPU: it says why, writes nothing and exits 0 (1 with --require-gpu),
# both without torch and with a torch that sees no CUDA device (a stub).
set -u
SRC=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
run() { # EXPECTED-RC EXPECTED-TEXT ARGS...
  local rc=$1 want=$2
  shift 2
  (cd "$T" && env "$@" >"$T/out" 2>&1)
  local got=$?
  if [ "$got" -ne "$rc" ] || ! grep -qF -- "$want" "$T/out" || ls "$T"/*.json >/dev/null 2>&1; then
    echo "FAIL: $* -> exit $got (wanted $rc), output: $(cat "$T/out")"
    fail=1
  fi
}
mkdir -p "$T/none/torch" "$T/stub/torch"
# a torch that cannot be imported, and one with no CUDA device
printf 'raise ImportError("no torch here")\n' >"$T/none/torch/__init__.py"
printf '__version__ = "0-stub"\nclass cuda:\n    @staticmethod\n    def is_available(): return False\n    @staticmethod\n    def device_count(): return 0\n' >"$T/stub/torch/__init__.py"
S="$SRC/scripts/measure_links.py"
run 0 "no GPU here (this Python has no torch): nothing measured, no file written" PYTHONPATH="$T/none" python3 "$S" --out "$T/x.json"
run 1 "no GPU here (this Python has no torch)" PYTHONPATH="$T/none" python3 "$S" --out "$T/x.json" --require-gpu
run 0 "no GPU here (torch 0-stub sees no CUDA device): nothing measured, no file written" PYTHONPATH="$T/stub" python3 "$S" --out "$T/x.json"
run 1 "torch 0-stub sees no CUDA device" PYTHONPATH="$T/stub" python3 "$S" --out "$T/x.json" --require-gpu
[ "$fail" -eq 0 ] && echo "measure_links_script: ok"
exit $fail
