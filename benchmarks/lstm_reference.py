#!/usr/bin/env python3
"""benchmarks/lstm_step in PyTorch eager, for comparing ember with it.

Not part of the build or the tests; run it with a Python that has torch.

  lstm_reference.py [--reps 20] [--threads 2]
"""
import argparse
import statistics
import time

import torch


def median_seconds(reps, f):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    batch, steps, input_size, hidden = 32, 50, 64, 128
    lstm = torch.nn.LSTM(input_size, hidden, num_layers=2)
    x = torch.randn(steps, batch, input_size, requires_grad=True)

    def train_step():
        lstm.zero_grad(set_to_none=True)
        x.grad = None
        output, _ = lstm(x)
        output.sum().backward()

    def forward():
        lstm(x)

    def eval_forward():
        with torch.no_grad():
            lstm(x)

    train_step()
    train_s = median_seconds(args.reps, train_step)
    forward_s = median_seconds(args.reps, forward)
    eval_s = median_seconds(args.reps, eval_forward)
    print(f"torch {torch.__version__} LSTM({input_size}, {hidden}, num_layers=2), input "
          f"({steps}, {batch}, {input_size}), {torch.get_num_threads()} threads, median of {args.reps} runs")
    print(f"  forward + backward  {train_s * 1e3:8.2f} ms")
    print(f"  forward (grad mode) {forward_s * 1e3:8.2f} ms")
    print(f"  forward (no grad)   {eval_s * 1e3:8.2f} ms")


if __name__ == "__main__":
    main()
