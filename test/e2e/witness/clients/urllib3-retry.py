"""A client written with urllib3 2.x's Retry, as its documentation shows it: POST made retryable
(allowed_methods=None), the policy's statuses forced, Retry-After respected, 2 retries, a 10 s
timeout per attempt. `keyed` as the first argument adds a new Idempotency-Key per call."""
import os
import sys
import uuid

import urllib3
from urllib3.util.retry import Retry

retry = Retry(
    total=2,
    backoff_factor=0.25,
    status_forcelist=[429, 500, 502, 503, 504],
    allowed_methods=None,
    respect_retry_after_header=True,
)
http = urllib3.PoolManager(retries=retry, timeout=urllib3.Timeout(connect=10, read=10))
keyed = sys.argv[1:] == ["keyed"]
base = os.environ["SESSION_RESUME_BASE_URL"]
for session_id in os.environ["SESSION_RESUME_SESSION_IDS"].split():
    headers = {"Authorization": "Bearer " + os.environ["SESSION_RESUME_API_KEY"]}
    if keyed:
        headers["Idempotency-Key"] = str(uuid.uuid4())
    try:
        response = http.request("POST", f"{base}/v1/sessions/{session_id}/resume", headers=headers)
        print(session_id, response.status, flush=True)
    except urllib3.exceptions.HTTPError as error:
        print(session_id, type(error).__name__, flush=True)
