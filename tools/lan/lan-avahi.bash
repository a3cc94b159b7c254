# Sourced by tools/lan/lan (its variables and helpers): `lan avahi I [--reflector]`.
# Runs inside the host with the private mounts; refuses to start anything unless the mounts are
# ours, the network namespace is not the caller's or init's, and only our interfaces exist.
AVAHI_START='ifaces=$1 outer=$2 conf=$3
same() { [ "$(stat -c %d:%i "$1")" = "$(stat -c %d:%i "$2")" ]; }
same /run/dbus "$dir/dbus" && same /run/avahi-daemon "$dir/avahi" ||
  { echo "lan: refusing: /run/dbus or /run/avahi-daemon is not the private mount" >&2; exit 1; }
here=$(readlink /proc/self/ns/net)
[ "$here" != "$outer" ] && [ "$here" != "$(readlink /proc/1/ns/net)" ] ||
  { echo "lan: refusing: not inside a LAN namespace" >&2; exit 1; }
seen=$(ip -o link show | awk -F": " "{print \$2}" | sed "s/@.*//" | sort | tr "\n" " ")
[ "$seen" = "$ifaces" ] ||
  { echo "lan: refusing: interfaces are \"$seen\", expected \"$ifaces\"" >&2; exit 1; }
# runs_here PIDFILE: its process is alive in this host (a stale file may name a reused pid).
runs_here() {
  local pid
  pid=$(cat "$1" 2>/dev/null) && [ "$(readlink "/proc/$pid/ns/net" 2>/dev/null)" = "$here" ]
}
if ! runs_here /run/dbus/pid; then
  rm -f /run/dbus/pid /run/dbus/system_bus_socket
  timeout 10 dbus-daemon --system --fork
fi
if ! runs_here /run/avahi-daemon/pid; then
  rm -f /run/avahi-daemon/pid /run/avahi-daemon/socket
  timeout 20 avahi-daemon -f "$conf" --daemonize --no-chroot --no-rlimits
fi
# Ready when the server state is AVAHI_SERVER_RUNNING (2): its host name is established.
for i in $(seq 100); do
  state=$(timeout 2 dbus-send --system --print-reply=literal --dest=org.freedesktop.Avahi / \
    org.freedesktop.Avahi.Server.GetState 2>/dev/null | awk "{print \$2}") || true
  [ "$state" = 2 ] && exit 0
  sleep 0.1
done
echo "lan: avahi-daemon did not reach the running state in 10 s" >&2
exit 1'

cmd_avahi() {
  [ $# -ge 1 ] || die 2 "usage: lan avahi I [--reflector]"
  local reflector=no ifaces="eth0 lo " allow=eth0 s
  need_root; need ip iproute2; need unshare util-linux
  need dbus-daemon dbus; need dbus-send dbus; need avahi-daemon avahi-daemon
  host "$1"
  case ${2:-} in
    "") ;;
    --reflector) reflector=yes ;;
    *) die 2 "avahi: unknown option '$2'" ;;
  esac
  if [ "$NAME" = router ]; then
    ifaces="" allow=""
    for ((s = 0; s < SEGMENTS; s++)); do ifaces+="eth$s "; allow+="${allow:+,}eth$s"; done
    ifaces+="lo "
  fi
  lock
  local conf pid
  conf=$(cat <<EOF
# Written by tools/lan/lan for $NAME; only this host's interfaces, IPv4 only.
[server]
host-name=$NAME
use-ipv4=yes
use-ipv6=no
allow-interfaces=$allow
enable-dbus=yes
[wide-area]
enable-wide-area=no
[publish]
publish-workstation=no
publish-hinfo=no
[reflector]
enable-reflector=$reflector
EOF
  )
  if daemon_pid "$HDIR" dbus >/dev/null && pid=$(daemon_pid "$HDIR" avahi); then
    if [ "$conf" = "$(cat "$HDIR/avahi-daemon.conf" 2>/dev/null)" ]; then
      echo "lan: avahi already runs in $NAME"
      return 0
    fi
    kill -TERM "$pid" # another configuration (the reflector): restart with the new one
    for _ in $(seq 50); do daemon_pid "$HDIR" avahi >/dev/null || break; sleep 0.1; done
    ! daemon_pid "$HDIR" avahi >/dev/null || die 1 "avahi: avahi-daemon in $NAME did not stop"
  fi
  echo "$conf" >"$HDIR/avahi-daemon.conf"
  run_in 40 "$AVAHI_START" "$ifaces" "$(readlink /proc/self/ns/net)" "$HDIR/avahi-daemon.conf" ||
    die 1 "avahi: could not start avahi in $NAME"
  echo "lan: avahi runs in $NAME (avahi pid $(daemon_pid "$HDIR" avahi), reflector $reflector)"
}
