// Translates one SPIR-V module to WGSL with naga (npm naga-wasm), for the shader build.
//   node spirv_to_wgsl.mjs <naga-wasm package folder> <in.spv> <out.wgsl> [spirv-opt]
// Exits non-zero with naga's message when the module cannot be expressed in WGSL.
// With spirv-opt, the loops GLSL marks [[unroll]] are unrolled first (naga keeps no unroll hint,
// and a register array indexed in a loop the driver leaves rolled goes to memory); where naga
// cannot read the unrolled module, the module as compiled is kept.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [nagaDir, input, output, spirvOpt] = process.argv.slice(2);
if (!output) {
  console.error("usage: node spirv_to_wgsl.mjs <naga-wasm folder> <in.spv> <out.wgsl> [spirv-opt]");
  process.exit(2);
}
const naga = await import(pathToFileURL(`${nagaDir}/dist/node.js`).href);

function translate(bytes) {
  const module = naga.parseSpirv(bytes);
  const info = naga.validate(module);
  const wgsl = uniform_builtins(naga.writeWgsl(module, info));
  // naga writes subgroup built-ins without the extension WGSL requires for them (and reads no
  // WGSL that enables it, so this comes last). WGSL takes a subgroup operation's result as
  // non-uniform, so a subgroup operation under a branch on another one (a NaN vote before the
  // maximum) would be refused; GLSL defines those results as uniform within the subgroup.
  if (/\bsubgroup[A-Z]|@builtin\(subgroup_/.test(wgsl) && !/^enable subgroups;/m.test(wgsl)) {
    return "enable subgroups;\ndiagnostic(off, subgroup_uniformity);\n" + wgsl;
  }
  return wgsl;
}

// naga copies every built-in input into a private variable that the entry point writes before it
// calls main_1, and WGSL's uniformity analysis takes any private variable as non-uniform: a barrier
// under control flow that depends on the workgroup id (a GEMM tile's k range) is refused. Built-ins
// that are uniform across a workgroup and read only by main_1 become main_1's parameters instead.
const kUniformBuiltins = ["gl_WorkGroupID", "gl_NumWorkGroups", "gl_SubgroupSize"];
function uniform_builtins(wgsl) {
  const entry = /^fn main_1\(\) \{$/m;
  if (!entry.test(wgsl)) return wgsl;
  const params = [];
  for (const name of kUniformBuiltins) {
    const copy = `${name}_1`;
    const decl = new RegExp(`^var<private> ${copy}: ([^;]+);\n`, "m");
    const store = new RegExp(`^\\s*${copy} = ${name};\n`, "m");
    const m = decl.exec(wgsl);
    if (!m || !store.test(wgsl)) continue;
    // Every read of the copy must lie inside main_1 (from its header to the next function).
    const begin = wgsl.search(entry);
    const end = wgsl.indexOf("\n@compute", begin);  // naga writes the entry point last, after main_1
    if (end < 0) continue;
    const body = wgsl.slice(begin, end);
    const outside = wgsl.slice(0, begin) + wgsl.slice(end);
    const uses = (text) => (text.match(new RegExp(`\\b${copy}\\b`, "g")) ?? []).length;
    if (uses(outside) !== 2 || uses(body) === 0) continue;  // the declaration and the store only
    wgsl = wgsl.replace(decl, "").replace(store, "");
    params.push({ copy, name, type: m[1] });
  }
  if (params.length === 0) return wgsl;
  const edited = wgsl
                     .replace(entry, `fn main_1(${params.map((p) => `${p.copy}: ${p.type}`).join(", ")}) {`)
                     .replace(/^(\s*)main_1\(\);$/m, `$1main_1(${params.map((p) => p.name).join(", ")});`);
  naga.validate(naga.parseWgsl(edited));  // the edit must still be valid WGSL
  return edited;
}

function unrolled(file) {
  const dir = mkdtempSync(join(tmpdir(), "onegpu-wgsl-"));
  try {
    const out = join(dir, "unrolled.spv");
    execFileSync(spirvOpt, ["--inline-entry-points-exhaustive", "--eliminate-dead-functions",
                            "--eliminate-local-single-block", "--eliminate-local-single-store",
                            "--eliminate-local-multi-store", "--loop-unroll", "--eliminate-dead-code-aggressive",
                            file, "-o", out], { stdio: ["ignore", "ignore", "pipe"] });
    return new Uint8Array(readFileSync(out));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let wgsl;
try {
  wgsl = translate(new Uint8Array(readFileSync(input)));
} catch (e) {
  console.error(`${input}: naga: ${e.formatted ?? e.message}`);
  process.exit(1);
}
if (spirvOpt) {
  try {
    wgsl = translate(unrolled(input));
  } catch {
    // naga refused the unrolled module (or spirv-opt failed): keep the translation as compiled.
  }
}
writeFileSync(output, wgsl);
