# Sourced by tools/bench/run (its variables and helpers): section 5, concurrent games.
# load_step: the step (defined here, run in its place below, or alone with TICTAC_BENCH_ONLY=load).
# Sets LOAD_SERVER GENS load_gps shaken live per_conn rss_before rss_peak; $TMP/load holds the
# generators' and the server's lines.
load_step() {
  local server load_timeout g n p
  log "5. $LOAD_N concurrent games on one daemon for ${LOAD_S} s once all are up (ramp paced by the server, a move every $LOAD_THINK ms)"
  if [ "$LOAD_N" -le 4096 ]; then
    LOAD_SERVER="tictac bot"
    timeout 240 "$TICTAC" bot --ephemeral --name load-server --max-games-per-peer 0 --port 7500 --max-links-per-address $((LOAD_N * 2)) --max-handshakes-per-address 0 --no-dnssd --json >"$TMP/load-server" & load_timeout=$!
  else
    # TICTAC_BENCH_LOAD_VERSION=1: the server offers only version 1 (the clients follow it), for
    # the same step against the version before the sealed stream.
    LOAD_SERVER="tictac-bench serve${TICTAC_BENCH_LOAD_VERSION:+ (version $TICTAC_BENCH_LOAD_VERSION only)}"
    timeout 240 "$TOOL" serve 7500 $((LOAD_N + 100)) ${TICTAC_BENCH_LOAD_VERSION:-} >"$TMP/load-server" & load_timeout=$!
  fi
  wait_for "$TMP/load-server" ready
  server=$(pgrep -P "$load_timeout" -n) || die "no server process"
  # Generators of at most 5,000 clients each (two descriptors a client), started together. Each
  # dials at most 100 at a time (a dial waits for a handshake to end), prints "up" when all its
  # clients have shaken hands (or its ramp limit is reached), and waits; once every generator is
  # up, SIGUSR1 starts all their windows at once, so every game is on in every window, and
  # games/s is the sum of their rates. Memory: the server's VmRSS before the first connection
  # and its VmHWM at the end, per handshaken connection.
  kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
  rss_before=$(kb "$server" VmRSS)
  nstat -n 2>/dev/null || true # the kernel's TCP counters from here (listen queue overflows)
  GENS=$(( (LOAD_N + 4999) / 5000 ))
  local gens=()
  for g in $(seq "$GENS"); do
    n=$(( LOAD_N / GENS + (g <= LOAD_N % GENS ? 1 : 0) ))
    timeout 230 "$TOOL" load 7500 "$n" "$LOAD_S" "$server" "$g" "$LOAD_THINK" >"$TMP/load-$g" & gens+=($!)
  done
  for g in $(seq "$GENS"); do wait_for "$TMP/load-$g" '^up ' 200; done
  local loadavg_go
  loadavg_go=$(cut -d' ' -f1-3 /proc/loadavg)
  for p in "${gens[@]}"; do kill -USR1 "$(pgrep -P "$p" -n)" || die "no generator process"; done
  for p in "${gens[@]}"; do wait "$p" || die "load generator failed"; done
  rss_peak=$(kb "$server" VmHWM)
  kill "$load_timeout"
  wait "$load_timeout" || true
  cat "$TMP"/load-[0-9]* >"$TMP/load"
  grep '^server_' "$TMP/load-server" | sed 's/^/server: /' >>"$TMP/load" || true # serve's counts
  echo "kernel: $(nstat -az TcpExtListenOverflows TcpExtListenDrops TcpExtTCPSynRetrans 2>/dev/null | awk 'NR > 1 { printf "%s=%s ", $1, $2 }')" >>"$TMP/load"
  echo "load average at the window's start: $loadavg_go" >>"$TMP/load"
  load_gps=$(awk -F'games_per_s=' 'NF > 1 { s += $2 } END { printf "%.0f", s }' "$TMP/load")
  shaken=$(grep '^connections=' "$TMP/load" | grep -o ' handshaken=[0-9]*' | awk -F= '{ s += $2 } END { print s }')
  live=$(grep -o 'live_at_start=[0-9]*' "$TMP/load" | awk -F= '{ s += $2 } END { print s }')
  # The figures are for the connections that came up (printed, with the reasons of the others);
  # under 90 % the run is refused.
  [ $((live * 10)) -ge $((LOAD_N * 9)) ] || { cat "$TMP/load" >&2; die "only $live of $LOAD_N connections were up"; }
  per_conn=$(( (rss_peak - rss_before) * 1024 / shaken ))
}
