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
  const wgsl = packed_dot(uniform_builtins(naga.writeWgsl(module, info)));
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

// The dialect's og_dot4_i8_packed (shaders/common/packed_dot.glsl) is written byte by byte, since
// naga reads no SPIR-V dot-product instruction; its body becomes WGSL's dot4I8Packed. spirv-opt
// must not inline it first: the function is marked DontInline in the module it is given.
const kPackedDotName = "og_dot4_i8_packed(i1;i1;";
function spirv_names_packed_dot(bytes) {
  return Buffer.from(bytes).includes(Buffer.from(kPackedDotName + "\0", "latin1"));
}
function keep_packed_dot(bytes) {
  const words = new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  let id = -1;
  for (let i = 5; i < words.length; i += words[i] >>> 16) {
    const op = words[i] & 0xffff, count = words[i] >>> 16;
    if (count === 0) break;
    if (op === 5 /* OpName */) {
      const name = Buffer.from(words.buffer, (i + 2) * 4, (count - 2) * 4).toString("latin1").replace(/\0.*$/s, "");
      if (name === kPackedDotName) id = words[i + 1];
    } else if (op === 54 /* OpFunction */ && words[i + 2] === id) {
      words[i + 3] = (words[i + 3] & ~1) | 2;  // not Inline, DontInline
    }
  }
  return new Uint8Array(words.buffer);
}
function packed_dot(wgsl) {
  const header = /^fn og_dot4_i8_packed_\w*\((\w+): ptr<function, i32>, (\w+): ptr<function, i32>\) -> i32 \{\n/m;
  const m = header.exec(wgsl);
  if (!m) return wgsl;
  const end = wgsl.indexOf("\n}\n", m.index);
  const edited = wgsl.slice(0, m.index + m[0].length) +
                 `    return dot4I8Packed(bitcast<u32>(*${m[1]}), bitcast<u32>(*${m[2]}));` + wgsl.slice(end);
  naga.validate(naga.parseWgsl(edited));  // the edit must still be valid WGSL
  return edited;
}

// naga writes each SPIR-V phi as a variable assigned in the branches that lead to it, and WGSL
// takes a variable assigned under non-uniform control flow as non-uniform: a loop's counter carried
// through a branch of the unrolled form (a phi whose operands are all that one value) would make
// the next barrier refused. Such a variable is replaced by the value where it is read, when the
// value is in scope there (the edited module must validate; spirv-opt's folding would also
// reassociate float arithmetic, so it is not used for this).
function trivial_phis(wgsl) {
  for (let changed = true; changed;) {
    changed = false;
    for (const m of [...wgsl.matchAll(/^ *var (phi_\w+): [^;]+;\n/gm)]) {
      const name = m[1];
      const stores = [...wgsl.matchAll(new RegExp(`^ *${name} = (\\w+);\\n`, "gm"))];
      const values = new Set(stores.map((s) => s[1]));
      if (stores.length === 0 || values.size !== 1) continue;
      const [value] = values;
      const reads = new RegExp(`^( *let \\w+ = )${name};$`, "gm");
      const uses = (wgsl.match(new RegExp(`\\b${name}\\b`, "g")) ?? []).length;
      if (uses !== 1 + stores.length + (wgsl.match(reads) ?? []).length) continue;  // read only by lets
      const edited = wgsl.replace(m[0], "").replace(new RegExp(`^ *${name} = \\w+;\\n`, "gm"), "")
                         .replace(reads, (_, head) => `${head}${value};`);
      try {
        naga.validate(naga.parseWgsl(edited));
      } catch {
        continue;  // the value is out of scope where the variable is read
      }
      wgsl = edited;
      changed = true;
    }
  }
  return wgsl;
}

function unrolled(file) {
  const dir = mkdtempSync(join(tmpdir(), "onegpu-wgsl-"));
  try {
    const out = join(dir, "unrolled.spv"), marked = join(dir, "marked.spv");
    writeFileSync(marked, keep_packed_dot(new Uint8Array(readFileSync(file))));
    execFileSync(spirvOpt, ["--inline-entry-points-exhaustive", "--eliminate-dead-functions",
                            "--eliminate-local-single-block", "--eliminate-local-single-store",
                            "--eliminate-local-multi-store", "--loop-unroll", "--eliminate-dead-code-aggressive",
                            marked, "-o", out], { stdio: ["ignore", "ignore", "pipe"] });
    return new Uint8Array(readFileSync(out));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let wgsl;
const spirv = new Uint8Array(readFileSync(input));
try {
  wgsl = translate(spirv);
} catch (e) {
  console.error(`${input}: naga: ${e.formatted ?? e.message}`);
  process.exit(1);
}
if (spirvOpt) {
  try {
    wgsl = trivial_phis(translate(unrolled(input)));
  } catch {
    // naga refused the unrolled module (or spirv-opt failed): keep the translation as compiled.
  }
}
if (spirv_names_packed_dot(spirv) && !/\bdot4I8Packed\(/.test(wgsl)) {
  console.error(`${input}: og_dot4_i8_packed is not a dot4I8Packed in the WGSL`);
  process.exit(1);
}
writeFileSync(output, wgsl);
