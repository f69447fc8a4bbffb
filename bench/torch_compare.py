#!/usr/bin/env python3
"""Runs the cases of an onegpu-bench output through PyTorch on the same GPU and prints, per row,
our time, PyTorch's and the ratio ours / PyTorch (lower is better).

    onegpu-bench > ours.jsonl
    python3 bench/torch_compare.py ours.jsonl --json out.jsonl --markdown out.md

PyTorch is timed like the harness times itself: median of 30 repetitions after 5 warm-up runs, on
random data, float32 without TF32. Rows of one op, dtype and shape share one PyTorch timing: the
float32 GEMM rows on float16 hardware (variant "gemm.f32split.…") are compared with PyTorch's
float32 product, TF32 off, as the exact float32 rows are.
"""
import argparse
import json
import statistics
import sys

import torch
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
DEV = "cuda"
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def bench(fn, reps=30, warm=5):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)


def torch_gemm(row):
    shape = row["shape"]
    nk = shape.endswith("-nk")
    m, n, k = (int(x) for x in shape.removesuffix("-nk").split("x"))
    dt = DTYPES[row["dtype"]]
    a = torch.randn(m, k, device=DEV, dtype=dt)
    if nk:
        w = torch.randn(n, k, device=DEV, dtype=dt)
        return bench(lambda: F.linear(a, w))
    b = torch.randn(k, n, device=DEV, dtype=dt)
    return bench(lambda: a @ b)


def dims(row):
    return [int(x) for x in row["shape"].split("x")]


def torch_sum(row):
    x = torch.randn(dims(row)[0], device=DEV)
    return bench(lambda: x.sum())


def torch_sum_axis0(row):
    x = torch.randn(*dims(row), device=DEV)
    return bench(lambda: x.sum(0))


def torch_softmax(row):
    x = torch.randn(*dims(row), device=DEV)
    return bench(lambda: torch.softmax(x, -1))


def torch_layernorm(row):
    r, c = dims(row)
    x = torch.randn(r, c, device=DEV)
    w = torch.randn(c, device=DEV)
    b = torch.randn(c, device=DEV)
    return bench(lambda: F.layer_norm(x, (c,), w, b))


def torch_rmsnorm(row):
    r, c = dims(row)
    x = torch.randn(r, c, device=DEV)
    w = torch.randn(c, device=DEV)
    return bench(lambda: F.rms_norm(x, (c,), w))


def torch_argmax(row):
    x = torch.randn(*dims(row), device=DEV)
    return bench(lambda: x.argmax(-1))


def torch_add(row):
    x = torch.randn(*dims(row), device=DEV)
    y = torch.randn(*dims(row), device=DEV)
    return bench(lambda: x + y)


def torch_add_bias(row):
    r, c = dims(row)
    x = torch.randn(r, c, device=DEV)
    b = torch.randn(c, device=DEV)
    return bench(lambda: x + b)


def torch_gelu(row):
    x = torch.randn(*dims(row), device=DEV)
    return bench(lambda: F.gelu(x))


def torch_where(row):
    x = torch.randn(*dims(row), device=DEV)
    y = torch.randn(*dims(row), device=DEV)
    c = x > 0
    return bench(lambda: torch.where(c, x, y))


def torch_add_int64(row):
    x = torch.randint(-2**40, 2**40, (dims(row)[0],), device=DEV, dtype=torch.int64)
    y = torch.randint(-2**40, 2**40, (dims(row)[0],), device=DEV, dtype=torch.int64)
    return bench(lambda: x + y)


def torch_chain(row):
    chain, n = dims(row)
    x, y = torch.randn(n, device=DEV), torch.randn(n, device=DEV)
    if row["op"] == "dispatch_chain_dependent":
        def run():
            for _ in range(chain):
                x.add_(y)
        return bench(run)
    outs = [torch.empty(n, device=DEV) for _ in range(chain)]
    def run():
        for o in outs:
            torch.add(x, y, out=o)
    return bench(run)


def gather_shapes(row):
    return [[int(x) for x in part.split("x")] for part in row["shape"].split("_") if not part.startswith("axis")]


def torch_embedding(row):
    (vocab, width), (rows,) = gather_shapes(row)
    table = torch.randn(vocab, width, device=DEV)
    idx = torch.randint(0, vocab, (rows,), device=DEV)
    return bench(lambda: torch.index_select(table, 0, idx))


def torch_gather_axis1(row):
    data, (k,) = gather_shapes(row)
    x = torch.randn(*data, device=DEV)
    idx = torch.randint(0, data[1], (k,), device=DEV)
    return bench(lambda: torch.index_select(x, 1, idx))


def torch_gather_elements(row):
    data, ishape = gather_shapes(row)
    x = torch.randn(*data, device=DEV)
    idx = torch.randint(0, data[1], tuple(ishape), device=DEV)
    return bench(lambda: torch.gather(x, 1, idx))


def torch_gather_nd(row):
    data, (t, k) = gather_shapes(row)
    x = torch.randn(*data, device=DEV)
    idx = torch.stack([torch.randint(0, data[c], (t,), device=DEV) for c in range(k)])
    return bench(lambda: x[tuple(idx)])


def torch_transpose(row):
    r, c = dims(row)
    x = torch.randn(r, c, device=DEV, dtype=DTYPES[row["dtype"]])
    return bench(lambda: x.t().contiguous())


def torch_heads(row):
    # head_split: [b, s, h, d] -> [b, h, s, d]; head_merge: [b, h, s, d] -> [b, s, h, d]
    x = torch.randn(*dims(row), device=DEV, dtype=DTYPES[row["dtype"]])
    return bench(lambda: x.permute(0, 2, 1, 3).contiguous())


def torch_nchw_to_nhwc(row):
    x = torch.randn(*dims(row), device=DEV, dtype=DTYPES[row["dtype"]])
    return bench(lambda: x.permute(0, 2, 3, 1).contiguous())


def torch_concat(row):
    k, r, c = dims(row)
    xs = [torch.randn(r, c, device=DEV, dtype=DTYPES[row["dtype"]]) for _ in range(k)]
    return bench(lambda: torch.cat(xs, dim=1))


def torch_slice_step2(row):
    r, c = dims(row)
    x = torch.randn(r, c, device=DEV, dtype=DTYPES[row["dtype"]])
    return bench(lambda: x[:, ::2].contiguous())


def torch_expand_rows(row):
    r, c = dims(row)
    x = torch.randn(1, c, device=DEV, dtype=DTYPES[row["dtype"]])
    return bench(lambda: x.expand(r, c).contiguous())


def torch_scatter_add(row):
    n, m = (int(x) for x in row["shape"].split("->"))
    out = torch.randn(m, device=DEV)
    upd = torch.randn(n, device=DEV)
    if row["op"] == "scatter_add_permutation":
        idx = torch.randperm(n, device=DEV)
    else:
        idx = torch.randint(0, m, (n,), device=DEV)
    return bench(lambda: out.scatter_add_(0, idx, upd))


def torch_scatter_nd_rows(row):
    size, fresh = row["shape"].split("+")
    rows, width = (int(x) for x in size.split("x"))
    fresh = int(fresh)
    cache = torch.randn(rows, width, device=DEV, dtype=DTYPES[row["dtype"]])
    upd = torch.randn(fresh, width, device=DEV, dtype=DTYPES[row["dtype"]])
    idx = torch.arange(rows // 2, rows // 2 + fresh, device=DEV)
    return bench(lambda: cache.index_put_((idx,), upd))


def torch_int_mm(row):
    # torch._int_mm: int8 x int8 -> int32; needs M > 16 (and K, N multiples of 8), so smaller rows get
    # no PyTorch time. qlinear_matmul adds the float scaling and bias as PyTorch would run them.
    m, n, k = dims(row)
    if m <= 16:
        return 0.0
    a = torch.randint(-128, 128, (m, k), device=DEV, dtype=torch.int8)
    b = torch.randint(-128, 128, (k, n), device=DEV, dtype=torch.int8)
    if row["op"] == "matmul_integer":
        return bench(lambda: torch._int_mm(a, b))
    scale = torch.rand(n, device=DEV)
    bias = torch.randn(n, device=DEV)
    return bench(lambda: torch._int_mm(a, b).float() * scale + bias)


def torch_attention(row):
    # shape: "<name> b<batch> h<heads>/<kv heads> q<query> k<keys> d<head dim>"; causal rows name it.
    name, *fields = row["shape"].split()
    f = {m[0]: m[1:] for m in fields}
    b, (h, kvh), q, k, d = int(f["b"]), map(int, f["h"].split("/")), int(f["q"]), int(f["k"]), int(f["d"])
    dt = DTYPES[row["dtype"]]
    xq = torch.randn(b, h, q, d, device=DEV, dtype=dt)
    xk = torch.randn(b, kvh, k, d, device=DEV, dtype=dt)
    xv = torch.randn(b, kvh, k, d, device=DEV, dtype=dt)
    causal = "causal" in name
    return bench(lambda: F.scaled_dot_product_attention(xq, xk, xv, is_causal=causal and q > 1, enable_gqa=kvh != h))


def torch_quantize_linear(row):
    x = torch.randn(*dims(row), device=DEV)
    s, z = 0.0173, 128.0
    return bench(lambda: torch.clamp(torch.round(x / s) + z, 0, 255).to(torch.uint8))


def torch_dequantize_linear(row):
    x = torch.randint(0, 256, dims(row), device=DEV, dtype=torch.uint8)
    s, z = 0.0173, 128
    return bench(lambda: (x.to(torch.int32) - z).to(torch.float32) * s)


def torch_dynamic_quantize_linear(row):
    x = torch.randn(*dims(row), device=DEV)

    def run():
        lo = torch.clamp(x.min(), max=0.0)
        hi = torch.clamp(x.max(), min=0.0)
        s = (hi - lo) / 255.0
        s = torch.where(hi == lo, torch.ones_like(s), s)
        z = torch.clamp(torch.round(0.0 - lo / s), 0, 255)
        return torch.clamp(torch.round(x / s) + z, 0, 255).to(torch.uint8), s, z.to(torch.uint8)
    return bench(run)


def conv_fields(shape):
    # "n<batch> c<in>><out> <h>x<w> k<kernel> s<stride> p<pad> g<groups>"
    f = shape.split()[:7]
    n = int(f[0][1:])
    cin, cout = (int(v) for v in f[1][1:].split(">"))
    h, w = (int(v) for v in f[2].split("x"))
    return n, cin, cout, h, w, int(f[3][1:]), int(f[4][1:]), int(f[5][1:]), int(f[6][1:])


def torch_conv(row):
    n, cin, cout, h, w, k, s, p, g = conv_fields(row["shape"])
    dt = DTYPES[row["dtype"]]
    x = torch.randn(n, cin, h, w, device=DEV, dtype=dt)
    wt = torch.randn(cout, cin // g, k, k, device=DEV, dtype=dt)
    return bench(lambda: F.conv2d(x, wt, stride=s, padding=p, groups=g))


def torch_conv_integer(row):
    # PyTorch has no int8 convolution on CUDA: the same layer as a float16 cuDNN conv2d, a reference
    # time for the shape, not the same arithmetic. A height of 1 is a 1-D layer (kernel 1 x k).
    n, cin, cout, h, w, k, s, p, g = conv_fields(row["shape"])
    x = torch.randn(n, cin, h, w, device=DEV, dtype=torch.float16)
    kh, sh, ph = (1, 1, 0) if h == 1 else (k, s, p)
    wt = torch.randn(cout, cin // g, kh, k, device=DEV, dtype=torch.float16)
    return bench(lambda: F.conv2d(x, wt, stride=(sh, s), padding=(ph, p), groups=g))


def torch_conv_transpose(row):
    n, cin, cout, h, w, k, s, p, g = conv_fields(row["shape"])
    dt = DTYPES[row["dtype"]]
    x = torch.randn(n, cin, h, w, device=DEV, dtype=dt)
    wt = torch.randn(cin, cout // g, k, k, device=DEV, dtype=dt)
    return bench(lambda: F.conv_transpose2d(x, wt, stride=s, padding=1, groups=g))


# ResNet-50's convolutions as bench/conv_cases.cpp lists them: (in, out, size, kernel, stride, count).
RESNET50 = [(3, 64, 224, 7, 2, 1), (64, 64, 56, 1, 1, 1), (256, 64, 56, 1, 1, 2), (64, 64, 56, 3, 1, 3),
            (64, 256, 56, 1, 1, 4), (256, 128, 56, 1, 1, 1), (128, 128, 56, 3, 2, 1), (256, 512, 56, 1, 2, 1),
            (512, 128, 28, 1, 1, 3), (128, 128, 28, 3, 1, 3), (128, 512, 28, 1, 1, 4), (512, 256, 28, 1, 1, 1),
            (256, 256, 28, 3, 2, 1), (512, 1024, 28, 1, 2, 1), (1024, 256, 14, 1, 1, 5), (256, 256, 14, 3, 1, 5),
            (256, 1024, 14, 1, 1, 6), (1024, 512, 14, 1, 1, 1), (512, 512, 14, 3, 2, 1), (1024, 2048, 14, 1, 2, 1),
            (2048, 512, 7, 1, 1, 2), (512, 512, 7, 3, 1, 2), (512, 2048, 7, 1, 1, 3)]


def torch_conv_model(row):
    n = int(row["shape"].split()[1][1:])
    dt = DTYPES[row["dtype"]]
    layers = []
    for cin, cout, size, k, s, count in RESNET50:
        x = torch.randn(n, cin, size, size, device=DEV, dtype=dt)
        wt = torch.randn(cout, cin, k, k, device=DEV, dtype=dt)
        layers += [(x, wt, s, (k - 1) // 2)] * count

    def run():
        for x, wt, s, p in layers:
            F.conv2d(x, wt, stride=s, padding=p)
    return bench(run)




def nchw(row):
    return [int(x) for x in row["shape"].split()[0].split("x")]


def torch_max_pool(row):
    x = torch.randn(*nchw(row), device=DEV, dtype=DTYPES[row["dtype"]])
    return bench(lambda: F.max_pool2d(x, 3, stride=2, padding=1))


def torch_global_average_pool(row):
    x = torch.randn(*nchw(row), device=DEV, dtype=DTYPES[row["dtype"]])
    return bench(lambda: F.adaptive_avg_pool2d(x, 1))


def torch_resize_bilinear(row):
    x = torch.randn(*nchw(row), device=DEV, dtype=DTYPES[row["dtype"]])
    return bench(lambda: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False))




def torch_recurrent(row):
    # shape: "<forward|bidirectional>.seq<S>.batch<B>.<input>x<hidden>"; cuDNN's LSTM or GRU with
    # both biases, returning y, y_h (and y_c), like the onegpu rows.
    direction, seq, batch, sizes = row["shape"].split(".")
    s, b = int(seq[3:]), int(batch[5:])
    i, h = (int(v) for v in sizes.split("x"))
    dt = DTYPES[row["dtype"]]
    cls = torch.nn.LSTM if row["op"] == "lstm" else torch.nn.GRU
    layer = cls(i, h, bidirectional=direction == "bidirectional").to(DEV, dt)
    x = torch.randn(s, b, i, device=DEV, dtype=dt)
    with torch.no_grad():
        return bench(lambda: layer(x))


RUNNERS = {"conv": torch_conv, "conv_integer": torch_conv_integer, "conv_transpose": torch_conv_transpose, "conv_model": torch_conv_model, "attention": torch_attention, "dispatch_chain_dependent": torch_chain, "dispatch_chain_independent": torch_chain, "gemm": torch_gemm, "add": torch_add, "add_int64": torch_add_int64, "add_bias": torch_add_bias, "gelu_erf": torch_gelu, "where": torch_where, "sum": torch_sum, "sum_axis0": torch_sum_axis0, "softmax": torch_softmax,
           "layernorm": torch_layernorm, "rmsnorm": torch_rmsnorm, "argmax": torch_argmax,
           "embedding": torch_embedding, "gather_axis1": torch_gather_axis1, "gather_elements": torch_gather_elements,
           "gather_nd": torch_gather_nd,
           "transpose": torch_transpose, "head_split": torch_heads, "head_merge": torch_heads,
           "nchw_to_nhwc": torch_nchw_to_nhwc, "concat": torch_concat, "slice_step2": torch_slice_step2,
           "expand_rows": torch_expand_rows,
           "scatter_add": torch_scatter_add, "scatter_add_permutation": torch_scatter_add, "scatter_nd_rows": torch_scatter_nd_rows,
           "matmul_integer": torch_int_mm, "qlinear_matmul": torch_int_mm,
           "quantize_linear": torch_quantize_linear, "dequantize_linear": torch_dequantize_linear,
           "dynamic_quantize_linear": torch_dynamic_quantize_linear,
           "max_pool": torch_max_pool, "global_average_pool": torch_global_average_pool,
           "resize_bilinear": torch_resize_bilinear,
           "lstm": torch_recurrent, "gru": torch_recurrent, "gru_lbr": torch_recurrent}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ours", help="onegpu-bench output (one JSON row per line)")
    ap.add_argument("--json", help="write the combined rows here")
    ap.add_argument("--markdown", help="write a markdown table here")
    args = ap.parse_args()
    rows = []
    timed = {}  # one PyTorch timing per (op, dtype, shape): fast and deterministic rows share it
    for line in open(args.ours):
        line = line.strip()
        if not line.startswith("{"):
            continue
        row = json.loads(line)
        runner = RUNNERS.get(row["op"])
        if runner is None:
            continue
        key = (row["op"], row["dtype"], row["shape"])
        if key not in timed:
            timed[key] = runner(row)
        row["torch_ms"] = timed[key]
        row["ratio"] = row["ms"] / row["torch_ms"] if row["torch_ms"] > 0 else float("nan")
        rows.append(row)
        torch.cuda.empty_cache()
    header = "| op | dtype | shape | variant | ours ms | torch ms | ratio | ours TFLOP/s | ours GB/s |"
    lines = [header, "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| {op} | {dtype} | {shape} | {variant} | {ms:.4f} | {torch_ms:.4f} | {ratio:.2f} | {tf} | {gb} |".format(
            tf="%.1f" % r["tflops"] if "tflops" in r else "", gb="%.0f" % r["gbps"] if "gbps" in r else "", **r))
    table = "\n".join(lines)
    print(table)
    if args.json:
        with open(args.json, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
