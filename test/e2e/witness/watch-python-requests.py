"""Traffic from Python requests (2.34) for the watch witness suite.

1. A resume retried by urllib3's Retry, as its documentation configures it
   (https://urllib3.readthedocs.io/en/stable/reference/urllib3.util.html#urllib3.util.Retry):
   POST is not in DEFAULT_ALLOWED_METHODS, so allowed_methods=None retries it;
   status_forcelist=[503]; respect_retry_after_header=True (the default) waits what Retry-After asks.
   total=2: three attempts in all. The last 503 is returned (raise_on_status=False).
2. One resume sent twice with the same Idempotency-Key (a client retrying by hand).
Usage: watch-python-requests.py <base url> <api key>
"""
import sys

import requests
from requests.adapters import HTTPAdapter
from urllib3.util import Retry

base, key = sys.argv[1], sys.argv[2]
auth = {"Authorization": f"Bearer {key}"}
session = requests.Session()
retry = Retry(total=2, status_forcelist=[503], allowed_methods=None, backoff_factor=0, raise_on_status=False)
session.mount("http://", HTTPAdapter(max_retries=retry))
busy = session.post(f"{base}/v1/sessions/sess_busy_1/resume", headers=auth, timeout=10)
print("busy", busy.status_code)
for _ in range(2):
    again = requests.post(f"{base}/v1/sessions/sess_paused_1/resume", headers={**auth, "Idempotency-Key": "witness-key-1"}, timeout=10)
    print("keyed", again.status_code)
