#!/usr/bin/env bash
# Start a single-node SLURM cluster on this machine (slurmctld + slurmd on 127.0.0.1, munge auth),
# for tests/test_reproduce_slurm.py. Needs root and Debian's slurm-wlm and munge packages
# (installed here with apt-get when missing and INSTALL=1). Idempotent: a running cluster whose
# `sinfo` answers is left alone. Exit 0 when `sinfo` shows the node idle, non-zero otherwise.
# Stop it with tests/slurm/stop_local_slurm.sh.
set -euo pipefail
HOST=$(hostname -s)
CPUS=${SLURM_TEST_CPUS:-2}
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    if [ "${INSTALL:-0}" = 1 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
    else
        echo "slurm-wlm/munge not installed (run with INSTALL=1 to apt-get them)" >&2; exit 2
    fi
fi
if timeout 5 sinfo -h -o '%T' 2>/dev/null | grep -qE 'idle|mix|alloc'; then
    echo "local SLURM already running"; exit 0
fi
# munge: a fresh key owned by munge, daemon forced (no systemd here)
mkdir -p /etc/munge /var/log/munge /var/lib/munge /run/munge
if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown -R munge:munge /etc/munge /var/log/munge /var/lib/munge /run/munge
chmod 0700 /etc/munge; chmod 0400 /etc/munge/munge.key
pgrep -x munged >/dev/null || su -s /bin/sh munge -c "/usr/sbin/munged --force" || /usr/sbin/munged --force
# slurm
CONF=/etc/slurm
mkdir -p $CONF /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cat > $CONF/slurm.conf <<CONF
ClusterName=lejepa-test
SlurmctldHost=${HOST}(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
ReturnToService=2
MaxArraySize=10001
NodeName=${HOST} NodeAddr=127.0.0.1 CPUs=${CPUS} State=UNKNOWN
PartitionName=debug Nodes=${HOST} Default=YES MaxTime=INFINITE State=UP
CONF
cat > $CONF/cgroup.conf <<CONF
CgroupPlugin=cgroup/v1
CgroupAutomount=no
IgnoreSystemd=yes
CONF
pgrep -x slurmctld >/dev/null || /usr/sbin/slurmctld -c
pgrep -x slurmd >/dev/null || /usr/sbin/slurmd
for _ in $(seq 1 30); do
    if timeout 5 sinfo -h -o '%T' 2>/dev/null | grep -qE 'idle|mix|alloc'; then
        echo "local SLURM up: $(sinfo -h -o '%P %D %T %c')"; exit 0
    fi
    sleep 1
done
echo "local SLURM did not come up; logs:" >&2
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1
