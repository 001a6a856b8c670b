#!/usr/bin/env bash
# Makes a hot standby of the PostgreSQL server on 127.0.0.1:5432 with pg_basebackup, streaming
# from it, on a free port of 127.0.0.1, for the store tests against a primary with a standby
# (.ci/run). Prints the directory holding its data and log, then the port; stop it with
# `su postgres -c "<pg_ctl> -D <dir>/data stop -m immediate"` (the path is in <dir>/pg_ctl).
# The server must accept a replication connection from loopback: a trust line is added to its
# pg_hba.conf when none is there (the server trusts loopback for everything else already).
set -euo pipefail
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
primary=(-h 127.0.0.1 -p 5432 -U postgres)
bin="$(dirname "$(readlink -f "$(command -v pg_basebackup)")")"
# Debian's wrapper picks the cluster's own version; pg_ctl lives beside the server.
version="$(psql "${primary[@]}" -Atc "SHOW server_version_num" | cut -c1-2)"
[[ -x "/usr/lib/postgresql/$version/bin/pg_ctl" ]] && bin="/usr/lib/postgresql/$version/bin"
hba="$(psql "${primary[@]}" -Atc "SHOW hba_file")"
if ! grep -Eq '^host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba"; then
  echo "host replication all 127.0.0.1/32 trust" >>"$hba"
  psql "${primary[@]}" -qAtc "SELECT pg_reload_conf()" >/dev/null
fi
dir="$(mktemp -d /tmp/crm-standby-XXXXXX)"
chown postgres "$dir"
su postgres -s /bin/sh -c "'$bin/pg_basebackup' -h 127.0.0.1 -p 5432 -U postgres -D '$dir/data' -R -X stream -c fast"
# Debian keeps the configuration outside the data directory: the standby gets its own, with the
# settings a hot standby must hold at least as high as its primary's.
{
  echo "listen_addresses = '127.0.0.1'"
  echo "port = $port"
  echo "unix_socket_directories = '$dir'"
  echo "hot_standby = on"
  for setting in max_connections max_worker_processes max_wal_senders max_prepared_transactions max_locks_per_transaction; do
    echo "$setting = $(psql "${primary[@]}" -Atc "SHOW $setting")"
  done
} >"$dir/data/postgresql.conf"
printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' >"$dir/data/pg_hba.conf"
chown postgres "$dir/data/postgresql.conf" "$dir/data/pg_hba.conf"
echo "$bin/pg_ctl" >"$dir/pg_ctl"
su postgres -s /bin/sh -c "'$bin/pg_ctl' -D '$dir/data' -l '$dir/standby.log' -w start" >/dev/null
for _ in $(seq 1 50); do
  [[ "$(psql -h 127.0.0.1 -p "$port" -U postgres -Atc 'SELECT pg_is_in_recovery()' 2>/dev/null)" == t ]] && break
  sleep 0.1
done
echo "$dir $port"
