#!/bin/sh
# A client written with curl's own retries: --retry 2 and a 10 s deadline per attempt. `keyed` as
# the first argument adds a new Idempotency-Key per call and --retry-all-errors (lost connections
# retried too, as a keyed client may). The answer goes to stdout: with -o /dev/null curl ends
# its retries at once ("Failed to truncate file").
for id in $SESSION_RESUME_SESSION_IDS; do
  if [ "$1" = keyed ]; then
    key=$(cat /proc/sys/kernel/random/uuid)
    out=$(curl -sS --retry 2 --retry-all-errors --max-time 10 -X POST \
      -H "Authorization: Bearer $SESSION_RESUME_API_KEY" -H "Idempotency-Key: $key" "$SESSION_RESUME_BASE_URL/v1/sessions/$id/resume" 2>&1)
  else
    out=$(curl -sS --retry 2 --max-time 10 -X POST \
      -H "Authorization: Bearer $SESSION_RESUME_API_KEY" "$SESSION_RESUME_BASE_URL/v1/sessions/$id/resume" 2>&1)
  fi
  echo "$id: $out"
done
