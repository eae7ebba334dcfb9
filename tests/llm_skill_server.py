#!/usr/bin/env python3
"""A loopback OpenAI-compatible chat server of a given skill, for the
backbone-mixture test (tests/t0790-backbone-mix.sh):

    llm_skill_server.py --skill good|poor|flaky --seed N --spec TEMPLATE
                        --port-file F --log L

It binds 127.0.0.1 on a free port and writes the port to F. It answers
POST /v1/chat/completions:
  - a proposal (the prompt's "Limits: ... N steps at low fidelity") with an
    AlgorithmSpec built on TEMPLATE (a valid spec of the PDE, e.g. `pf-spec
    example`), its stages summing to N steps:
      good   a sensible design (a tanh or sin MLP of depth 3, width 24..40,
             1,024 Sobol or Halton points, Adam at lr 3e-3..1e-2), varied by the
             request and the seed so that escape generations differ;
      poor   a valid but bad one: one hidden layer of width 2 and Adam at
             lr 10 (the largest allowed), which throws the output's scale
             far off or diverges;
    (every design takes 1,024 interior and 256 boundary points, within the
    quick and smoke budgets' 2,048)
      flaky  answers after 0.3 s; half of its answers (a seeded draw per
             request) are cut-off JSON, the others a design with a tiny
             learning rate (1e-5);
  - a posterior summary ("Write the updated run memory") with a few lines
    of prose.
Each answer appends one line "SKILL KIND" to L (KIND: spec, invalid or
memory), written before the answer is sent.
"""
import argparse
import copy
import hashlib
import http.server
import os
import json
import random
import re
import threading
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skill", required=True, choices=["good", "poor", "flaky"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--spec", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    a = ap.parse_args()
    template = json.load(open(a.spec))
    lock = threading.Lock()

    def design(rng, steps):
        s = copy.deepcopy(template)
        arch = s.setdefault("architecture", {})
        opt = {"optimizer": "adam", "steps": steps}
        s["sampling"] = {"interior": 1024, "boundary": 256, "method": "sobol"}
        if a.skill == "good":
            arch.update({"type": "mlp", "depth": 3, "width": rng.choice([24, 32, 40]),
                         "activation": rng.choice(["tanh", "sin"])})
            s["sampling"]["method"] = rng.choice(["sobol", "halton"])
            opt["lr"] = rng.choice([3e-3, 5e-3, 1e-2])
        elif a.skill == "poor":
            arch.update({"type": "mlp", "depth": 1, "width": 2, "activation": "tanh"})
            opt["lr"] = 10.0
        else:
            arch.update({"type": "mlp", "depth": 2, "width": 16, "activation": "tanh"})
            opt["lr"] = 1e-5
        s["optimization"] = {"stages": [opt]}
        return s

    def answer(body):
        msgs = body.get("messages") or []
        text = "\n".join(m.get("content") or "" for m in msgs)
        key = hashlib.sha256(json.dumps(msgs, sort_keys=True).encode()).hexdigest()
        rng = random.Random("%d:%s:%s" % (a.seed, a.skill, key))
        if "Write the updated run memory" in msgs[-1].get("content", ""):
            return "memory", ("Run memory (%s server): the designs so far were trained; keep what worked, "
                              "drop what diverged." % a.skill)
        m = re.search(r"([0-9][0-9,]*) steps at low fidelity", text)
        steps = int(m.group(1).replace(",", "")) if m else 1000
        if a.skill == "flaky":
            time.sleep(0.3)
            if rng.random() < 0.5:
                return "invalid", "Here is my design:\n```json\n{\"architecture\": {\"type\": \"mlp\", \"depth\": "
        spec = design(rng, steps)
        return "spec", "A %s design.\n```json\n%s\n```\n" % (a.skill, json.dumps(spec, indent=1))

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            kind, content = answer(body)
            out = {"id": "x", "object": "chat.completion", "model": body.get("model"),
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content}}],
                   "usage": {"prompt_tokens": len(json.dumps(body)) // 4, "completion_tokens": len(content) // 4}}
            data = json.dumps(out).encode()
            with lock:
                with open(a.log, "a") as f:
                    f.write("%s %s\n" % (a.skill, kind))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(a.port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])

    os.replace(a.port_file + ".tmp", a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
