"""Test driver (templates parity and work-budget tests): loads a rendered
interceptor.py and answers many calls in one process.

usage: python3 interceptor_driver.py RENDERED_INTERCEPTOR  < {"mode":..., ...}

mode "payloads": {"calls":[{"client":C,"payload":TEXT}]} -> [[stdout, stderr, exit]...]
mode "cost": {"commands":[TEXT...], "reps":N} -> [seconds of process CPU per judge_text call...]
"""
import importlib.util
import json
import sys
import time

spec = importlib.util.spec_from_file_location("rendered_interceptor", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
req = json.loads(sys.stdin.buffer.read().decode("utf-8"))
if req["mode"] == "payloads":
    out = [list(mod.judge_payload(c["client"], c["payload"].encode("utf-8", "surrogatepass"))) for c in req["calls"]]
elif req["mode"] == "cost":
    out = []
    for i, cmd in enumerate(req["commands"]):
        sys.stderr.write("start %d\n" % i)
        sys.stderr.flush()
        best = None
        for _ in range(3):
            t0 = time.process_time()
            for _ in range(req["reps"]):
                mod.judge_text(cmd)
            dt = (time.process_time() - t0) / req["reps"]
            best = dt if best is None or dt < best else best
        out.append(best)
else:
    raise SystemExit("unknown mode")
sys.stdout.write(json.dumps(out))
