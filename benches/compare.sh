#!/usr/bin/env bash
# Side-by-side benchmark: `puzzle run` against the reference C++ solutions
# (g++ -O2 -std=c++17) on ../shared/bench/*.in, runs alternating in one
# session, RUNS each. Prints the median times and time ratios (puzzle / C++)
# on one thread and on two (cases of a file solved two at a time), and the
# ratio of the best runs (on a shared machine, the runs least disturbed by
# other load); peak RSS, states expanded and states per second; then the
# thread scaling of plain BFS on a synthetic instance of about 15 million
# states.
#
# With BASE (a git revision), that revision of `puzzle` is built in a
# worktree under target/ and timed in the same alternation: its median time
# and the ratio of this checkout's to it (below 1: faster than it).
#
# Then each family of moves (slides, teleports) against a hand-written C++
# solver of its puzzle, on inputs benches/families/gen.py makes; then
# Korf's 15-puzzle boards (KORF of them, 10 unless set) by IDA* against a
# C++ IDA* with Manhattan distance. With BILLION=1, a plain BFS of 3.78e9
# states besides (minutes). With CLUSTER=1, the scale bench on 2 processes
# on 127.0.0.1 (the distributed search) against the local engine.
#
# Usage: benches/compare.sh [RUNS] [BASE]  (default 5; needs g++, python3 and GNU time)
#   e.g. benches/compare.sh 7 3a3c8e7
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
BASE=${2:-}
SHARED=../shared
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "needs GNU time at $TIME (apt-get install time)" >&2; exit 2; }
[ -d "$SHARED/bench" ] || { echo "needs $SHARED/bench beside the checkout" >&2; exit 2; }

cargo build --release --quiet
BIN=target/release/puzzle
BASEBIN=
if [ -n "$BASE" ]; then
  wt=target/bench-base-$BASE
  [ -d "$wt" ] || git worktree add --detach "$wt" "$BASE" >/dev/null
  (cd "$wt" && cargo build --release --quiet)
  BASEBIN=$wt/target/release/puzzle
fi
REF=target/bench-ref
mkdir -p "$REF"
for p in halloween keytask hideseek; do
  [ "$REF/$p" -nt "$SHARED/problems/reference/$p.cpp" ] ||
    g++ -O2 -std=c++17 -o "$REF/$p" "$SHARED/problems/reference/$p.cpp" 2>/dev/null
done

# measure CMD...: prints "seconds max_rss_kb cpu_seconds" of one run (stdout
# discarded). Wall time from the clock in nanoseconds (GNU time's own is in
# 10 ms steps); both sides pay the same wrapper. CPU time is user + system.
measure() {
  local t0 t1
  t0=$(date +%s%N)
  "$TIME" -f "%M %U %S" -o /tmp/puzzle-bench.$$ "$@" >/dev/null
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" '{printf "%.4f %d %.2f\n", (b - a) / 1e9, $1, $2 + $3}' /tmp/puzzle-bench.$$
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
best() { sort -n | head -1; }

printf '%-22s %-9s %9s %9s %7s %7s %9s %7s %7s %10s %10s %12s %10s %9s %9s %9s\n' \
  input strategy "puzzle s" "C++ s" ratio best "2 thr s" ratio best "puzzle KB" "C++ KB" expanded "states/s" "base s" "vs base" "base KB"
for input in "$SHARED"/bench/*.in; do
  name=$(basename "$input" .in)
  p=${name%%-*}
  strategies="auto"
  [ "$p" = halloween ] && strategies="auto bidir bfs"
  for strategy in $strategies; do
    : >/tmp/puzzle-ours.$$; : >/tmp/puzzle-theirs.$$; : >/tmp/puzzle-two.$$; : >/tmp/puzzle-base.$$
    for _ in $(seq "$RUNS"); do
      measure "$BIN" run "puzzles/$p.puz" "$input" --threads 1 --strategy "$strategy" >>/tmp/puzzle-ours.$$
      measure "$BIN" run "puzzles/$p.puz" "$input" --threads 2 --strategy "$strategy" >>/tmp/puzzle-two.$$
      measure "$REF/$p" <"$input" >>/tmp/puzzle-theirs.$$ 2>/dev/null || measure sh -c "$REF/$p < $input" >>/tmp/puzzle-theirs.$$
      [ -z "$BASEBIN" ] || measure "$BASEBIN" run "puzzles/$p.puz" "$input" --threads 1 --strategy "$strategy" >>/tmp/puzzle-base.$$
    done
    ours=$(cut -d' ' -f1 /tmp/puzzle-ours.$$ | median)
    two=$(cut -d' ' -f1 /tmp/puzzle-two.$$ | median)
    theirs=$(cut -d' ' -f1 /tmp/puzzle-theirs.$$ | median)
    ours_b=$(cut -d' ' -f1 /tmp/puzzle-ours.$$ | best)
    two_b=$(cut -d' ' -f1 /tmp/puzzle-two.$$ | best)
    theirs_b=$(cut -d' ' -f1 /tmp/puzzle-theirs.$$ | best)
    ours_kb=$(cut -d' ' -f2 /tmp/puzzle-ours.$$ | median)
    theirs_kb=$(cut -d' ' -f2 /tmp/puzzle-theirs.$$ | median)
    base=0; base_kb=0
    if [ -n "$BASEBIN" ]; then
      base=$(cut -d' ' -f1 /tmp/puzzle-base.$$ | median)
      base_kb=$(cut -d' ' -f2 /tmp/puzzle-base.$$ | median)
    fi
    expanded=$("$BIN" run "puzzles/$p.puz" "$input" --threads 1 --strategy "$strategy" --stats 2>&1 >/dev/null |
      awk -F'expanded ' '{split($2, a, ","); s += a[1]} END {print s}')
    awk -v n="$name" -v st="$strategy" -v o="$ours" -v t="$theirs" -v w="$two" -v ob="$ours_b" -v tb="$theirs_b" -v wb="$two_b" \
      -v ok="$ours_kb" -v tk="$theirs_kb" -v e="$expanded" -v b="$base" -v bk="$base_kb" \
      'BEGIN {printf "%-22s %-9s %9.4f %9.4f %7.2f %7.2f %9.4f %7.2f %7.2f %10d %10d %12d %10.2e %9.4f %9.2f %9d\n", n, st, o, t, (t > 0 ? o / t : 0), (tb > 0 ? ob / tb : 0), w, (t > 0 ? w / t : 0), (tb > 0 ? wb / tb : 0), ok, tk, e, (o > 0 ? e / o : 0), b, (b > 0 ? o / b : 0), bk}'
  done
done

echo
echo "Synthetic: benches/synthetic/robots.puz, plain BFS, 1 thread against 2"
: >/tmp/puzzle-t1.$$; : >/tmp/puzzle-t2.$$
for _ in $(seq "$RUNS"); do
  measure "$BIN" run benches/synthetic/robots.puz benches/synthetic/robots.txt --strategy bfs --threads 1 >>/tmp/puzzle-t1.$$
  measure "$BIN" run benches/synthetic/robots.puz benches/synthetic/robots.txt --strategy bfs --threads 2 >>/tmp/puzzle-t2.$$
done
t1=$(cut -d' ' -f1 /tmp/puzzle-t1.$$ | median)
t2=$(cut -d' ' -f1 /tmp/puzzle-t2.$$ | median)
b1=$(cut -d' ' -f1 /tmp/puzzle-t1.$$ | best)
b2=$(cut -d' ' -f1 /tmp/puzzle-t2.$$ | best)
c1=$(cut -d' ' -f3 /tmp/puzzle-t1.$$ | median)
c2=$(cut -d' ' -f3 /tmp/puzzle-t2.$$ | median)
m1=$(cut -d' ' -f2 /tmp/puzzle-t1.$$ | median)
m2=$(cut -d' ' -f2 /tmp/puzzle-t2.$$ | median)
"$BIN" run benches/synthetic/robots.puz benches/synthetic/robots.txt --strategy bfs --threads 1 --stats 2>&1 | tail -1
awk -v a="$t1" -v b="$t2" -v c="$b1" -v d="$b2" \
  'BEGIN {printf "median: 1 thread %.2f s, 2 threads %.2f s: speed-up %.2fx; best runs: %.2f s, %.2f s: %.2fx\n", a, b, (b > 0 ? a / b : 0), c, d, (d > 0 ? c / d : 0)}'
# The CPU time both threads spend together against one thread's: above 1,
# the work that sharing adds; the speed-up falls short of 2 by that much
# and by the time a thread waits (for the other, or for a core another
# program holds).
awk -v a="$c1" -v b="$c2" \
  'BEGIN {printf "CPU time (median): 1 thread %.2f s, 2 threads %.2f s together: %.2fx\n", a, b, (a > 0 ? b / a : 0)}'
# Peak memory of the two threads against one (the target: at most 1.25x).
awk -v a="$m1" -v b="$m2" \
  'BEGIN {printf "peak memory (median): 1 thread %d KB, 2 threads %d KB: %.2fx\n", a, b, (a > 0 ? b / a : 0)}'

# Scale: five robots taking turns on a 7 x 7 floor (228.8 million states),
# plain BFS on 1 and 2 threads against the naive C++ bitset BFS beside it,
# alternated in one run. The goals: 1 thread at most 0.5x the C++ time,
# memory at most 1.0x, 2 threads at least 1.8x one.
SCALE="$SHARED/bench/scale"
if [ -f "$SCALE/r5.puz" ] && [ -f "$SCALE/r5.cpp" ]; then
  echo
  echo "Scale: $SCALE/r5.puz, plain BFS, against r5.cpp"
  g++ -O2 -o target/bench-r5 "$SCALE/r5.cpp"
  : >/tmp/puzzle-s1.$$; : >/tmp/puzzle-s2.$$; : >/tmp/puzzle-sc.$$
  for _ in $(seq "$RUNS"); do
    measure target/bench-r5 >>/tmp/puzzle-sc.$$
    measure "$BIN" run "$SCALE/r5.puz" "$SCALE/r5.txt" --strategy bfs --threads 1 >>/tmp/puzzle-s1.$$
    measure "$BIN" run "$SCALE/r5.puz" "$SCALE/r5.txt" --strategy bfs --threads 2 >>/tmp/puzzle-s2.$$
  done
  for f in sc s1 s2; do
    eval "t_$f=\$(cut -d' ' -f1 /tmp/puzzle-$f.$$ | median)"
    eval "m_$f=\$(cut -d' ' -f2 /tmp/puzzle-$f.$$ | median)"
  done
  awk -v c="$t_sc" -v a="$t_s1" -v b="$t_s2" -v mc="$m_sc" -v ma="$m_s1" -v mb="$m_s2" \
    'BEGIN {printf "median: C++ %.2f s %d KB; 1 thread %.2f s (%.2fx) %d KB (%.2fx); 2 threads %.2f s (%.2fx one thread) %d KB\n", c, mc, a, (c > 0 ? a / c : 0), ma, (mc > 0 ? ma / mc : 0), b, (b > 0 ? a / b : 0), mb}'
else
  echo
  echo "Scale: $SCALE not found: skipped"
fi

# A billion states (BILLION=1 in the environment: it takes minutes): six
# robots taking turns on a 6 x 7 floor, r5.puz with a sixth robot, 3.78e9
# states, plain BFS on 2 threads; once with the memory the machine leaves,
# once within --max-memory 2500M, where the frontier goes to a file.
if [ "${BILLION:-0}" = 1 ] && [ -f "$SCALE/r5.puz" ]; then
  echo
  echo "A billion states: six robots taking turns on a 6 x 7 floor, plain BFS, 2 threads"
  sed 's/Robots 5/Robots 6/; s/bot\[5\]/bot[6]/' "$SCALE/r5.puz" >target/bench-r6.puz
  printf 'abc...\ndef...\n......\n......\n......\n...FED\n...CBA\n' >target/bench-r6.txt
  for mem in "" 2500M; do
    # --stats on stderr: the states, the depth, the peak frontier.
    read -r b_t b_kb _ < <(measure "$BIN" run target/bench-r6.puz target/bench-r6.txt --strategy bfs --threads 2 --stats ${mem:+--max-memory "$mem"})
    awk -v m="${mem:-none}" -v t="$b_t" -v k="$b_kb" 'BEGIN {printf "--max-memory %s: %.1f s, peak %d KB\n", m, t, k}'
  done
fi

# Distributed (CLUSTER=1 in the environment: minutes): the scale bench on
# timely, 2 processes x 1 worker on 127.0.0.1 against the local engine on 1
# and 2 threads, alternated; each process's peak memory, and the bytes of
# states the processes sent each other (from --stats).
if [ "${CLUSTER:-0}" = 1 ] && [ -f "$SCALE/r5.puz" ]; then
  echo
  echo "Distributed: $SCALE/r5.puz, plain BFS, 2 processes x 1 worker against the local engine"
  printf '127.0.0.1:47311\n127.0.0.1:47312\n' >target/bench-hosts
  : >/tmp/puzzle-c1.$$; : >/tmp/puzzle-c2.$$; : >/tmp/puzzle-cp.$$; : >/tmp/puzzle-cq.$$
  for _ in $(seq "$RUNS"); do
    measure "$BIN" run "$SCALE/r5.puz" "$SCALE/r5.txt" --strategy bfs --threads 1 >>/tmp/puzzle-c1.$$
    measure "$BIN" run "$SCALE/r5.puz" "$SCALE/r5.txt" --strategy bfs --threads 2 >>/tmp/puzzle-c2.$$
    "$TIME" -f "%M" -o /tmp/puzzle-cq1.$$ "$BIN" run "$SCALE/r5.puz" "$SCALE/r5.txt" --strategy bfs \
      --hostfile target/bench-hosts --process 1 >/dev/null 2>&1 &
    measure "$BIN" run "$SCALE/r5.puz" "$SCALE/r5.txt" --strategy bfs \
      --hostfile target/bench-hosts --process 0 --stats >>/tmp/puzzle-cp.$$ 2>/tmp/puzzle-cs.$$
    wait
    cat /tmp/puzzle-cq1.$$ >>/tmp/puzzle-cq.$$
  done
  for f in c1 c2 cp; do
    eval "t_$f=\$(cut -d' ' -f1 /tmp/puzzle-$f.$$ | median)"
    eval "m_$f=\$(cut -d' ' -f2 /tmp/puzzle-$f.$$ | median)"
  done
  m_cq=$(median </tmp/puzzle-cq.$$)
  awk -v a="$t_c1" -v b="$t_c2" -v p="$t_cp" -v ma="$m_c1" -v mb="$m_c2" -v mp="$m_cp" -v mq="$m_cq" \
    'BEGIN {printf "median: 1 thread %.2f s %d KB; 2 threads %.2f s %d KB; 2 processes %.2f s (%.2fx 1 thread, %.2fx 2 threads), %d KB and %d KB\n", a, ma, b, mb, p, (a > 0 ? p / a : 0), (b > 0 ? p / b : 0), mp, mq}'
  grep -o 'sent between workers.*' /tmp/puzzle-cs.$$
fi

# Families of moves (slides, leaps, teleports): each shipped puzzle against a
# hand-written straightforward C++ solver of it (benches/families/*.cpp),
# on a large input that benches/families/gen.py makes the same every time.
echo
echo "Families of moves: puzzle against a hand-written C++ solver (1 thread)"
FAM=target/bench-families
mkdir -p "$FAM"
printf '%-10s %9s %9s %7s %7s %10s %10s %12s\n' puzzle "puzzle s" "C++ s" ratio best "puzzle KB" "C++ KB" expanded
# NAME or NAME:PUZZLE (an input of gen.py's NAME for puzzles/PUZZLE.puz).
for spec in ice escape minotaur daleks bloxorz log snake knights horse walkways tilt robots robots4:robots portals sokoban klotski blocks stairs lasers pushing burrow fire fire_large:fire fifteen; do
  n=${spec%%:*}
  p=${spec#*:}
  [ "$FAM/$p" -nt benches/families/$p.cpp ] || g++ -O2 -std=c++17 -o "$FAM/$p" benches/families/$p.cpp
  [ "$FAM/$n.in" -nt benches/families/gen.py ] || python3 benches/families/gen.py "$n" >"$FAM/$n.in"
  cmp -s <("$BIN" run "puzzles/$p.puz" "$FAM/$n.in" --threads 1) <("$FAM/$p" <"$FAM/$n.in") ||
    { echo "$n: the answers differ" >&2; exit 1; }
  : >/tmp/puzzle-ours.$$; : >/tmp/puzzle-theirs.$$
  for _ in $(seq "$RUNS"); do
    measure "$BIN" run "puzzles/$p.puz" "$FAM/$n.in" --threads 1 >>/tmp/puzzle-ours.$$
    measure sh -c "$FAM/$p < $FAM/$n.in" >>/tmp/puzzle-theirs.$$
  done
  ours=$(cut -d' ' -f1 /tmp/puzzle-ours.$$ | median)
  theirs=$(cut -d' ' -f1 /tmp/puzzle-theirs.$$ | median)
  ours_b=$(cut -d' ' -f1 /tmp/puzzle-ours.$$ | best)
  theirs_b=$(cut -d' ' -f1 /tmp/puzzle-theirs.$$ | best)
  ours_kb=$(cut -d' ' -f2 /tmp/puzzle-ours.$$ | median)
  theirs_kb=$(cut -d' ' -f2 /tmp/puzzle-theirs.$$ | median)
  expanded=$("$BIN" run "puzzles/$p.puz" "$FAM/$n.in" --threads 1 --stats 2>&1 >/dev/null |
    awk -F'expanded ' '{split($2, a, ","); s += a[1]} END {print s}')
  awk -v n="$n" -v o="$ours" -v t="$theirs" -v ob="$ours_b" -v tb="$theirs_b" -v ok="$ours_kb" -v tk="$theirs_kb" -v e="$expanded" \
    'BEGIN {printf "%-10s %9.4f %9.4f %7.2f %7.2f %10d %10d %12d\n", n, o, t, (t > 0 ? o / t : 0), (tb > 0 ? ob / tb : 0), ok, tk, e}'
done
# Korf's 15-puzzle boards: IDA* with the pattern tables the plan builds
# from the rules (tables shared by the boards: built once, counted in the
# time) against a plain C++ IDA* with Manhattan distance (fifteen.cpp), on
# the first KORF boards (10 unless set in the environment; KORF=100 for all
# of them, which takes the C++ long), one run each, one thread; a time
# limit, which IDA* wants where a board could have no way, that none reaches.
KORF=${KORF:-10}
echo
echo "Korf's 15-puzzle boards, the first $KORF: puzzle --strategy ida (pattern tables) against a C++ IDA* with Manhattan distance (1 thread)"
python3 benches/families/gen.py korf "$KORF" >"$FAM/korf.in"
cmp -s <("$BIN" run puzzles/fifteen.puz "$FAM/korf.in" --strategy ida --timeout 3600s --threads 1 2>/dev/null) <("$FAM/fifteen" <"$FAM/korf.in") ||
  { echo "korf: the answers differ" >&2; exit 1; }
read -r k_ours k_ours_kb _ < <(measure "$BIN" run puzzles/fifteen.puz "$FAM/korf.in" --strategy ida --timeout 3600s --threads 1)
read -r k_theirs k_theirs_kb _ < <(measure sh -c "$FAM/fifteen < $FAM/korf.in")
awk -v o="$k_ours" -v t="$k_theirs" -v ok="$k_ours_kb" -v tk="$k_theirs_kb" \
  'BEGIN {printf "korf: puzzle %.2f s %d KB; C++ %.2f s %d KB; ratio %.3f\n", o, ok, t, tk, (t > 0 ? o / t : 0)}'
rm -f /tmp/puzzle-bench.$$ /tmp/puzzle-ours.$$ /tmp/puzzle-theirs.$$ /tmp/puzzle-two.$$ /tmp/puzzle-base.$$ /tmp/puzzle-t1.$$ /tmp/puzzle-t2.$$ /tmp/puzzle-s1.$$ /tmp/puzzle-s2.$$ /tmp/puzzle-sc.$$
