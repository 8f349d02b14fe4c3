#!/usr/bin/env bash
# Stop the cluster that start_local_slurm.sh started: wait (up to 60 s) until no job is left in the
# queue (a job whose result is written may still be completing its step), then stop slurmd,
# slurmctld and munged by their pid files.
set -u
if command -v squeue >/dev/null; then
    for _ in $(seq 1 60); do
        [ -z "$(timeout 5 squeue -h 2>/dev/null)" ] && ! pgrep -x slurmstepd >/dev/null && break
        sleep 1
    done
fi
for f in /run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid; do
    if [ -s "$f" ]; then kill "$(cat "$f")" 2>/dev/null || true; fi
done
for _ in $(seq 1 20); do
    pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null || break
    sleep 0.5
done
