#!/usr/bin/env bash
# tests/slurm_injection.sh CCSIM — nothing an input says runs as code in a
# generated job script.
#   Hostile bytes (newline, both quotes, $(...), backtick, ';', '&', '|',
#   NUL, '%', spaces) go through every field that reaches `ccsim sweep
#   --slurm`: the sweep's name, an axis name, axis labels, the output
#   directory, the sweep file's own path, --partition, --mem and --time.
#   Each case must be either refused (exit 2, one line) or give a script that
#   (1) bash -n accepts, (2) keeps every #SBATCH line before the first
#   command, with --job-name, --array and --output present, and (3) run for
#   real -- submitted through an `sbatch` on PATH that runs the script with
#   bash for each array index, exactly as Slurm's tasks would -- creates no
#   canary file, runs its points, and lets --collect report them done.
#   Slurm itself is exercised by tests/slurm.sh; this test needs no daemon.
set -u
CCSIM=$(readlink -f "$1")
T=$(mktemp -d /tmp/ccsim-inj.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0 cases=0 refused=0 ran=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
CANARY="$T/PWNED"

# an `sbatch` that runs the job script's array tasks one after the other
mkdir -p "$T/bin"
cat >"$T/bin/sbatch" <<'SB'
#!/usr/bin/env bash
# sbatch --parsable SCRIPT: run every index of the script's --array with bash
script=${@: -1}
arr=$(sed -n 's/^#SBATCH --array=\([0-9,]*\).*/\1/p' "$script")
[ -n "$arr" ] || { echo "no --array directive" >&2; exit 1; }
for i in ${arr//,/ }; do
  SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_JOB_ID=1 bash "$script" >/dev/null 2>&1
done
echo 4242
SB
chmod +x "$T/bin/sbatch"

cat >"$T/base.json" <<'EOF'
{"name": "b", "workers": 2, "iterations": 1,
 "platform": {"generate": "crossbar", "bandwidth": "10Gbps", "latency": "1us"},
 "model": {"elements": 64}, "compressor": "none", "collective": "allreduce/ring"}
EOF

# check_script FILE: the generated script's shape
check_script() {
  local f=$1 first_cmd last_sbatch d
  bash -n "$f" 2>/dev/null || { fail "$2: bash -n refuses the script"; return 1; }
  first_cmd=$(grep -nvE '^(#|$)' "$f" | head -1 | cut -d: -f1)
  last_sbatch=$(grep -n '^#SBATCH' "$f" | tail -1 | cut -d: -f1)
  [ -n "$first_cmd" ] && [ "$last_sbatch" -lt "$first_cmd" ] || { fail "$2: an #SBATCH line after a command"; return 1; }
  for d in job-name array output; do
    grep -q "^#SBATCH --$d=" "$f" || { fail "$2: no --$d directive"; return 1; }
  done
  [ "$(grep -cvE '^(#|$)' "$f")" = 1 ] || { fail "$2: more than one command line"; return 1; }
  return 0
}

# try EXPECT NAME SWEEPFILE OUTDIR [sweep options...]: EXPECT "refuse" (exit
# 2 with one line), "ok" (accepted, and safe) or "any" (either)
try() {
  local expect=$1 label=$2 sf=$3 out=$4
  shift 4
  cases=$((cases + 1))
  rm -f "$CANARY"
  local err="$T/err" rc
  "$CCSIM" sweep "$sf" --slurm --print --out "$out" "$@" >"$T/script" 2>"$err"
  rc=$?
  if [ $rc = 2 ]; then
    [ "$expect" = ok ] && fail "$label: refused: $(cat "$err")"
    [ "$(wc -l <"$err")" = 1 ] || fail "$label: refused, but not with one line: $(cat "$err")"
    [ -e "$CANARY" ] && fail "$label: the canary was created"
    refused=$((refused + 1))
    return
  fi
  [ $rc = 0 ] || { fail "$label: --print exit $rc: $(head -2 "$err")"; return; }
  [ "$expect" = refuse ] && { fail "$label: accepted, expected exit 2"; return; }
  check_script "$T/script" "$label" || return
  # for real: submit through the bash-running sbatch, then collect
  PATH="$T/bin:$PATH" "$CCSIM" sweep "$sf" --slurm --quiet --out "$out" "$@" >"$T/jobid" 2>"$err"
  rc=$?
  [ $rc = 0 ] || { fail "$label: submit exit $rc: $(head -2 "$err")"; return; }
  check_script "$out/slurm/sweep.sbatch" "$label (submitted)" || return
  "$CCSIM" sweep --collect "$out" --quiet >/dev/null 2>"$err" || fail "$label: --collect: $(head -2 "$err")"
  [ -e "$CANARY" ] && fail "$label: the canary was created: injected code ran"
  local ndone
  ndone=$(grep -c ',done,' "$out/sweep.csv" 2>/dev/null)
  [ "${ndone:-0}" -ge 1 ] || fail "$label: no point done after the tasks ran"
  ran=$((ran + 1))
}

# the hostile strings, as JSON string bodies
HOSTILE=(
  'a\ntouch '"$CANARY"' #'
  "a\\\"; touch $CANARY; echo \\\""
  "a'; touch $CANARY; echo '"
  "a\$(touch $CANARY)"
  "a\`touch $CANARY\`"
  "a; touch $CANARY"
  "a & touch $CANARY | cat"
  "a%A%j\\u0001\\t"
  "a b  c"
)
i=0
for h in "${HOSTILE[@]}"; do
  i=$((i + 1))
  d="$T/c$i"
  mkdir -p "$d"
  cp "$T/base.json" "$d/"
  # the sweep's name
  printf '{"name": "%s", "base": "base.json",\n "axes": [{"path": "workers", "values": [2, 3]}]}\n' "$h" >"$d/name.json"
  case "$h" in *'\n'* | *'\u0001'*) e=refuse ;; *) e=ok ;; esac
  try $e "name #$i" "$d/name.json" "$d/out-name"
  # an axis name and two labels
  printf '{"name": "s", "base": "base.json", "axes": [{"name": "%s", "values": [\n' "$h" >"$d/axis.json"
  printf '  {"label": "%s", "set": {"workers": 2}}, {"label": "x%s", "set": {"workers": 3}}]}]}\n' "$h" "$h" >>"$d/axis.json"
  [ "$h" = "a b  c" ] && e=ok || e=refuse
  try $e "axis name #$i" "$d/axis.json" "$d/out-axis"
  printf '{"name": "s", "base": "base.json", "axes": [{"name": "m", "values": [\n' >"$d/label.json"
  printf '  {"label": "%s", "set": {"workers": 2}}, {"label": "x%s", "set": {"workers": 3}}]}]}\n' "$h" "$h" >>"$d/label.json"
  try ok "labels #$i" "$d/label.json" "$d/out-label"
  # a string value of a plain axis (its label is the value)
  printf '{"name": "s", "base": "base.json", "axes": [{"path": "description", "values": ["%s", "y%s"]}]}\n' "$h" "$h" >"$d/value.json"
  try ok "value label #$i" "$d/value.json" "$d/out-value"
done

# paths: the output directory and the sweep file's own directory
for raw in $'o\ntouch '"$CANARY" "o'\$(touch $CANARY)'" "o;touch $CANARY" 'o`id`' 'o%j' 'o space' 'o"q'; do
  d="$T/p$cases"
  mkdir -p "$d"
  cp "$T/base.json" "$d/"
  printf '{"name": "s", "base": "base.json", "axes": [{"path": "workers", "values": [2]}]}\n' >"$d/s.json"
  try any "out $(printf %q "$raw")" "$d/s.json" "$d/$raw"
  sd="$d/$raw-dir"
  mkdir -p "$sd"
  cp "$T/base.json" "$d/s.json" "$sd/"
  case "$raw" in *$'\n'*) e=refuse ;; *) e=ok ;; esac
  try $e "sweep file in $(printf %q "$raw")" "$sd/s.json" "$d/out-file"
done

# Slurm options straight from the command line
d="$T/opts"
mkdir -p "$d"
cp "$T/base.json" "$d/"
printf '{"name": "s", "base": "base.json", "axes": [{"path": "workers", "values": [2]}]}\n' >"$d/s.json"
for opt in --partition --mem --time; do
  for v in $'p\ntouch '"$CANARY" "p;touch $CANARY" "p\$(touch $CANARY)" 'p`id`' "p'x" 'p x'; do
    try refuse "$opt $(printf %q "$v")" "$d/s.json" "$d/out$opt" "$opt" "$v"
  done
done

# a NUL inside a JSON string is refused by the reader, never cut short
d="$T/nul"
mkdir -p "$d"
cp "$T/base.json" "$d/"
printf '{"name": "a\\u0000touch %s", "base": "base.json", "axes": [{"path": "workers", "values": [2]}]}\n' "$CANARY" >"$d/s.json"
cases=$((cases + 1))
"$CCSIM" sweep "$d/s.json" --slurm --print --out "$d/out" >/dev/null 2>"$T/err"
[ $? = 2 ] || fail "NUL in the name: not refused with exit 2"

# two labels that only differ in replaced characters would share a directory
d="$T/dup"
mkdir -p "$d"
cp "$T/base.json" "$d/"
printf '{"name": "s", "base": "base.json", "axes": [{"path": "description", "values": ["a/b", "a,b"]}]}\n' >"$d/s.json"
cases=$((cases + 1))
"$CCSIM" sweep "$d/s.json" --dry-run --out "$d/out" >/dev/null 2>"$T/err"
rc=$?
{ [ $rc = 2 ] && grep -q 'axes\[0\].values\[1\]' "$T/err"; } || fail "labels a/b and a,b: expected exit 2 naming axes[0].values[1], got $rc: $(cat "$T/err")"

echo "slurm injection: $cases cases ($refused refused, $ran run for real), $fails failed"
[ $fails = 0 ]
