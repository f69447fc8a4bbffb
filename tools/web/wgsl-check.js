// Runs the library's generated WGSL through navigator.gpu: a GEMM kernel (few rows), a workgroup
// reduction and the row-per-invocation softmax, on random inputs, with the push constants in a
// read-only storage buffer at binding 0 of the group after the kernel's own (the layout the shader
// build gives every WGSL kernel), against float64 references. Posts {ok, results, errors} to
// /result.
"use strict";

function random(n, seed, lo = -1, hi = 1) {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; ++i) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = lo + (hi - lo) * (s / 4294967296);
  }
  return out;
}

// max |gpu - ref| / max |ref| over the written elements.
function scaledError(got, ref) {
  let err = 0, mag = 0;
  for (let i = 0; i < ref.length; ++i) {
    if (!Number.isFinite(got[i])) return Infinity;
    err = Math.max(err, Math.abs(got[i] - ref[i]));
    mag = Math.max(mag, Math.abs(ref[i]));
  }
  return err / Math.max(mag, 1e-30);
}

// Push words: [value, "u32" | "f32"] in order.
function pushBytes(fields) {
  const buf = new ArrayBuffer(256);
  const view = new DataView(buf);
  fields.forEach(([v, t], i) => (t === "f32" ? view.setFloat32(i * 4, v, true) : view.setUint32(i * 4, v, true)));
  return buf;
}

async function run(device, wgsl, bindings, push, grid) {
  const module = device.createShaderModule({ code: wgsl });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === "error").map((m) => `${m.lineNum}:${m.linePos} ${m.message}`);
  if (errors.length) throw new Error(`WGSL refused: ${errors.join("; ")}`);
  const layout0 = device.createBindGroupLayout({
    entries: bindings.map((b, i) => ({ binding: i, visibility: GPUShaderStage.COMPUTE,
                                        buffer: { type: b.writable ? "storage" : "read-only-storage" } })),
  });
  const layout1 = device.createBindGroupLayout({
    entries: [{ binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: "read-only-storage" } }],
  });
  log("module compiled");
  const pipeline = await device.createComputePipelineAsync({
    layout: device.createPipelineLayout({ bindGroupLayouts: [layout0, layout1] }),
    compute: { module, entryPoint: "main" },
  });
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const buffers = bindings.map((b) => {
    const buffer = device.createBuffer({ size: Math.max(16, b.data.byteLength), usage });
    device.queue.writeBuffer(buffer, 0, b.data);
    return buffer;
  });
  const pushBuffer = device.createBuffer({ size: 256, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(pushBuffer, 0, push);
  const group0 = device.createBindGroup({ layout: layout0, entries: buffers.map((buffer, i) => ({ binding: i, resource: { buffer } })) });
  const group1 = device.createBindGroup({ layout: layout1, entries: [{ binding: 0, resource: { buffer: pushBuffer } }] });
  const out = bindings.findIndex((b) => b.writable && b.result);
  const read = device.createBuffer({ size: buffers[out].size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, group0);
  pass.setBindGroup(1, group1);
  pass.dispatchWorkgroups(...grid);
  pass.end();
  encoder.copyBufferToBuffer(buffers[out], 0, read, 0, read.size);
  log("pipeline ready");
  device.queue.submit([encoder.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  log("read back");
  const result = new Float32Array(read.getMappedRange().slice(0));
  read.unmap();
  return result;
}

const kSentinel = -12345.5;

async function gemm(device, wgsl) {
  const m = 3, n = 45, k = 300, alpha = 0.75, beta = -0.5;
  const a = random(m * k, 1), b = random(k * n, 2), c0 = random(m * n + 4, 3);
  c0.fill(kSentinel, m * n);
  // m n k batch lda ldb ldc flags(READ_C) offsets(a b c bias) strides(a b c) splits k_chunk alpha beta act
  const push = pushBytes([[m], [n], [k], [1], [k], [n], [n], [4], [0], [0], [0], [0], [0], [0], [0], [1], [320],
                          [alpha, "f32"], [beta, "f32"], [0, "f32"], [0, "f32"]]);
  const c = await run(device, wgsl, [{ data: a }, { data: b }, { data: c0, writable: true, result: true },
                                     { data: new Float32Array(4) }], push, [Math.ceil(n / 16), 1, 1]);
  const ref = new Float64Array(m * n);
  for (let i = 0; i < m; ++i)
    for (let j = 0; j < n; ++j) {
      let s = 0;
      for (let x = 0; x < k; ++x) s += a[i * k + x] * b[x * n + j];
      ref[i * n + j] = alpha * s + beta * c0[i * n + j];
    }
  return { error: scaledError(c.subarray(0, m * n), ref), sentinels: c.subarray(m * n).every((v) => v === kSentinel) };
}

async function reduceSum(device, wgsl) {
  const outputs = 7, count = 1000;
  const x = random(outputs * count, 4);
  const out0 = new Float32Array(outputs + 4).fill(kSentinel);
  // outputs count op(sum) flags kept_runs red_runs in_offset out_offset kept_size[4] kept_stride[4]
  // red_size[4] red_stride[4] chunk chunks scratch_stride pad
  const push = pushBytes([[outputs], [count], [0], [0], [1], [1], [0], [0], [outputs], [0], [0], [0], [count], [0], [0], [0],
                          [count], [0], [0], [0], [1], [0], [0], [0], [0], [0], [0], [0]]);
  const y = await run(device, wgsl, [{ data: x }, { data: out0, writable: true, result: true },
                                     { data: new Float32Array(64), writable: true }], push, [outputs, 1, 1]);
  const ref = new Float64Array(outputs);
  for (let o = 0; o < outputs; ++o) for (let r = 0; r < count; ++r) ref[o] += x[o * count + r];
  return { error: scaledError(y.subarray(0, outputs), ref), sentinels: y.subarray(outputs).every((v) => v === kSentinel) };
}

async function softmax(device, wgsl) {
  const rows = 300, len = 10;
  const x = random(rows * len, 5, -6, 6);
  const out0 = new Float32Array(rows * len + 4).fill(kSentinel);
  // rows len inner flags in_offset out_offset group scale_offset bias_offset epsilon pad pad
  const push = pushBytes([[rows], [len], [1], [0], [0], [0], [1], [0], [0], [0, "f32"], [0], [0]]);
  const y = await run(device, wgsl, [{ data: x }, { data: out0, writable: true, result: true }], push,
                      [Math.ceil(rows / 256), 1, 1]);
  const ref = new Float64Array(rows * len);
  for (let r = 0; r < rows; ++r) {
    let m = -Infinity, s = 0;
    for (let i = 0; i < len; ++i) m = Math.max(m, x[r * len + i]);
    for (let i = 0; i < len; ++i) s += Math.exp(x[r * len + i] - m);
    for (let i = 0; i < len; ++i) ref[r * len + i] = Math.exp(x[r * len + i] - m) / s;
  }
  return { error: scaledError(y.subarray(0, rows * len), ref), sentinels: y.subarray(rows * len).every((v) => v === kSentinel) };
}

const kCases = [
  { name: "softmax.thread", file: "softmax_thread.wgsl", run: softmax, tolerance: 1e-5 },
  { name: "reduce.workgroup", file: "reduce_workgroup.wgsl", run: reduceSum, tolerance: 1e-5 },
  // The few-rows GEMM kernel: SwiftShader takes minutes to compile the tiles' unrolled loops.
  { name: "gemm.rows.kn16.f32", file: "gemm_rows_kn16_f32.wgsl", run: gemm, tolerance: 1e-5 },
];

function log(text) {
  fetch("/log", { method: "POST", body: text });
}

async function main() {
  log("started");
  const report = { ok: false, results: [], errors: [] };
  try {
    if (!navigator.gpu) throw new Error("navigator.gpu is missing (WebGPU is off in this browser)");
    log("requesting an adapter");
    const adapter = await navigator.gpu.requestAdapter();
    log(`adapter: ${adapter}`);
    if (!adapter) throw new Error("no WebGPU adapter");
    report.adapter = adapter.info ? `${adapter.info.vendor} ${adapter.info.architecture} ${adapter.info.description}` : "";
    const device = await adapter.requestDevice();
    device.addEventListener("uncapturederror", (e) => report.errors.push(e.error.message));
    for (const c of kCases) {
      const wgsl = await (await fetch(`/wgsl/${c.file}`)).text();
      log(`running ${c.name}`);
      const r = await c.run(device, wgsl);
      r.name = c.name;
      r.ok = r.error <= c.tolerance && r.sentinels;
      report.results.push(r);
    }
    await device.queue.onSubmittedWorkDone();
    report.ok = report.results.every((r) => r.ok) && report.errors.length === 0;
  } catch (e) {
    report.errors.push(String(e && e.stack || e));
  }
  await fetch("/result", { method: "POST", body: JSON.stringify(report) });
}
main();
