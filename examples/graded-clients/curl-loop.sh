#!/bin/sh
# A shell client: one curl per id with curl's own --retry 2 and a 10 s deadline per attempt,
# and no Idempotency-Key.
for id in $SESSION_RESUME_SESSION_IDS; do
  body=$(curl -sS --retry 2 --max-time 10 -X POST \
    -H "Authorization: Bearer $SESSION_RESUME_API_KEY" "$SESSION_RESUME_BASE_URL/v1/sessions/$id/resume" 2>&1)
  echo "$id: $body"
done
