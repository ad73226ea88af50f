#!/usr/bin/env bash
# Prints the markdown "Machine" section every bench/results/*.md starts with.
echo "## Machine"
echo
echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
echo "- Memory: $(free -g | awk '/^Mem:/ {print $2}') GiB"
echo "- Load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (shared machine: compare ratios, not absolute rates)"
echo "- Date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "- Commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "- Compiler: $(c++ --version | head -1)"
