// Translates one SPIR-V module to WGSL with naga (npm naga-wasm), for the shader build.
//   node spirv_to_wgsl.mjs <naga-wasm package folder> <in.spv> <out.wgsl>
// Exits non-zero with naga's message when the module cannot be expressed in WGSL.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [nagaDir, input, output] = process.argv.slice(2);
if (!output) {
  console.error("usage: node spirv_to_wgsl.mjs <naga-wasm folder> <in.spv> <out.wgsl>");
  process.exit(2);
}
const naga = await import(pathToFileURL(`${nagaDir}/dist/node.js`).href);
try {
  const module = naga.parseSpirv(new Uint8Array(readFileSync(input)));
  const info = naga.validate(module);
  const wgsl = naga.writeWgsl(module, info);
  writeFileSync(output, wgsl);
} catch (e) {
  console.error(`${input}: naga: ${e.formatted ?? e.message}`);
  process.exit(1);
}
