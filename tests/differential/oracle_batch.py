#!/usr/bin/env python3
"""Batch front end for ../shared/oracle/bpf-oracle.

bpf-oracle answers one spec per process, and starting Python here costs
~0.4 s, which would make a 10,000-program differential run take an hour.
This driver imports the oracle itself (its own functions, unchanged) and
answers one JSON spec per input line with one JSON result per output line,
so the kernel sees exactly what bpf-oracle would send it.
"""
import importlib.machinery
import importlib.util
import io
import json
import os
import sys
import contextlib

ORACLE = os.environ.get(
    "BPF_ORACLE",
    os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "oracle", "bpf-oracle"),
)

loader = importlib.machinery.SourceFileLoader("bpf_oracle", ORACLE)
spec = importlib.util.spec_from_loader("bpf_oracle", loader)
oracle = importlib.util.module_from_spec(spec)
loader.exec_module(oracle)


def answer(line):
    # Run the oracle's own main() on the spec, capturing what it prints.
    buf = io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(line)
    try:
        with contextlib.redirect_stdout(buf):
            oracle.main(["bpf-oracle", "-"])
    except Exception as e:  # a bad spec: report it instead of dying
        return json.dumps({"available": True, "accepted": False, "error": "oracle: %s" % e,
                           "errno": -1, "verifier_log": "", "insns_processed": None, "runs": []})
    finally:
        sys.stdin = old_stdin
    out = buf.getvalue().strip()
    return out if out else json.dumps({"available": False, "error": "oracle printed nothing"})


def pin_to_one_cpu():
    # BPF_PROG_TEST_RUN runs the program on the calling thread's CPU. Pinned,
    # every run lands on the same CPU, so per-CPU map dumps are comparable
    # between two loads (ours and clang's) and with our VM's CPU 0.
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[0]})
    except (AttributeError, OSError):
        pass


def main():
    pin_to_one_cpu()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        sys.stdout.write(answer(line) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
