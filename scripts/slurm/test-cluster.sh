#!/usr/bin/env bash
# A minimal single-node Slurm cluster on localhost, for tests and as an example.
#
#   scripts/slurm/test-cluster.sh install   # apt-get install slurm-wlm munge (as root)
#   scripts/slurm/test-cluster.sh start     # munge key, slurm.conf, munged, slurmctld, slurmd
#   scripts/slurm/test-cluster.sh stop      # stops the three daemons
#
# Needs root (it writes /etc/munge and /etc/slurm). No cgroups are assumed
# (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none), no accounting storage: follow
# jobs with squeue / scontrol and their own output files.
set -euo pipefail

STATE=/var/lib/vertdup-slurm-test
PIDS="$STATE/pids"

install_packages() {
  if command -v sbatch >/dev/null && command -v slurmctld >/dev/null && command -v munged >/dev/null; then
    return 0
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
}

start_cluster() {
  mkdir -p "$STATE"
  : > "$PIDS"
  local host cpus mem
  host=$(hostname)
  cpus=$(nproc)
  mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))

  # munge: a key readable by munge only, its directories owned by it, the daemon as munge.
  mkdir -p /etc/munge /var/log/munge /run/munge /var/lib/munge
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  chown -R munge:munge /etc/munge /var/log/munge /run/munge /var/lib/munge
  chmod 400 /etc/munge/munge.key
  if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged
  fi
  munge -n | unmunge >/dev/null
  pgrep -x munged >> "$PIDS"

  # batch_sched_delay=0: a job whose dependency has just finished starts within the controller's
  # 1-second loop instead of after the default 3 s, so that the tests' chains of 7–9 short jobs
  # do not spend most of their time waiting (a production cluster keeps its own setting).
  mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
  cat > /etc/slurm/slurm.conf <<CONF
ClusterName=vertdup-test
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  # A cluster left running (by an earlier test) is restarted with this configuration.
  pkill -x slurmd 2>/dev/null || true
  pkill -x slurmctld 2>/dev/null || true
  sleep 1
  /usr/sbin/slurmctld
  /usr/sbin/slurmd
  for _ in $(seq 1 60); do
    if sinfo -h -o '%T' 2>/dev/null | grep -qE '^idle'; then break; fi
    sleep 1
  done
  cat /run/slurmctld.pid /run/slurmd.pid >> "$PIDS"
  sinfo -h -o '%T' | grep -qE '^idle' || { echo "slurm node did not become idle" >&2; sinfo >&2; exit 1; }
  echo "slurm test cluster up: $(sinfo -h -o '%P %D %C %T')"
}

stop_cluster() {
  for name in slurmd slurmctld munged; do
    pkill -x "$name" 2>/dev/null || true
  done
  rm -f "$PIDS"
}

case "${1:-}" in
  install) install_packages ;;
  start) start_cluster ;;
  stop) stop_cluster ;;
  *) echo "usage: $0 install|start|stop" >&2; exit 2 ;;
esac
