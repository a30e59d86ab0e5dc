/**
 * The dependency gate (`npm run gate`): the import rule of docs/ARCHITECTURE.md as dependency-cruiser rules.
 *
 * Why dependency-cruiser and not a regex: it parses every import the TypeScript compiler sees — static
 * `import … from`, side-effect `import '…'`, dynamic `import('…')`, `export … from` — resolves it to a file
 * (`./x.js` → `./x.ts`), and knows whether it is `import type` (erased) or a value import. Type-only
 * imports count too (tsPreCompilationDeps): a layer may not even name the types of a layer it must not know,
 * except where the table says "(types)".
 *
 * The table below is the one in docs/ARCHITECTURE.md; change both together. A folder may always import
 * itself; app.ts, server.ts, main.ts and engines-wiring.ts are the wiring and may import anything.
 */

/** Folder of src/ → the folders (or top-level files) of src/ it may import values and types from. */
const LAYERS = {
  core: [],
  config: ['core'],
  observability: ['core', 'config'],
  storage: ['core', 'config'],
  auth: ['core', 'config', 'storage'],
  sessions: ['core', 'config', 'auth', 'storage'],
  engines: ['core', 'config'],
  operations: ['core', 'config', 'observability', 'engines', 'storage', 'auth', 'sessions'],
  http: ['core', 'config', 'observability', 'operations', 'sessions', 'version.ts'],
  cluster: ['core', 'config', 'storage', 'operations'],
};

/** Folder of src/ → folders it may import TYPES from only (`import type`, `export type … from`). */
const TYPES_ONLY = {
  http: ['storage'],
};

/** `^src/(a|b/|c\.ts$)`: a folder name matches everything under it, a file name (x.ts) only itself. */
const under = (names) => `^src/(${names.map((name) => (name.endsWith('.ts') ? name.replace('.', '\\.') + '$' : `${name}/`)).join('|')})`;

const layerRules = Object.entries(LAYERS).map(([layer, allowed]) => ({
  name: `layer-${layer}`,
  comment: `src/${layer}/ may import ${[...allowed, ...(TYPES_ONLY[layer] ?? []).map((t) => `${t} (types)`)].join(', ') || 'only itself'} (docs/ARCHITECTURE.md, import rule)`,
  severity: 'error',
  from: { path: under([layer]) },
  to: { path: '^src/', pathNot: under([layer, ...allowed, ...(TYPES_ONLY[layer] ?? [])]) },
}));

const typeOnlyRules = Object.entries(TYPES_ONLY).map(([layer, typed]) => ({
  name: `layer-${layer}-types-only`,
  comment: `src/${layer}/ may import only types from ${typed.join(', ')}: a value import (function, class, constant) is forbidden`,
  severity: 'error',
  from: { path: under([layer]) },
  // A dependency is type-only when every import of that module from this file is `import type` / `{ type X }`.
  to: { path: under(typed), dependencyTypesNot: ['type-only'] },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...layerRules,
    ...typeOnlyRules,
    {
      name: 'layer-unknown',
      comment: 'Every folder of src/ has its row in the import table (docs/ARCHITECTURE.md and LAYERS above): a new folder is not a free pass.',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: under(Object.keys(LAYERS)) },
      to: { path: '^src/' },
    },
    {
      name: 'no-engine-folder-cycle',
      comment:
        'Engine folders form a hierarchy: when engines/a imports engines/b, nothing in engines/b may import engines/a ' +
        '(directly or through other folders). Shared code moves to a folder both import.',
      severity: 'error',
      scope: 'folder',
      // Folder scope: a folder's dependencies are those of every module under it (engines/pdf/structure counts as engines/pdf).
      from: { path: '^src/engines/[^/]+$' },
      to: { path: '^src/engines/[^/]+$', circular: true },
    },
    {
      name: 'no-tool-outside-engines',
      comment: 'Only engines/ starts processes (engines/process/run.ts); routes and operations never call a tool directly.',
      severity: 'error',
      from: { path: '^src/(?!engines/)', pathNot: '^src/(app|server|main|engines-wiring)\\.ts$' },
      to: { path: '^(node:)?child_process$' },
    },
    {
      name: 'no-fastify-below-http',
      comment: 'Operations and engines carry no Fastify types (docs/ARCHITECTURE.md); only http/ and the wiring know Fastify.',
      severity: 'error',
      from: { path: '^src/(operations|engines|storage|core|config|auth|observability)/' },
      to: { path: '(^|/)node_modules/(fastify|@fastify/)' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import the gate cannot resolve could hide a forbidden one: every import must resolve.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies too (they are erased only after compilation).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Dynamic `import('…')` is parsed like any other import.
    detectJSDocImports: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    exclude: { path: '^(dist|node_modules)/' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
