#!/usr/bin/env python3
"""PyTorch's side of benchmarks/ddp_step: the sample model's training step in
one process with 2 threads on batch 64, and as 2 ranks with 1 thread each on
batch 32 (DistributedDataParallel over gloo on 127.0.0.1), and
torch.distributed.all_reduce on gloo from 1 KiB to 64 MiB of float32.

Reference only: not built, not tested. Run it with a Python that has torch
(Debian's python3-torch 1.13: /usr/bin/python3). build/benchmarks/ddp_step runs
its modes between its own, round after round; alone it does the same rounds
for PyTorch only.

  ddp_step_torch.py [rounds] [--rounds 3] [--steps 40] [--batch 64] [--ar-max-mib 64]
  ddp_step_torch.py single|ddp|allreduce ...   one configuration, '@' lines only

A step is zero_grad, forward, cross-entropy, backward and Adam (lr 1e-3), as
in ddp_step. The '@' lines are ddp_step's:
  @ step MEDIAN P10 P90 FWD BWD OPT COMM EXPOSED   (ms; COMM, EXPOSED 0 here)
  @ ar BYTES MICROSECONDS
"""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


def make_model():
    # ember's sample model (examples/train/model.cpp): the convs have no bias.
    blocks = []
    for c_in, c_out in ((3, 32), (32, 64), (64, 128)):
        blocks += [nn.Conv2d(c_in, c_out, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU()]
    return nn.Sequential(*blocks, nn.Flatten(), nn.Linear(128 * 4 * 4, 10))


def quantile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def time_steps(model, params, batch, steps, seed):
    adam = torch.optim.Adam(params, lr=1e-3)
    torch.manual_seed(100 + seed)
    x = torch.randn(batch, 3, 32, 32)
    y = torch.randint(0, 10, (batch,))
    step, fwd, bwd, opt = [], [], [], []
    for i in range(-5, steps):
        t0 = time.perf_counter()
        adam.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        adam.step()
        loss.item()
        t3 = time.perf_counter()
        if i >= 0:
            step.append((t3 - t0) * 1e3)
            fwd.append((t1 - t0) * 1e3)
            bwd.append((t2 - t1) * 1e3)
            opt.append((t3 - t2) * 1e3)
    return [quantile(step, 0.5), quantile(step, 0.1), quantile(step, 0.9),
            quantile(fwd, 0.5), quantile(bwd, 0.5), quantile(opt, 0.5), 0.0, 0.0]


def print_step(figures):
    print("@ step " + " ".join(f"{v:.4f}" for v in figures), flush=True)


def run_single(args):
    torch.set_num_threads(2)
    torch.manual_seed(1)
    model = make_model()
    print_step(time_steps(model, model.parameters(), args.batch, args.steps, 0))


def init_rank(args):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}",
                            rank=args.rank, world_size=2)


def run_ddp_rank(args):
    init_rank(args)
    torch.manual_seed(1)
    model = torch.nn.parallel.DistributedDataParallel(make_model())
    figures = time_steps(model, model.parameters(), args.batch // 2, args.steps, args.rank)
    if args.rank == 0:
        print_step(figures)
    dist.destroy_process_group()


def run_allreduce_rank(args):
    init_rank(args)
    size = 1024
    while size <= args.ar_max_mib << 20:
        t = torch.ones(size // 4)
        reps = max(5, min(200, (256 << 20) // size))  # as ddp_step: about 256 MiB per size
        for _ in range(3):
            dist.all_reduce(t)
        dist.barrier()
        us = []
        for _ in range(reps):
            t0 = time.perf_counter()
            dist.all_reduce(t)
            us.append((time.perf_counter() - t0) * 1e6)
        if args.rank == 0:
            print(f"@ ar {size} {quantile(us, 0.5):.3f}", flush=True)
        size *= 4
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_ranks(args, role):
    """Runs this script as 2 ranks of `role`; their output goes to ours."""
    port = str(free_port())
    env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
    common = ["--steps", str(args.steps), "--batch", str(args.batch), "--ar-max-mib", str(args.ar_max_mib),
              "--port", port]
    ranks = [subprocess.Popen([sys.executable, __file__, role, "--rank", str(r)] + common, env=env)
             for r in range(2)]
    codes = [p.wait(timeout=600) for p in ranks]
    if any(codes):
        sys.exit(f"{role}: ranks exited with {codes}")


def capture(mode, args):
    """This script's `mode` in a fresh process: its '@' lines."""
    out = subprocess.run([sys.executable, __file__, mode, "--steps", str(args.steps), "--batch", str(args.batch),
                          "--ar-max-mib", str(args.ar_max_mib)], check=True, capture_output=True, text=True).stdout
    return [line.split()[1:] for line in out.splitlines() if line.startswith("@ ")]


def print_row(config, f, ddp):
    print(f"  {'pytorch':<8} {config:<40} step {f[0]:6.2f} ms (p10 {f[1]:6.2f}, p90 {f[2]:6.2f}) | "
          f"fwd {f[3]:5.2f}  bwd {f[4]:5.2f}  adam {f[5]:5.2f}")


def run_rounds(args):
    """ddp_step's rounds and tables, for PyTorch alone."""
    single = f"1 process x 2 threads, batch {args.batch}"
    ranks = f"2 ranks x 1 thread, batch {args.batch // 2}"
    print(f"pytorch {torch.__version__}, sample model, input 3x32x32, global batch {args.batch}, Adam, "
          f"median of {args.steps} steps per round, {args.rounds} rounds")
    ratios, medians = [], {"single": [], "ddp": []}
    for r in range(1, args.rounds + 1):
        print(f"round {r}")
        s = [float(v) for v in capture("single", args)[0][1:]]
        print_row(single, s, False)
        d = [float(v) for v in capture("ddp", args)[0][1:]]
        print_row(ranks, d, True)
        medians["single"].append(s[0])
        medians["ddp"].append(d[0])
        ratios.append(f"  round {r}: PyTorch DDP / single {d[0] / s[0]:.3f} ({(d[0] / s[0] - 1) * 100:+.1f}%)")
    print("ratios, each within its round")
    print("\n".join(ratios))
    print(f"median over the rounds:  pytorch ddp {statistics.median(medians['ddp']):.2f} ms  "
          f"pytorch single {statistics.median(medians['single']):.2f} ms")
    times = {}
    for _ in range(args.rounds):
        for _, size, us in capture("allreduce", args):
            times.setdefault(int(size), []).append(float(us))
    print(f"allreduce, 2 ranks on 127.0.0.1, float32 SUM, median over {args.rounds} rounds "
          "(busbw = algbw x 2(n-1)/n)")
    print(f"  {'size':>11} | {'gloo/torch us':>13} {'busbw GB/s':>12}")
    for size, v in sorted(times.items()):
        us = statistics.median(v)
        print(f"  {size >> 10:7d} KiB | {us:13.1f} {size / (us * 1e-6) * 2 * (2 - 1) / 2 / 1e9:12.3f}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", nargs="?", default="rounds", choices=("rounds", "single", "ddp", "allreduce"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--batch", type=int, default=64, help="global batch; each rank takes half")
    p.add_argument("--ar-max-mib", type=int, default=64)
    p.add_argument("--rank", type=int, default=-1, help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.mode == "rounds":
        run_rounds(args)
    elif args.mode == "single":
        run_single(args)
    elif args.rank < 0:
        start_ranks(args, args.mode)
    else:
        (run_ddp_rank if args.mode == "ddp" else run_allreduce_rank)(args)


if __name__ == "__main__":
    main()
