// The browser check: headless Chromium runs the library's generated WGSL (GEMM, a reduction,
// softmax) through navigator.gpu and compares it with float64 JavaScript references
// (wgsl-check.js, served with the WGSL from a local server this script starts).
//   node tools/web/wgsl-check.mjs <folder of generated .wgsl>
// Exits 0 when every kernel matches, 1 when one does not, 77 (skipped, saying why) without a
// Chromium: ONEGPU_CHROME, or Debian's chromium-headless-shell (tools/setup-webgpu.sh installs it).
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const wgslDir = process.argv[2];
if (!wgslDir) {
  console.error("usage: node wgsl-check.mjs <folder of generated .wgsl>");
  process.exit(2);
}
const candidates = [process.env.ONEGPU_CHROME, "/usr/bin/chromium-headless-shell", "/usr/lib/chromium/chromium-headless-shell"];
const chrome = candidates.find((c) => c && existsSync(c));
if (!chrome) {
  console.log("skipped: no headless Chromium (set ONEGPU_CHROME or run tools/setup-webgpu.sh)");
  process.exit(77);
}

const page = `<!doctype html><meta charset="utf-8"><title>onegpu WGSL check</title><script src="/wgsl-check.js"></script>`;
let finish;
const done = new Promise((resolve) => (finish = resolve));
const server = createServer((req, res) => {
  if (req.method === "POST" && req.url === "/log") {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      res.end("ok");
      if (process.env.ONEGPU_WGSL_CHECK_VERBOSE) console.log(`page: ${body}`);
    });
    return;
  }
  if (req.method === "POST" && req.url === "/result") {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      res.end("ok");
      finish(JSON.parse(body));
    });
    return;
  }
  try {
    if (req.url === "/") return res.end(page);
    if (req.url === "/wgsl-check.js") return res.end(readFileSync(join(here, "wgsl-check.js")));
    const m = /^\/wgsl\/([A-Za-z0-9_]+\.wgsl)$/.exec(req.url);
    if (m) return res.end(readFileSync(join(wgslDir, m[1])));
  } catch (e) {
    res.statusCode = 500;
    return res.end(String(e));
  }
  res.statusCode = 404;
  res.end();
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
// SwiftShader's WebGPU adapter; --no-sandbox since tests may run as root.
const browser = spawn(chrome, ["--headless", "--no-sandbox", "--enable-unsafe-webgpu", "--use-webgpu-adapter=swiftshader",
                               "--enable-unsafe-swiftshader", "--use-angle=swiftshader", "--enable-features=Vulkan", "--disable-gpu-sandbox", "--no-first-run", url],
                      { stdio: ["ignore", "ignore", "pipe"] });
let stderr = "";
browser.stderr.on("data", (d) => (stderr += d));
const timeout = setTimeout(() => finish({ ok: false, errors: ["timed out after 120 s"], results: [] }), 120000);
const report = await done;
clearTimeout(timeout);
browser.kill();
server.close();
console.log(`adapter: ${report.adapter ?? "?"}`);
for (const r of report.results) {
  console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name}: scaled error ${r.error.toExponential(2)}, sentinels ${r.sentinels ? "kept" : "CHANGED"}`);
}
for (const e of report.errors) console.log(`error: ${e}`);
if (!report.ok && stderr) console.log(`browser stderr (last lines):\n${stderr.split("\n").slice(-15).join("\n")}`);
process.exit(report.ok ? 0 : 1);
