#!/usr/bin/env bash
# Stop the daemons that start_local_slurm.sh started (by pid file; munged by its pid file).
set -u
for f in /run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid; do
    if [ -s "$f" ]; then kill "$(cat "$f")" 2>/dev/null || true; fi
done
