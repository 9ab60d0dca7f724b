#!/usr/bin/env bash
# slurm-hosts.sh -- a Slurm cluster over the emulated hosts of ../shared/tools/netns-hosts.sh:
# slurmctld on h1, a slurmd on each of h1..hK (each inside its host's namespaces, so it has the
# host's name, address and /dev/shm), for tests of `srun --mpi=pmi2 -N 2 -n 4 node prog.js` with
# ranks on several hosts.
#
# Usage (as root):
#   slurm-hosts.sh up [K]     hosts h1..hK (default 3) up if they are not, munged running (shared
#                             with slurm-local.sh: one munged per machine, its socket in /run/munge
#                             reaches every network namespace), this cluster's daemons started
#                             where they are not running, and every node idle (idempotent)
#   slurm-hosts.sh down       stop this cluster's daemons (found by their pid files); munged
#                             stays (slurm-local.sh's cluster may use it)
#   slurm-hosts.sh status     daemons and `sinfo` of this cluster
#   slurm-hosts.sh run CMD..  CMD on h1 with this cluster's SLURM_CONF (e.g. run srun -N 2 ...)
#
# Nothing here touches the single-node Slurm of slurm-local.sh (/etc/slurm/slurm.conf, ports
# 6817/6818, /var/spool/slurm*, /run/slurm*.pid): this cluster has its own configuration, named
# by SLURM_CONF, its own ports, state, spool, log and pid files, all under $TOP, and its own
# cluster name. Every path a slurmd writes carries its node's name (%n), because the emulated
# hosts share one file system.
#
# Written for Debian 12 (bookworm): Slurm 22.05, munge 0.5.
# Environment: SLURM_HOSTS_WAIT_S (default 60): how long `up` waits for the nodes to be idle.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
NETNS_HOSTS=${NETNS_HOSTS:-$HERE/../../shared/tools/netns-hosts.sh}
HOSTS_LOCK=/run/tsmpi-netns-hosts.lock # the lock test/emulated-hosts.ts takes around `up`
TOP=/run/tsmpi-slurm-hosts
CONF=$TOP/slurm.conf
CTLD_PORT=6917
SLURMD_PORT=6918
CTLD_HOST=h1
CTLD_PIDFILE=$TOP/slurmctld.pid
MUNGE_RUN=/run/munge
MUNGE_PIDFILE=$MUNGE_RUN/munged.pid
MUNGE_KEY=/etc/munge/munge.key
WAIT_S=${SLURM_HOSTS_WAIT_S:-60}
PKGS=(slurmctld slurmd slurm-client munge)
PMI2_PLUGIN=/usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmi2.so

log() { echo "slurm-hosts: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
[[ $(id -u) == 0 ]] || die "must run as root (the emulated hosts are network namespaces)"

alive() { # the process exists and is not a zombie
  local st
  kill -0 "$1" 2>/dev/null || return 1
  st=$(sed -n 's/.*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
  [[ -n $st && $st != Z && $st != X ]]
}

pid_of() { # pid_of PIDFILE COMM: the pid, if the file names a live process whose comm starts with COMM
  local pid c
  [[ -r $1 ]] || return 1
  pid=$(tr -dc '0-9' <"$1")
  [[ -n $pid ]] && alive "$pid" || return 1
  c=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
  [[ $c == "$2"* ]] || return 1
  echo "$pid"
}

wait_for() { # wait_for SECONDS CMD...: poll CMD every 0.2 s
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

on() { # on HOST CMD...: CMD inside HOST's namespaces, with this cluster's configuration
  local h=$1; shift
  bash "$NETNS_HOSTS" exec "$h" env SLURM_CONF="$CONF" "$@"
}

nodes() { cat "$TOP/nodes" 2>/dev/null; }

install_if_missing() {
  local b missing=0
  for b in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/srun /usr/bin/sinfo /usr/sbin/munged "$PMI2_PLUGIN"; do
    [[ -e $b ]] || missing=1
  done
  ((missing)) || return 0
  log "installing ${PKGS[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${PKGS[@]}" >/dev/null
}

setup_munge() {
  getent passwd munge >/dev/null || die "user munge missing (is the munge package installed?)"
  if [[ ! -s $MUNGE_KEY ]]; then
    install -d -o munge -g munge -m 0700 "$(dirname "$MUNGE_KEY")"
    mungekey --create --keyfile="$MUNGE_KEY" 2>/dev/null || dd if=/dev/urandom of="$MUNGE_KEY" bs=1 count=1024 status=none
    chown munge:munge "$MUNGE_KEY"
    chmod 0600 "$MUNGE_KEY"
  fi
  install -d -o munge -g munge -m 0755 "$MUNGE_RUN"
  if ! pid_of "$MUNGE_PIDFILE" munged >/dev/null; then
    log "starting munged"
    runuser -u munge -- /usr/sbin/munged
    wait_for 10 pid_of "$MUNGE_PIDFILE" munged || die "munged did not start"
  fi
  wait_for 10 sh -c 'munge -n | unmunge' || die "munge -n | unmunge fails"
}

write_conf() { # write_conf K
  local k=$1 i cpus
  cpus=$(nproc)
  mkdir -p "$TOP/ctld" "$TOP/spool" "$TOP/log"
  {
    echo "# Written by tsmpi's scripts/slurm-hosts.sh: a cluster over the emulated hosts h1..h$k."
    echo "ClusterName=tsmpihosts"
    echo "SlurmctldHost=$CTLD_HOST(192.0.2.1)"
    echo "SlurmctldPort=$CTLD_PORT"
    echo "SlurmdPort=$SLURMD_PORT"
    cat <<EOF
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
SlurmdParameters=config_overrides
SlurmctldPidFile=$CTLD_PIDFILE
SlurmctldLogFile=$TOP/log/slurmctld.log
StateSaveLocation=$TOP/ctld
SlurmdPidFile=$TOP/slurmd-%n.pid
SlurmdSpoolDir=$TOP/spool/%n
SlurmdLogFile=$TOP/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
EOF
    # Every emulated host has the machine's cores (they share them): -N 2 -n 4 needs 2 each.
    for ((i = 1; i <= k; i++)); do
      echo "NodeName=h$i NodeAddr=192.0.2.$i CPUs=$cpus RealMemory=100 State=UNKNOWN"
    done
    echo "PartitionName=hosts Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
  } >"$CONF.new"
  for ((i = 1; i <= k; i++)); do mkdir -p "$TOP/spool/h$i"; done
  # slurmd loads a cgroup plugin whatever the proctrack and task plugins are, and "autodetect"
  # finds no cgroup file system on an emulated host: its /sys is a sysfs of its own network
  # namespace, which hides the machine's /sys/fs/cgroup. Naming the plugin skips the detection;
  # with proctrack/linuxproc and task/none nothing ever creates a cgroup.
  echo "CgroupPlugin=cgroup/v1" >"$TOP/cgroup.conf"
  if [[ -f $CONF ]] && cmp -s "$CONF.new" "$CONF"; then rm -f "$CONF.new"; return 1; fi
  mv "$CONF.new" "$CONF"
  return 0
}

stop() { # stop PIDFILE COMM
  local pid i
  pid=$(pid_of "$1" "$2") || return 0
  log "stopping $2 (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do alive "$pid" || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

node_states() { on "$CTLD_HOST" sinfo -h -N -o '%N %t' 2>/dev/null; }
all_idle() {
  local n
  n=$(node_states | awk '$2 == "idle"' | wc -l)
  [[ $n -eq $(nodes | wc -w) ]]
}

cmd_up() {
  local k=${1:-3} i h t0=$SECONDS
  [[ $k =~ ^[0-9]+$ && $k -ge 1 ]] || die "host count must be a number >= 1"
  [[ -f $NETNS_HOSTS ]] || die "the emulated-host tool is missing ($NETNS_HOSTS)"
  install_if_missing
  mkdir -p "$TOP"
  flock -o -w 120 "$HOSTS_LOCK" bash "$NETNS_HOSTS" up "$k" >/dev/null
  setup_munge
  if write_conf "$k"; then
    # a new configuration (another host count): restart this cluster's daemons
    for h in $(nodes); do stop "$TOP/slurmd-$h.pid" slurmd; done
    stop "$CTLD_PIDFILE" slurmctld
    log "wrote $CONF (h1..h$k)"
  fi
  for ((i = 1; i <= k; i++)); do printf 'h%d ' "$i"; done >"$TOP/nodes"
  if ! pid_of "$CTLD_PIDFILE" slurmctld >/dev/null; then
    log "starting slurmctld on $CTLD_HOST"
    on "$CTLD_HOST" /usr/sbin/slurmctld
    wait_for 15 pid_of "$CTLD_PIDFILE" slurmctld || die "slurmctld did not start; see $TOP/log/slurmctld.log"
  fi
  wait_for 30 sh -c "bash '$NETNS_HOSTS' exec $CTLD_HOST env SLURM_CONF='$CONF' scontrol ping | grep -q UP" ||
    die "slurmctld does not answer; see $TOP/log/slurmctld.log"
  for h in $(nodes); do
    if ! pid_of "$TOP/slurmd-$h.pid" slurmd >/dev/null; then
      log "starting slurmd on $h"
      on "$h" /usr/sbin/slurmd
      wait_for 15 pid_of "$TOP/slurmd-$h.pid" slurmd || die "slurmd on $h did not start; see $TOP/log/slurmd-$h.log"
    fi
  done
  if ! wait_for 10 all_idle; then
    # a node that was down in an earlier life of this cluster stays down until resumed
    for h in $(node_states | awk '$2 ~ /down|drain|fail/ {print $1}'); do
      log "node $h is $(node_states | awk -v h="$h" '$1 == h {print $2}'); resuming it"
      on "$CTLD_HOST" scontrol update NodeName="$h" State=RESUME || true
    done
    wait_for "$WAIT_S" all_idle || die "nodes not idle after ${WAIT_S}s: $(node_states | tr '\n' ' '); see $TOP/log/"
  fi
  log "ready in $((SECONDS - t0)) s: $(node_states | tr '\n' ' ')"
}

cmd_down() {
  local h
  for h in $(nodes); do stop "$TOP/slurmd-$h.pid" slurmd; done
  stop "$CTLD_PIDFILE" slurmctld
  # munged stays: it is the machine's, and slurm-local.sh's cluster may have come to use it.
}

cmd_status() {
  local h p
  if p=$(pid_of "$CTLD_PIDFILE" slurmctld); then echo "slurmctld on $CTLD_HOST: pid $p"; else echo "slurmctld: not running"; fi
  for h in $(nodes); do
    if p=$(pid_of "$TOP/slurmd-$h.pid" slurmd); then echo "slurmd on $h: pid $p"; else echo "slurmd on $h: not running"; fi
  done
  if pid_of "$CTLD_PIDFILE" slurmctld >/dev/null; then on "$CTLD_HOST" sinfo || true; fi
}

case ${1:-} in
  up) shift; cmd_up "$@" ;;
  down) cmd_down ;;
  status) cmd_status ;;
  run) shift; [[ $# -ge 1 ]] || die "usage: run CMD..."; on "$CTLD_HOST" "$@" ;;
  *) sed -n '2,21p' "$0"; exit 2 ;;
esac
