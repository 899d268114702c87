#!/usr/bin/env bash
# tests/platform_checks.sh CCSIM SRCDIR — bad platforms and SimGrid flags are
# refused before SimGrid can abort the process (docs/platform-checks.md):
# exit 2 and one line naming the file and the element, through validate, run
# and hosts; never a signal.
set -u
CCSIM=$(realpath "$1")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
pass=0
fail=0
# expect2 NAME WANT COMMAND...
expect2() {
  local name=$1 want=$2
  shift 2
  timeout 120 "$@" >out 2>err
  local rc=$? lines
  lines=$(wc -l <err)
  if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" err; then pass=$((pass + 1)); else
    fail=$((fail + 1))
    echo "FAIL $name: exit $rc, $lines lines, wanted \"$want\" in: $(head -c 600 err)" >&2
  fi
}
head='<?xml version="1.0"?><!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">'
# plat NAME BODY: a two-host Full zone around BODY
plat() { printf '%s\n<platform version="4.1">\n<zone id="z" routing="Full">\n%s\n</zone>\n</platform>\n' "$head" "$2" >"$1.xml"; }
hosts='<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>'
route='<route src="a" dst="b"><link_ctn id="l"/></route>'
plat good "$hosts<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>$route"
printf '{"workers": 2, "model": {"elements": 64}, "iterations": 1, "platform": "%s"}\n' PLAT >tpl
exp() { sed "s/PLAT/$1.xml/" tpl >"$1.json"; }
for v in validate run; do
  # validate takes no --out; a refused run must write nothing into o
  OUT=(); [ $v = run ] && OUT=(--out o --quiet)
  exp good
  "$CCSIM" $v good.json "${OUT[@]/#o/o-good}" >/dev/null 2>err && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL good $v: $(cat err)" >&2; }
  plat bw0 "$hosts<link id=\"l\" bandwidth=\"0GBps\" latency=\"1us\"/>$route"; exp bw0
  expect2 "bw0-$v" 'bw0.xml:4: <link id="l">: bandwidth "0GBps" must be a finite number > 0' "$CCSIM" $v bw0.json "${OUT[@]}"
  plat bwneg "$hosts<link id=\"l\" bandwidth=\"-5MBps\" latency=\"1us\"/>$route"; exp bwneg
  expect2 "bwneg-$v" '<link id="l">: bandwidth "-5MBps"' "$CCSIM" $v bwneg.json "${OUT[@]}"
  plat bwnan "$hosts<link id=\"l\" bandwidth=\"nanGBps\" latency=\"1us\"/>$route"; exp bwnan
  expect2 "bwnan-$v" '<link id="l">: bandwidth "nanGBps"' "$CCSIM" $v bwnan.json "${OUT[@]}"
  plat bwtext "$hosts<link id=\"l\" bandwidth=\"fast\" latency=\"1us\"/>$route"; exp bwtext
  expect2 "bwtext-$v" '<link id="l">: bandwidth "fast"' "$CCSIM" $v bwtext.json "${OUT[@]}"
  plat speed0 '<host id="a" speed="0f"/><host id="b" speed="1Gf"/><link id="l" bandwidth="1GBps" latency="1us"/>'"$route"; exp speed0
  expect2 "speed0-$v" '<host id="a">: speed "0f" must be a finite number > 0' "$CCSIM" $v speed0.json "${OUT[@]}"
  plat pstate '<host id="a" speed="1Gf,0f"/><host id="b" speed="1Gf"/><link id="l" bandwidth="1GBps" latency="1us"/>'"$route"; exp pstate
  expect2 "pstate-$v" '<host id="a">: speed "1Gf,0f"' "$CCSIM" $v pstate.json "${OUT[@]}"
  plat lat "$hosts<link id=\"l\" bandwidth=\"1GBps\" latency=\"-1us\"/>$route"; exp lat
  expect2 "latency-$v" 'latency "-1us" must be a finite number >= 0' "$CCSIM" $v lat.json "${OUT[@]}"
  printf '%s\n<platform version="4.1"><cluster id="c" prefix="h" radical="0-3" suffix="" speed="1Gf" bw="0Bps" lat="1us"/></platform>\n' "$head" >cl.xml; exp cl
  expect2 "cluster-bw-$v" '<cluster id="c">: bw "0Bps"' "$CCSIM" $v cl.json "${OUT[@]}"
  plat noroute "$hosts<link id=\"l\" bandwidth=\"1GBps\" latency=\"1us\"/>"; exp noroute
  expect2 "noroute-$v" 'noroute.xml: SimGrid refuses the platform while looking up the route between each pair of workers (or along a ring and to and from worker 0): You' "$CCSIM" $v noroute.json "${OUT[@]}"
  printf '%s\n<platform version="4.1"><zone id="z" routing="Full">%s\n' "$head" "$hosts" >trunc.xml; exp trunc
  expect2 "truncated-$v" 'trunc.xml:3:0: not well-formed XML' "$CCSIM" $v trunc.json "${OUT[@]}"
  printf '<svg><g/></svg>\n' >svg.xml; exp svg
  expect2 "not-platform-$v" 'svg.xml:1: <svg>: not a SimGrid platform' "$CCSIM" $v svg.json "${OUT[@]}"
  printf '<?xml version="1.0"?><!DOCTYPE platform [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><platform version="4.1"/>\n' >lol.xml; exp lol
  expect2 "entities-$v" 'lol.xml:1: entity "a" declared' "$CCSIM" $v lol.json "${OUT[@]}"
  plat badtag "$hosts<lnk id=\"l\"/>"; exp badtag
  expect2 "dtd-$v" 'badtag.xml: SimGrid refuses the platform while loading the platform: Parse error' "$CCSIM" $v badtag.json "${OUT[@]}"
  plat badrouting "$hosts"; sed -i 's/routing="Full"/routing="Fastest"/' badrouting.xml; exp badrouting
  expect2 "routing-$v" 'badrouting.xml: SimGrid refuses the platform while loading the platform' "$CCSIM" $v badrouting.json "${OUT[@]}"
  mkfifo fifo.xml; exp fifo
  expect2 "fifo-$v" 'fifo.json: platform.file: "./fifo.xml": is a FIFO; expected the platform file (a regular file)' "$CCSIM" $v fifo.json "${OUT[@]}"
  rm fifo.xml
  ln -sf /dev/zero zero.xml; exp zero
  expect2 "devzero-$v" 'is a character device; expected the platform file' "$CCSIM" $v zero.json "${OUT[@]}"
  # SimGrid flags and models
  expect2 "cfg-key-$v" "ccsim $v: --cfg no/such:1: SimGrid has no configuration option \"no/such\"" "$CCSIM" $v good.json "${OUT[@]}" --cfg=no/such:1
  expect2 "cfg-model-$v" 'Bogus' "$CCSIM" $v good.json "${OUT[@]}" --cfg=network/model:Bogus
  expect2 "cfg-value-$v" '--cfg network/crosstraffic:maybe: SimGrid refuses the value "maybe" of network/crosstraffic: not a boolean' "$CCSIM" $v good.json "${OUT[@]}" --cfg=network/crosstraffic:maybe
  # a number SimGrid would take but that is no number (TCP-gamma:nan meant no window bound)
  expect2 "cfg-nan-$v" "ccsim $v: --cfg network/TCP-gamma:nan: expected a finite number for network/TCP-gamma, got \"nan\"" "$CCSIM" $v good.json "${OUT[@]}" --cfg=network/TCP-gamma:nan
  expect2 "cfg-inf-$v" "ccsim $v: --cfg maxmin/precision:-inf: expected a finite number for maxmin/precision, got \"-inf\"" "$CCSIM" $v good.json "${OUT[@]}" --cfg=maxmin/precision:-inf
  expect2 "constant-file-$v" 'good.xml: SimGrid refuses the platform while loading the platform: Refusing to create the link l' "$CCSIM" $v good.json "${OUT[@]}" --set platform.network_model=Constant
  printf '{"workers": 4, "model": {"elements": 64}, "iterations": 1}\n' >gen.json
  expect2 "constant-generated-$v" 'SimGrid refuses the platform while loading the platform: Refusing to create the link crossbar_link_0_UP' "$CCSIM" $v gen.json "${OUT[@]}" --set platform.network_model=Constant
done
expect2 hosts-bw0 'bw0.xml:4: <link id="l">: bandwidth "0GBps"' "$CCSIM" hosts bw0.xml
expect2 hosts-dtd 'badtag.xml: SimGrid refuses the platform while loading the platform' "$CCSIM" hosts badtag.xml
[ ! -e o ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL a refused run wrote into its output directory" >&2; }
echo "platform checks: $pass passed, $fail failed"
[ $fail -eq 0 ]
