"""A webhook receiver written with Python's standard library only, as many are written.

http.server.ThreadingHTTPServer handles each request in its own thread
(https://docs.python.org/3/library/http.server.html#http.server.ThreadingHTTPServer).
Modes (the witness suite grades each; expected verdicts are in receiver-witness.test.ts):
  --dedupe DB   record each event once in the sqlite3 file DB: INSERT OR IGNORE on a PRIMARY KEY
                inside BEGIN IMMEDIATE, so concurrent copies and other processes on the same file
                see one winner (https://www.sqlite.org/lang_conflict.html,
                https://www.sqlite.org/lang_transaction.html); answers {"received":true,"duplicate":…}
  (none)        processes every copy (counts kept in memory), answers {"received":true}
  --delay S     sleeps S seconds before answering 200
  --secret whsec_…  verifies Standard Webhooks signatures (HMAC-SHA256 of id.timestamp.body,
                timestamp within 5 minutes); a bad one is answered 401
GET /processed answers the --observe format: {"<event> <session id> <timestamp>": times processed}.
Prints "listening <port>" once bound to 127.0.0.1 (port 0: a free one).
"""
import argparse
import base64
import hashlib
import hmac
import json
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--dedupe")
parser.add_argument("--delay", type=float, default=0)
parser.add_argument("--secret")
args = parser.parse_args()

lock = threading.Lock()
memory_counts = {}


def db():
    conn = sqlite3.connect(args.dedupe, timeout=10, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    return conn


if args.dedupe:
    with db() as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS seen (key TEXT PRIMARY KEY)")
        conn.execute("CREATE TABLE IF NOT EXISTS processed (observe TEXT PRIMARY KEY, n INTEGER NOT NULL)")


def signature_ok(headers, body):
    msg_id, stamp, signatures = headers.get("webhook-id"), headers.get("webhook-timestamp"), headers.get("webhook-signature")
    if not (msg_id and stamp and signatures and stamp.isdigit()):
        return False
    if abs(time.time() - int(stamp)) > 300:
        return False
    key = base64.b64decode(args.secret.removeprefix("whsec_"))
    expected = base64.b64encode(hmac.new(key, f"{msg_id}.{stamp}.".encode() + body, hashlib.sha256).digest()).decode()
    return any(hmac.compare_digest(s.partition(",")[2], expected) for s in signatures.split(" ") if s.startswith("v1,"))


def identity(event):
    session = event.get("session")
    session_id = session.get("id") if isinstance(session, dict) else event.get("session_id")
    return f"{event.get('event', event.get('status'))} {session_id} {event.get('timestamp')}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def answer(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path != "/processed":
            return self.answer(404, {"error": "not_found"})
        if args.dedupe:
            with db() as conn:
                rows = conn.execute("SELECT observe, n FROM processed").fetchall()
            return self.answer(200, dict(rows))
        with lock:
            return self.answer(200, dict(memory_counts))

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        if args.delay:
            time.sleep(args.delay)
        if args.secret and not signature_ok(self.headers, body):
            return self.answer(401, {"error": "bad_signature"})
        try:
            event = json.loads(body)
        except ValueError:
            return self.answer(400, {"error": "not_json"})
        if not isinstance(event, dict):
            return self.answer(400, {"error": "not_an_object"})
        observe = identity(event)
        if not args.dedupe:
            with lock:
                memory_counts[observe] = memory_counts.get(observe, 0) + 1
            return self.answer(200, {"received": True})
        key = self.headers.get("webhook-id") or observe
        conn = db()
        try:
            conn.execute("BEGIN IMMEDIATE")
            first = conn.execute("INSERT OR IGNORE INTO seen (key) VALUES (?)", (key,)).rowcount == 1
            if first:
                conn.execute("INSERT INTO processed (observe, n) VALUES (?, 1) ON CONFLICT(observe) DO UPDATE SET n = n + 1", (observe,))
            conn.execute("COMMIT")
        finally:
            conn.close()
        return self.answer(200, {"received": True, "duplicate": not first})


class Server(ThreadingHTTPServer):
    # socketserver's listen backlog is 5 by default: a burst of 50 connections would wait on SYN retries.
    request_queue_size = 128
    daemon_threads = True


server = Server(("127.0.0.1", args.port), Handler)
print(f"listening {server.server_address[1]}", flush=True)
server.serve_forever()
