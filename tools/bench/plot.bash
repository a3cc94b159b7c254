# Sourced by tools/bench/run (its variables and helpers): the latency CDF plot.
# ---- plot -------------------------------------------------------------------------------------
# cdf FILE...: "us fraction" lines of the pooled samples, at most ~2,000 points (and the last).
cdf() {
  cat "$@" | sort -n | awk '{ v[NR] = $1 } END { s = int(NR / 2000); if (s < 1) s = 1
    for (i = 1; i <= NR; i += s) printf "%.3f %.6f\n", v[i] / 1e3, i / NR; printf "%.3f 1\n", v[NR] / 1e3 }'
}
cdf $S/moves-3-* >"$TMP/cdf-m3"; cdf $S/moves-20-* >"$TMP/cdf-m20"
cdf $S/c-epoll-3-* >"$TMP/cdf-ce"; cdf $S/c-blocking-3-* >"$TMP/cdf-cb"; cdf $S/c-sealed-3-* >"$TMP/cdf-cs"
# The CDF up to 1.5 x the 3 x 3 p99 (the body); the tail on a log scale up to its p99.9 and beyond.
xmax=$(calc "1.5 * $m3_99" 0)
tmax=$(calc "1.3 * $(pct 99.9 $S/moves-3-* $S/moves-20-*)" 0)
if command -v gnuplot >/dev/null 2>&1; then
  gnuplot <<GNUPLOT || log "gnuplot failed: no plot"
set terminal pngcairo size 1200,900 font "DejaVu Sans,11"
set output "$OUT/roundtrip.png"
set multiplot layout 2,1 title "tictac move round trip vs C, loopback, same CPU ($(date -u +%F), $(nproc) cores, $RUNS runs x $MV_N pooled)"
set grid
set key right bottom
set xrange [0:$xmax]
set xlabel "round trip (us)"
set mxtics 10
set ylabel "fraction of round trips <= x"
set yrange [0:1]
plot "$TMP/cdf-m3" using 1:2 with lines lw 2 title "tictac 3x3 (p50 $m3_50, p99 $m3_99 us)", \
     "$TMP/cdf-m20" using 1:2 with lines lw 2 title "tictac 20x20 k=20 (p50 $m20_50, p99 $m20_99)", \
     "$TMP/cdf-cs" using 1:2 with lines lw 2 title "C sealing epoll pair (p50 $cs50, p99 $cs99)", \
     "$TMP/cdf-ce" using 1:2 with lines lw 2 title "C epoll pair (p50 $ce50, p99 $ce99)", \
     "$TMP/cdf-cb" using 1:2 with lines lw 2 dt 2 title "C blocking pair (p50 $cb50, p99 $cb99)"
set key right top
set logscale y
set logscale x
set xrange [10:$tmax]
set yrange [0.0005:1]
set ylabel "fraction of round trips > x (tail)"
plot "$TMP/cdf-m3" using 1:(1.0001 - \$2) with lines lw 2 title "tictac 3x3", \
     "$TMP/cdf-m20" using 1:(1.0001 - \$2) with lines lw 2 title "tictac 20x20 k=20", \
     "$TMP/cdf-cs" using 1:(1.0001 - \$2) with lines lw 2 title "C sealing epoll pair", \
     "$TMP/cdf-ce" using 1:(1.0001 - \$2) with lines lw 2 title "C epoll pair", \
     "$TMP/cdf-cb" using 1:(1.0001 - \$2) with lines lw 2 dt 2 title "C blocking pair"
unset multiplot
GNUPLOT
fi
