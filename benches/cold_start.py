"""Cold start of the real `ask` binary: exec -> first /ask answered, with
its index fetched from moto (a real S3-protocol server) on loopback, through
cargo-lambda's Runtime API emulator; and peak RSS after that answer.

Each run is split by the binary's own "index loaded" log line (its arrival
time here, and the fetch_ms, decode_ms and init_ms it carries) into runtime
start (exec to main's first step), setup (config and the S3 client), S3
fetch, verify + decode, and the first query (log line to answer).

    python cold_start.py ASK_BINARY RUNS NAME=INDEX_FILE ... [NAME=exec:BINARY ...]
Prints one JSON line per index. NAME=exec:BINARY times another binary (a
hello-world Lambda) the same way, with no index and no phases. Needs
moto_server and cargo-lambda on PATH.
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

AUTH = "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, what):
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{what} did not listen on {port}")


def s3(method, port, path, body=b""):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body or None, method=method,
                                 headers={"Authorization": AUTH, "Content-Type": "application/octet-stream"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status


def peak_rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def main():
    ask, runs, specs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    moto_port = free_port()
    procs = [subprocess.Popen([os.environ.get("MOTO_SERVER", "moto_server"), "-H", "127.0.0.1", "-p", str(moto_port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        wait_port(moto_port, "moto_server")
        time.sleep(0.5)
        s3("PUT", moto_port, "/ask-cold")
        env = dict(os.environ,
                   AWS_ENDPOINT_URL_S3=f"http://127.0.0.1:{moto_port}", AWS_ACCESS_KEY_ID="test",
                   AWS_SECRET_ACCESS_KEY="test", AWS_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true",
                   ASK_S3_FORCE_PATH_STYLE="1", ASK_ENABLED="true", ASK_RATE_LIMIT_PER_MINUTE="1000000",
                   AWS_LAMBDA_FUNCTION_NAME="_",
                   AWS_LAMBDA_FUNCTION_VERSION="1", AWS_LAMBDA_FUNCTION_MEMORY_SIZE="256", RUST_LOG="info",
                   AWS_LAMBDA_LOG_FORMAT="json")
        for spec in specs:
            name, path = spec.split("=", 1)
            binary = ask
            if path.startswith("exec:"):
                binary, data = path[len("exec:"):], b""
            else:
                data = open(path, "rb").read()
                s3("PUT", moto_port, f"/ask-cold/{name}.idx", data)
                env["ASK_INDEX"] = f"s3://ask-cold/{name}.idx"
            times, rss, phases = [], [], []
            for _ in range(runs):
                # A fresh emulator each run: a killed runtime's pending poll
                # would swallow the next invocation.
                emu_port = free_port()
                env["AWS_LAMBDA_RUNTIME_API"] = f"http://127.0.0.1:{emu_port}/.rt"
                url = f"http://127.0.0.1:{emu_port}/lambda-url/_/ask?query=install&mode=list&streaming=false"
                emu = subprocess.Popen(["cargo", "lambda", "watch", "--only-lambda-apis", "-A", "127.0.0.1",
                                        "-P", str(emu_port)], cwd=repo,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                wait_port(emu_port, "cargo lambda watch")
                t0 = time.perf_counter()
                p = subprocess.Popen([binary], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                loaded = {}

                def watch(out=p.stdout, loaded=loaded):
                    for line in out:
                        if b"index loaded" in line and not loaded:
                            loaded["at"] = time.perf_counter()
                            loaded.update(json.loads(line)["fields"])
                threading.Thread(target=watch, daemon=True).start()
                with urllib.request.urlopen(url, timeout=60) as r:
                    r.read()
                    status = r.status
                t1 = time.perf_counter()
                times.append((t1 - t0) * 1e3)
                rss.append(peak_rss_kb(p.pid))
                p.kill()
                p.wait()
                emu.kill()
                emu.wait()
                if status != 200:
                    raise SystemExit(f"{name}: status {status}")
                if binary != ask:
                    continue
                for _ in range(100):
                    if loaded:
                        break
                    time.sleep(0.01)
                at = (loaded["at"] - t0) * 1e3
                phases.append({
                    "runtime_start": at - loaded["init_ms"],
                    "setup": loaded["init_ms"] - loaded["fetch_ms"] - loaded["decode_ms"],
                    "s3_fetch": loaded["fetch_ms"],
                    "decode": loaded["decode_ms"],
                    "first_query": (t1 - loaded["at"]) * 1e3,
                })
            q = lambda xs, f: sorted(xs)[min(len(xs) - 1, round((len(xs) - 1) * f))]
            print(json.dumps({"name": name, "index_bytes": len(data), "runs": runs,
                              "cold_ms_median": statistics.median(times), "cold_ms_p90": q(times, 0.9),
                              "cold_ms_min": min(times), "peak_rss_kb": max(rss),
                              "phases_p50": {k: q([ph[k] for ph in phases], 0.5) for k in phases[0]} if phases else None}),
                  flush=True)
    finally:
        for p in procs:
            p.kill()
            p.wait()


main()
