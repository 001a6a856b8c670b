#!/usr/bin/env bash
# Starts Debian's PgBouncer in transaction pooling mode in front of the PostgreSQL server on
# 127.0.0.1:5432, on a free port of 127.0.0.1, for the store suite's run through a pooler
# (.ci/run). Prints the directory holding its config, log and pid file, then the port; stop it
# with `kill "$(cat <dir>/pgbouncer.pid)"`. PgBouncer refuses to run as root: it runs as postgres.
set -euo pipefail
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
command -v pgbouncer >/dev/null || apt-get install -y --no-install-recommends pgbouncer >/dev/null ||
  { apt-get update >/dev/null && apt-get install -y --no-install-recommends pgbouncer >/dev/null; }
dir="$(mktemp -d /tmp/crm-pgbouncer-XXXXXX)"
# Every database by name (the suite makes one per store), trusted as the server trusts loopback.
# Small pools that close soon after use: the suite makes and drops many databases, and the
# server's connections, pooled or not, stay under its max_connections.
cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=5432
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 4
server_idle_timeout = 5
autodb_idle_timeout = 5
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
echo '"postgres" ""' >"$dir/userlist.txt"
chown -R postgres "$dir"
su postgres -s /bin/sh -c "pgbouncer -d '$dir/pgbouncer.ini'"
for _ in $(seq 1 50); do
  pg_isready -h 127.0.0.1 -p "$port" -U postgres -q && break
  sleep 0.1
done
pg_isready -h 127.0.0.1 -p "$port" -U postgres -q
echo "$dir $port"
