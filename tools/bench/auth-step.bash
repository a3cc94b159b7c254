# Sourced by tools/bench/run (its variables and helpers) with TICTAC_BENCH_ONLY=auth; ends the run.
# ---- the authenticated stream's cost (TICTAC_BENCH_ONLY=auth: this alone, after the build) ----
# RUNS repetitions, each timing version 1 then version 2 (`tictac-bench auth` against `serve`
# offering only that version, both on CPU 0): AUTH_HS handshakes one after the other, then MV_N
# 3 x 3 move round trips. Ratios of version 2 to version 1 pooled over the runs.
AUTH_HS=${TICTAC_BENCH_HANDSHAKES:-2000}
for r in $(seq "$RUNS"); do
  for v in 1 2; do
    log "auth: run $r, version $v: $AUTH_HS handshakes, $MV_N 3 x 3 round trips"
    timeout 150 taskset -c 0 "$TOOL" serve 7600 64 "$v" >"$TMP/auth-server-$r-$v" & srv=$!
    wait_for "$TMP/auth-server-$r-$v" ready
    timeout 140 taskset -c 0 "$TOOL" auth 7600 "$v" "$AUTH_HS" "$MV_N" 1000 >"$TMP/auth-$r-$v" || die "auth (version $v) failed"
    kill "$srv"; wait "$srv" || true
  done
  log "auth: run $r, the C handshake reference (seal.c): $AUTH_HS handshakes"
  taskset -c 0 "$PINGPONG" hserver 7601 "$AUTH_HS" & srv=$!
  timeout 140 taskset -c 0 "$PINGPONG" hclient 7601 "$AUTH_HS" >"$TMP/auth-$r-c" || die "the C handshake reference failed"
  wait "$srv" || die "the C handshake server failed"
done
# mean over runs of KEY for version V
avg() { cat "$TMP"/auth-*-"$1" | grep -o "\(^\| \)$2=[^ ]*" | cut -d= -f2 | awk '{ s += $1 } END { printf "%.2f", s / NR }'; }
{
echo "tictac bench, authenticated stream: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
echo "command: TICTAC_BENCH_ONLY=auth tools/bench/run (RUNS=$RUNS HANDSHAKES=$AUTH_HS MOVES=$MV_N)"
printf '%-36s %12s %12s %8s\n' "(mean of $RUNS runs)" "version 2" "version 1" "v2/v1"
for k in handshakes_per_s hs_p50_us p50_us p99_us; do
  printf '%-36s %12s %12s %8s\n' "$k" "$(avg 2 $k)" "$(avg 1 $k)" "$(calc "$(avg 2 $k) / $(avg 1 $k)")"
done
printf '%-36s %12s %12s %8s  %s\n' "version 2 handshakes_per_s vs C (seal.c)" "$(avg 2 handshakes_per_s)" "$(avg c handshakes_per_s)" \
  "$(calc "$(avg 2 handshakes_per_s) / $(avg c handshakes_per_s)")" "against the C reference: >= 0.8x: $(awk "BEGIN { print ($(avg 2 handshakes_per_s) >= 0.8 * $(avg c handshakes_per_s)) ? \"met\" : \"MISSED\" }")"
for f in "$TMP"/auth-[0-9]*; do echo "  $(basename "$f"): $(tr '\n' ' ' <"$f")"; done
} | tee "$OUT/summary.txt"
exit 0
