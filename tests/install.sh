#!/usr/bin/env bash
# tests/install.sh BUILDDIR SRCDIR — `meson install` gives a ccsim that works
# without its source tree:
#   - installs into a temporary staging directory, then MOVES the installed
#     prefix elsewhere (the binary finds its data relative to itself);
#   - hides the source tree (and the build directory) behind empty tmpfs
#     mounts in a private mount namespace (unshare -m, needs root), and there
#     runs experiments that need a model profile and the digits dataset,
#     lists models and platforms, and finds the manual page;
#   - compiles and runs a small program against the installed libccomp via
#     `pkg-config --cflags --libs ccomp` from the MOVED prefix, with no
#     --define-variable (ccomp.pc is relative to itself), including
#     <ccomp/compressor.h> and <ccomp/rng.h> (and checks it needs no GSL);
#   - names a shipped platform by its name ("platform": "dgx1-4x8"); finds
#     the installed workloads, the plot scripts, and the files the --help
#     examples name (they point into the installation);
#   - without the data directory ccsim says so (exit 1 / 2), and CCSIM_DATA
#     points it at a moved data directory.
# Where a mount namespace cannot be made, it says why and exits 77 (skip).
set -u
B=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
if [ "$(id -u)" != 0 ]; then echo "install: not root: cannot hide the source tree (unshare -m); skipped"; exit 77; fi
if ! unshare -m --propagation private true 2>/dev/null; then
  echo "install: unshare -m fails here (no CAP_SYS_ADMIN?): cannot hide the source tree; skipped"; exit 77
fi
T=$(mktemp -d /tmp/ccsim-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
case "$T" in "$SRC"/*|"$B"/*) echo "install: temporary directory inside the source tree"; exit 1;; esac

meson install -C "$B" --destdir "$T/stage" --no-rebuild >"$T/install.log" 2>&1 ||
  { cat "$T/install.log"; echo "FAIL meson install"; exit 1; }
bin=$(find "$T/stage" -path '*/bin/ccsim' -type f | head -1)
[ -n "$bin" ] || { echo "FAIL no bin/ccsim installed"; exit 1; }
mv "$(dirname "$(dirname "$bin")")" "$T/prefix"
P=$T/prefix

cat >"$T/inner.sh" <<'INNER'
set -u
P=$1 T=$2 SRC=$3
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
[ -z "$(ls -A "$SRC")" ] && ok || bad "the source tree is still visible"
C=$P/bin/ccsim
cd "$T"

"$C" list models >list 2>err && grep -q '^resnet50' list && ok || bad "list models: $(cat err)"
"$C" list platforms >list 2>err && grep -q 'dgx1-4x8.xml' list && ok || bad "list platforms: $(cat err)"
"$C" list devices >list 2>err && grep -q '^cpu-measured-epyc-1t ' list && ok || bad "list devices: no measured device: $(cat err)"
man=$(find "$P" -name ccsim.1 | head -1)
[ -n "$man" ] && grep -q '^\.SS "ccsim sweep"' "$man" && ok || bad "no manual page with every command"
[ -f "$(find "$P" -path '*completions/ccsim' | head -1)" ] && ok || bad "no bash completion"
[ -f "$(find "$P" -path '*doc/ccsim/inputs.md' | head -1)" ] && ok || bad "no docs installed"

# a model profile, by name
cat >profile.json <<'J'
{"workers": 2, "iterations": 1, "model": {"profile": "resnet50", "sample": 4096},
 "device": "v100", "schedule": {"kind": "buckets"}, "output": {"dir": "out-profile"}}
J
"$C" run profile.json --quiet >out 2>err && ok || bad "run with a profile: $(cat err)"
grep -q '"elements": 25557032' out-profile/summary.json && ok || bad "resnet50 profile: wrong element count"
# the shipped dataset, by its default path
cat >train.json <<'J'
{"workers": 2, "iterations": 3, "gradients": {"source": "train"},
 "train": {"dataset": "digits", "model": {"kind": "softmax"}}, "output": {"dir": "out-train"}}
J
"$C" run train.json --quiet >out 2>err && ok || bad "run with the digits dataset: $(cat err)"
grep -q '"final_accuracy"' out-train/summary.json && ok || bad "no final_accuracy in the training run"
# a shipped collective program, by name (share/ccsim/collectives)
cat >prog.json <<'J'
{"workers": 3, "iterations": 1, "model": {"elements": 1000}, "compressor": "fp16",
 "collective": {"program": "rhd"}, "output": {"dir": "out-prog"}}
J
"$C" run prog.json --quiet >out 2>err && grep -q '"collective": "program:rhd"' out-prog/summary.json && ok ||
  bad "a shipped collective program by name: $(cat err)"
# ccsim report finds its installed script (the moved prefix's share/ccsim/python)
"$C" report out-train 2>err && grep -q 'id="plot-convergence"' out-train/report.html && ok ||
  bad "ccsim report from the moved prefix: $(cat err)"

# a shipped platform by its name, from the moved prefix
cat >named.json <<'J'
{"workers": 8, "iterations": 1, "platform": "dgx1-4x8", "model": {"elements": 4096}, "output": {"dir": "out-named"}}
J
"$C" validate named.json >out 2>err && grep -q '8 workers on 32 hosts' out && ok || bad "platform by name: $(cat out err)"
"$C" validate named.json --set platform=dgx1-4x9 >out 2>err
grep -q 'did you mean "dgx1-4x8"' err && ok || bad "misspelt platform name: $(cat err)"
# the workloads and the plot scripts are installed; the --help examples name installed files
W=$P/share/ccsim/workloads
"$C" validate "$W/quickstart.json" >out 2>err && ok || bad "installed quickstart: $(cat err)"
"$C" sweep "$W/cascade/sweep.json" --dry-run --out sw >out 2>err && ok || bad "installed cascade sweep: $(cat err)"
for s in plot_hops.py plot_sweep.py plot_timeline.py plot_convergence.py py; do
  [ -f "$P/share/ccsim/python/$s" ] && ok || bad "no installed $s"
done
if /usr/bin/python3 -c 'import matplotlib, pandas' 2>/dev/null; then
  "$P/share/ccsim/python/py" "$P/share/ccsim/python/plot_sweep.py" --help >out 2>err && ok || bad "installed plot_sweep.py: $(cat err)"
fi
for c in run validate sweep hosts; do
  f=$("$C" $c --help | sed -n '/^example:/,$p' | grep -oE '/[^ ]*\.(json|xml)' | head -1)
  case "$f" in "$P"/*) [ -f "$f" ] && ok || bad "ccsim $c --help names $f: not there";;
    *) bad "ccsim $c --help example is not an installed path: $("$C" $c --help | sed -n '/^example:/,$p')";; esac
done
"$C" --help | grep -q "ccsim run $W/quickstart.json" && ok || bad "ccsim --help example: $("$C" --help | tail -2)"

# libccomp through pkg-config: ccomp.pc finds the moved prefix by itself
pc=$(find "$P" -name ccomp.pc | head -1)
[ -n "$pc" ] && ok || bad "no ccomp.pc"
export PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --cflags --libs ccomp) && ok || bad "pkg-config ccomp"
inc=$(pkg-config --variable=includedir ccomp)
[ "$(cd "$inc" 2>/dev/null && pwd -P)" = "$(cd "$P/include" && pwd -P)" ] && [ -f "$inc/ccomp/compressor.h" ] && ok ||
  bad "ccomp.pc does not follow the moved prefix: includedir $inc, flags $flags"
case "$flags $(pkg-config --print-requires ccomp)" in *gsl*) bad "libccomp asks for GSL: $flags";; *) ok;; esac
cat >tiny.c <<'J'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <ccomp/compressor.h>
#include <ccomp/rng.h>
/* fp16 round trip of 1000 values: 2000 bytes, each value within half an ulp */
int main(void) {
  char err[CCOMP_ERRLEN];
  const ccomp_type *t = ccomp_find("fp16");
  ccomp_setup su = {.n = 1000, .workers = 1, .rank = 0, .seed = 1};
  ccomp *c = t ? ccomp_new(t, NULL, &su, err, sizeof err) : NULL;
  if (!c) return printf("no fp16: %s\n", t ? err : "not registered"), 1;
  float x[1000], y[1000];
  uint8_t buf[4096];
  for (int i = 0; i < 1000; i++) x[i] = (float)((ccr_u64(7, i) >> 11) * 0x1p-53 - 0.5);
  ccomp_call call = {.key = 1, .shared_key = 2};
  size_t nb = ccomp_encode(c, x, 1000, &call, buf);
  ccomp_decode(c, buf, nb, 1000, 1, &call, y);
  for (int i = 0; i < 1000; i++)
    if (fabsf(y[i] - x[i]) > fabsf(x[i]) * 0x1p-11f + 1e-7f) return printf("value %d off\n", i), 1;
  ccomp_free(c);
  printf("%zu bytes\n", nb);
  return nb == 2000 ? 0 : 1;
}
J
# a sanitizer build's libccomp needs the sanitizer runtimes at link time
san=""
nm "$(dirname "$pc")/../libccomp.a" 2>/dev/null | grep -q __asan && san="-fsanitize=address,undefined"
cc -o tiny tiny.c $san $flags 2>err && ok || bad "compile against libccomp: $(cat err)"
./tiny >out 2>&1 && grep -qx "2000 bytes" out && ok || bad "tiny program: $(cat out)"

# data moved away: a clear message, then CCSIM_DATA finds it
mv "$P/share/ccsim" "$T/data-moved"
"$C" list models >out 2>err; rc=$?
[ $rc -eq 1 ] && grep -q "no model profile directory" err && ok || bad "no data: list models exit $rc: $(cat err)"
"$C" validate profile.json >out 2>err; rc=$?
[ $rc -eq 2 ] && grep -q "model.profile" err && ok || bad "no data: validate exit $rc: $(cat err)"
CCSIM_DATA=$T/data-moved "$C" validate profile.json >out 2>err && ok || bad "CCSIM_DATA: $(cat err)"
CCSIM_DATA=$T/data-moved "$C" validate train.json >out 2>err && ok || bad "CCSIM_DATA dataset: $(cat err)"
echo "install: $pass passed, $fail failed"
[ $fail -eq 0 ]
INNER

hide="mount -t tmpfs tmpfs '$SRC'"
case "$B" in "$SRC"/*) ;; *) hide="$hide && mount -t tmpfs tmpfs '$B'";; esac
unshare -m --propagation private sh -c "$hide && bash '$T/inner.sh' '$P' '$T' '$SRC'"
