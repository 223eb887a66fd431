// Pins what each WebAssembly module imports from Emscripten's glue, by the glue's own names (the
// module's import names are minified: the glue's asmLibraryArg maps them). A toolchain upgrade
// that renames or adds an import (as emscripten_memcpy_big was renamed upstream) changes this
// list; the glue that provides the imports ships with the module, so loading keeps working, and
// this test says what changed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const dist = join(__dirname, '../../wasm/dist');

/** The module's imports as the glue names them, sorted; fails on an import the glue lacks. */
function importsOf(name: string): string[] {
  const glue = readFileSync(join(dist, `${name}.js`), 'utf8');
  const table = glue.match(/var asmLibraryArg=\{([^}]*)\}/);
  expect(table, `${name}.js has no asmLibraryArg`).not.toBeNull();
  const provided = new Map([...table![1].matchAll(/"(\w+)":(\w+)/g)].map(([, short, full]) => [short, full]));
  const module = new WebAssembly.Module(readFileSync(join(dist, `${name}.wasm`)));
  return WebAssembly.Module.imports(module).map(({ module: from, name: short, kind }) => {
    expect(provided.has(short), `${name}.wasm imports ${from}.${short}, which the glue does not provide`).toBe(true);
    return `${kind} ${provided.get(short)}`;
  }).sort();
}

// Embind's registrations and value handles, abort, heap growth and large copies.
const EMBIND = [
  '__embind_finalize_value_object', '__embind_register_bigint', '__embind_register_bool', '__embind_register_class',
  '__embind_register_class_constructor', '__embind_register_class_function', '__embind_register_constant',
  '__embind_register_emval', '__embind_register_enum', '__embind_register_enum_value', '__embind_register_float',
  '__embind_register_function', '__embind_register_integer', '__embind_register_memory_view',
  '__embind_register_std_string', '__embind_register_std_wstring', '__embind_register_value_object',
  '__embind_register_value_object_field', '__embind_register_void',
  '__emval_as', '__emval_call', '__emval_call_void_method', '__emval_decref', '__emval_get_method_caller',
  '__emval_incref', '__emval_new_array', '__emval_new_cstring', '__emval_new_object', '__emval_run_destructors',
  '__emval_set_property', '__emval_take_value', '_abort', '_emscripten_memcpy_big', '_emscripten_resize_heap',
];

it('the sampler module imports embind, abort, heap growth and large copies, nothing else', () => {
  expect(importsOf('sampling-lab-core')).toEqual(EMBIND.map((name) => `function ${name}`).sort());
});

it('the experiments module adds reading JavaScript values (the parameters) and the clock (progress reports)', () => {
  const extra = ['__emval_call_method', '__emval_get_global', '__emval_get_property', '__emval_instanceof', '__emval_typeof', '_clock_gettime'];
  expect(importsOf('sampling-lab-experiments')).toEqual([...EMBIND, ...extra].map((name) => `function ${name}`).sort());
});
