#!/usr/bin/env python3
"""The sample trainer's recipe in PyTorch eager, for measuring ember against it.

Not part of the build or the tests: run it with a Python that has torch (and
numpy), next to ember's benchmarks/train_step and examples/train.

  step mode: the model (design.md section 8) on one random batch, Adam lr 1e-3;
             prints the first step, the median training step and the median
             eval forward under no_grad, as benchmarks/train_step does.
  epoch mode: one epoch of Fashion-MNIST (IDX files, .gz or not) with the
             trainer's defaults (batch 64, shuffle, Normalize(0.5, 0.5), no
             augmentation), then the test accuracy; prints the training time.

             With --amp bf16 (fp16: CUDA) the forward and the loss, and the eval
             forward, run under torch.autocast, as benchmarks/train_step --amp.

  pytorch_reference.py step  [--device cpu|cuda] [--threads 2] [--channels 3] [--size 32] [--steps 60]
                             [--amp off|bf16|fp16]
  pytorch_reference.py epoch [--device cpu|cuda] [--threads 2] [--data /usr/share/datasets/fashion-mnist]
"""
import argparse
import contextlib
import gzip
import os
import statistics
import struct
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_model(channels):
    blocks = []
    for c_in, c_out in ((channels, 32), (32, 64), (64, 128)):
        blocks += [nn.Conv2d(c_in, c_out, 3, stride=2, padding=1), nn.BatchNorm2d(c_out), nn.ReLU()]
    return nn.Sequential(*blocks, nn.Flatten(), nn.Linear(128 * 4 * 4, 10))


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def step_mode(args, device):
    torch.manual_seed(1)
    model = make_model(args.channels).to(device)
    adam = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(args.batch, args.channels, args.size, args.size, device=device)
    y = torch.randint(0, 10, (args.batch,), device=device)

    def amp():
        if args.amp == "off":
            return contextlib.nullcontext()
        return torch.autocast(device.type, dtype=torch.bfloat16 if args.amp == "bf16" else torch.float16)

    def train_step():
        with amp():
            loss = F.cross_entropy(model(x), y)
        adam.zero_grad()
        loss.backward()
        adam.step()
        return loss.item()

    t = time.perf_counter()
    train_step()
    first = time.perf_counter() - t
    for _ in range(3):
        train_step()
    steps = []
    for _ in range(args.steps):
        t = time.perf_counter()
        train_step()
        steps.append(time.perf_counter() - t)
    model.eval()
    evals = []
    with torch.no_grad(), amp():
        for _ in range(args.steps):
            t = time.perf_counter()
            model(x).sum().item()
            evals.append(time.perf_counter() - t)
    print(f"pytorch {torch.__version__}, {device}, {torch.get_num_threads()} threads, amp {args.amp}, batch {args.batch}, "
          f"input {args.channels}x{args.size}x{args.size}: first step {first * 1e3:.1f} ms | "
          f"step {statistics.median(steps) * 1e3:.2f} ms | eval fwd {statistics.median(evals) * 1e3:.2f} ms")


def read_idx(path):
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        path += ".gz"
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic, count = struct.unpack(">II", data[:8])
    if magic == 2049:
        return np.frombuffer(data, np.uint8, count, 8)
    rows, cols = struct.unpack(">II", data[8:16])
    return np.frombuffer(data, np.uint8, count * rows * cols, 16).reshape(count, 1, rows, cols)


def load_split(data_dir, prefix):
    images = read_idx(os.path.join(data_dir, f"{prefix}-images-idx3-ubyte"))
    labels = read_idx(os.path.join(data_dir, f"{prefix}-labels-idx1-ubyte"))
    x = (torch.from_numpy(images.astype(np.float32)) / 255 - 0.5) / 0.5
    return x, torch.from_numpy(labels.astype(np.int64))


def epoch_mode(args, device):
    torch.manual_seed(1)
    train_x, train_y = load_split(args.data, "train")
    test_x, test_y = load_split(args.data, "t10k")
    model = make_model(1).to(device)
    adam = torch.optim.Adam(model.parameters(), lr=1e-3)
    order = torch.randperm(len(train_x))
    model.train()
    sync(device)
    t = time.perf_counter()
    for b in range(0, len(order), args.batch):
        idx = order[b:b + args.batch]
        x, y = train_x[idx].to(device), train_y[idx].to(device)
        loss = F.cross_entropy(model(x), y)
        adam.zero_grad()
        loss.backward()
        adam.step()
        loss.item()  # the progress bar's running loss, as the trainer reads it
    sync(device)
    seconds = time.perf_counter() - t
    model.eval()
    correct = 0
    with torch.no_grad():
        for b in range(0, len(test_x), 1000):
            logits = model(test_x[b:b + 1000].to(device))
            correct += (logits.argmax(1).cpu() == test_y[b:b + 1000]).sum().item()
    print(f"pytorch {torch.__version__}, {device}, {torch.get_num_threads()} threads: "
          f"1 epoch of fashion-mnist in {seconds:.1f} s ({len(order) / seconds:.0f} images/s), "
          f"test accuracy {100 * correct / len(test_x):.2f}%")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=("step", "epoch"))
    p.add_argument("--device", default="cpu")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--channels", type=int, default=3)
    p.add_argument("--size", type=int, default=32)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--amp", choices=("off", "bf16", "fp16"), default="off")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    (step_mode if args.mode == "step" else epoch_mode)(args, device)


if __name__ == "__main__":
    main()
