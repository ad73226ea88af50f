#!/usr/bin/env bash
# crawl_kill_resume.sh BIN CONFIG CHECKPOINT_DIR ACCESS_LOG KILL_AFTER_REQUESTS INSPECT_JSON
# bloomcrawl crawls CONFIG, checkpointing into CHECKPOINT_DIR, until the server's ACCESS_LOG holds
# KILL_AFTER_REQUESTS lines; it is then killed with SIGKILL (as a crash or the OOM killer would)
# and resumed (--resume) to the end. Between the two, `bloomcrawl inspect` of the checkpoint goes
# to INSPECT_JSON: its since_generation.in_flight_at_stop is what the resume fetches again. bench/crawl_bench.sh --kill-at-percent runs this under
# /usr/bin/time -v, whose peak RSS is then the larger of the two runs'.
set -uo pipefail
bin="$1" config="$2" checkpoint="$3" access_log="$4" kill_after="$5" inspect_json="$6"

rm -rf "$checkpoint"
"$bin" crawl --config "$config" --checkpoint-dir "$checkpoint" &
pid=$!
# Blocks on the log itself: sed returns at the log's KILL_AFTER_REQUESTS-th line, or when tail
# (--pid) ends because the crawl finished first. (Not awk: Debian's mawk waits for a full buffer.)
sed -n "${kill_after}q" < <(tail -F --pid="$pid" -n +1 "$access_log" 2>/dev/null)
kill -KILL "$pid" 2>/dev/null
wait "$pid"
if [ $? -eq 137 ]; then
  echo "crawl_kill_resume: killed $pid with SIGKILL after $(wc -l <"$access_log") server requests" >&2
else
  echo "crawl_kill_resume: the crawl ended before $kill_after server requests; no kill" >&2
fi
"$bin" inspect "$checkpoint" >"$inspect_json"
exec "$bin" crawl --config "$config" --checkpoint-dir "$checkpoint" --resume "$checkpoint"
