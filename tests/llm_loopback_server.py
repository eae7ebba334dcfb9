#!/usr/bin/env python3
"""A loopback OpenAI-compatible chat server for the pipeline's http tests
(tests/t1300-chaos.sh): it answers POST /v1/chat/completions from a table
of recorded answers, so a run with LLM=http repeats a recorded run exactly.

    llm_loopback_server.py ANSWERS PORT_FILE LOG [--port P]
                           [--kill-after N --kill-delay S --pgid-file F]
                           [--delay S --in-flight-file F]
    llm_loopback_server.py --answers PF_INSPECT LLM_DIR > ANSWERS

ANSWERS is a JSON list of {"key", "response", "usage"}, key being
request_key(messages) of the recorded request. The server binds 127.0.0.1
(port P, or a free one) and writes the port to PORT_FILE. After sending each
answer in full it appends "KEY\\n" to LOG; an unknown request gets HTTP 500
and "unknown KEY\\n". With --kill-after N, S seconds after the N-th answer
in LOG (counted over restarts) it sends SIGKILL to the process group whose
id is in F: a client killed right after a completed call. With --delay S
each answer waits S seconds first, and --in-flight-file F holds the most
requests the server had open at once ("MAX\\n", rewritten as it grows):
a test of the clients' limit on requests in flight. --answers writes
the table of a run's recorded calls (its llm/ folder, read with pf-inspect),
each with the transcript's file name ("file").
"""
import hashlib
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time


def request_key(messages):
    text = json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def answers(pf_inspect, llm_dir):
    out = []
    for name in sorted(os.listdir(llm_dir)):
        t = json.loads(subprocess.run([pf_inspect, os.path.join(llm_dir, name)], capture_output=True,
                                      check=True, text=True).stdout)
        out.append({"key": request_key(t["request"]["messages"]), "file": name, "response": t["response"],
                    "usage": t["usage"]})
    json.dump(out, sys.stdout)


def main():
    args = sys.argv[1:]
    if args[:1] == ["--answers"]:
        answers(*args[1:3])
        return
    opt = {}
    while len(args) > 3 and args[-2].startswith("--"):
        opt[args[-2]] = args[-1]
        args = args[:-2]
    answers_path, port_file, log_path = args
    table = {a["key"]: a for a in json.load(open(answers_path))}
    lock = threading.Lock()
    answered = [sum(1 for line in open(log_path) if not line.startswith("unknown"))
                if os.path.exists(log_path) else 0]
    kill_after = int(opt.get("--kill-after", "0"))
    delay = float(opt.get("--delay", "0"))
    flight = [0, 0]  # open now, the most at once

    def in_flight(d):
        with lock:
            flight[0] += d
            if flight[0] > flight[1]:
                flight[1] = flight[0]
                if "--in-flight-file" in opt:
                    with open(opt["--in-flight-file"] + ".tmp", "w") as f:
                        f.write("%d\n" % flight[1])
                    os.replace(opt["--in-flight-file"] + ".tmp", opt["--in-flight-file"])

    def log(line):
        with lock:
            with open(log_path, "a") as f:
                f.write(line + "\n")
            if not line.startswith("unknown"):
                answered[0] += 1
                return answered[0]
        return 0

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_POST(self):
            in_flight(1)
            try:
                self.answer()
            finally:
                in_flight(-1)

        def answer(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            if delay:
                time.sleep(delay)
            key = request_key(body.get("messages"))
            a = table.get(key)
            if a is None:
                out, status = {"error": {"message": "loopback: no recorded answer for " + key}}, 500
            else:
                out = {"id": key, "object": "chat.completion", "model": body.get("model"),
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": a["response"]}}],
                       "usage": a["usage"]}
                status = 200
            data = json.dumps(out).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
            n = log(key if a is not None else "unknown " + key)
            if kill_after and n == kill_after:
                time.sleep(float(opt.get("--kill-delay", "0")))
                try:
                    os.killpg(int(open(opt["--pgid-file"]).read()), signal.SIGKILL)
                except (OSError, ValueError):
                    pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", int(opt.get("--port", "0"))), Handler)
    with open(port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.replace(port_file + ".tmp", port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
