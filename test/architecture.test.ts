import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The dependency gate (`npm run gate`, part of `./quire.sh test`): dependency-cruiser with
 * .dependency-cruiser.mjs, the import rule of docs/ARCHITECTURE.md. These tests run the same command
 * on the real src/ and on small synthetic trees, so a rule that stops biting fails here.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.mjs');
const DEPCRUISE = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  severity: string;
  rule: string;
  from: string;
}

interface GateRun {
  exitCode: number;
  output: string;
  violations: Violation[];
}

/**
 * Runs the gate's own command (`npm run gate`: the `err` report, exit code = number of errors) in
 * `cwd`, which has a src/ and a tsconfig.json. A violation is a line `  error <rule>: <from> → <to>`.
 */
async function gate(cwd: string): Promise<GateRun> {
  let output: string;
  let exitCode = 0;
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  try {
    ({ stdout: output } = await promisify(execFile)(process.execPath, [DEPCRUISE, '--config', CONFIG, 'src'], { cwd, env, maxBuffer: 64 << 20 }));
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    if (typeof failed.code !== 'number' || failed.stdout === undefined) throw error;
    exitCode = failed.code;
    output = failed.stdout;
  }
  const violations = [...output.matchAll(/^ {2}(error|warn|info) ([\w-]+): (\S+) →/gm)].map(([, severity, rule, from]) => ({ severity: severity!, rule: rule!, from: from! }));
  return { exitCode, output, violations };
}

/** Writes `files` (path under the tree → content) as a project the gate can cruise. */
async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'quire-gate-'));
  await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] }));
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules')); // npm imports resolve (fastify)
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return dir;
}

/** Imports the table allows, in every form the offenders below use: the gate must let all of them pass. */
const ALLOWED: Record<string, string> = {
  'src/core/ids.ts': 'export const id = (): string => "x";\n',
  'src/config/schema.ts': "import { id } from '../core/ids.js';\nexport const config = { id: id() };\n",
  'src/storage/store.ts': "import '../core/ids.js';\nexport interface Store { id: string }\nexport function activeVersion(store: Store): number { return store.id.length; }\n",
  'src/engines/engine-error.ts': "import { config } from '../config/schema.js';\nexport class EngineError extends Error { readonly source = config.id; }\n",
  'src/engines/process/run.ts': "import { spawn } from 'node:child_process';\nexport const run = spawn;\n",
  'src/engines/pdf/qpdf.ts': "import { run } from '../process/run.js';\nexport const qpdf = run;\n",
  // engines/pdf-edit may import engines/pdf as long as nothing in engines/pdf imports engines/pdf-edit.
  'src/engines/pdf-edit/load.ts': "import { qpdf } from '../pdf/qpdf.js';\nexport const load = qpdf;\n",
  'src/operations/op.ts':
    "import { activeVersion, type Store } from '../storage/store.js';\nimport { load } from '../engines/pdf-edit/load.js';\n" +
    "export const op = (store: Store): unknown => [activeVersion(store), load, import('../engines/pdf/qpdf.js')];\n",
  'src/version.ts': 'export const version = "1";\n',
  // http: storage as types only, in the three type-only forms; values from operations and version.ts.
  'src/http/route.ts':
    "import type { Store } from '../storage/store.js';\nimport { op } from '../operations/op.js';\nimport { version } from '../version.js';\n" +
    'export const route = (store: Store): unknown => [op(store), version];\n',
  'src/http/inline-type.ts': "import { type Store } from '../storage/store.js';\nexport type Stored = Store;\n",
  'src/http/type-export.ts': "export type { Store } from '../storage/store.js';\n",
  'src/app.ts':
    "import { activeVersion } from './storage/store.js';\nimport { route } from './http/route.js';\nimport { spawn } from 'node:child_process';\nexport const app = [activeVersion, route, spawn];\n",
};

/** One file per kind of forbidden import, and the rule that must name it. */
const FORBIDDEN: Array<{ kind: string; file: string; content: string; rule: string; from?: string }> = [
  { kind: 'static import upwards (engines -> http)', file: 'src/engines/a/static.ts', content: "import { route } from '../../http/route.js';\nexport const x = route;\n", rule: 'layer-engines' },
  { kind: "side-effect import '…' (engines -> http)", file: 'src/engines/a/side-effect.ts', content: "import '../../http/route.js';\n", rule: 'layer-engines' },
  { kind: "dynamic import('…') (engines -> storage)", file: 'src/engines/a/dynamic.ts', content: "export const later = () => import('../../storage/store.js');\n", rule: 'layer-engines' },
  {
    kind: 'type-only import of a layer not allowed at all (engines -> storage)',
    file: 'src/engines/a/type-only.ts',
    content: "import type { Store } from '../../storage/store.js';\nexport type S = Store;\n",
    rule: 'layer-engines',
  },
  { kind: 're-export (export * from, engines -> http)', file: 'src/engines/a/re-export.ts', content: "export * from '../../http/route.js';\n", rule: 'layer-engines' },
  { kind: 'sideways import between layers (storage -> auth)', file: 'src/storage/sideways.ts', content: "import { token } from '../auth/token.js';\nexport const t = token;\n", rule: 'layer-storage' },
  {
    kind: 'core importing anything outside core (core -> config)',
    file: 'src/core/upward.ts',
    content: "import { config } from '../config/schema.js';\nexport const c = config;\n",
    rule: 'layer-core',
  },
  {
    kind: 'value import where only types are allowed (http -> storage)',
    file: 'src/http/value.ts',
    content: "import { activeVersion } from '../storage/store.js';\nexport const v = activeVersion;\n",
    rule: 'layer-http-types-only',
  },
  {
    kind: 'value and type in one import (http -> storage)',
    file: 'src/http/mixed.ts',
    content: "import { activeVersion, type Store } from '../storage/store.js';\nexport const v = (store: Store): number => activeVersion(store);\n",
    rule: 'layer-http-types-only',
  },
  {
    kind: 'value import next to a type import of the same module (http -> storage)',
    file: 'src/http/split.ts',
    content: "import type { Store } from '../storage/store.js';\nimport { activeVersion } from '../storage/store.js';\nexport const v = (store: Store): number => activeVersion(store);\n",
    rule: 'layer-http-types-only',
  },
  // With engines/pdf-edit/load.ts -> engines/pdf above, this closes a cycle between the two folders
  // (from a subfolder, as engines/pdf/structure/scale.ts did): neither module imports itself back.
  {
    kind: 'cycle between engine folders (pdf <-> pdf-edit)',
    file: 'src/engines/pdf/structure/scale.ts',
    content: "import { load } from '../../pdf-edit/load.js';\nexport const scale = load;\n",
    rule: 'no-engine-folder-cycle',
    from: 'src/engines/pdf',
  },
  {
    kind: 'a process started outside engines/',
    file: 'src/operations/tool.ts',
    content: "import { execFile } from 'node:child_process';\nexport const tool = execFile;\n",
    rule: 'no-tool-outside-engines',
  },
  {
    kind: 'Fastify types in operations/',
    file: 'src/operations/fastify.ts',
    content: "import type { FastifyReply } from 'fastify';\nexport type Reply = FastifyReply;\n",
    rule: 'no-fastify-below-http',
  },
  { kind: 'an import that does not resolve', file: 'src/engines/a/missing.ts', content: "export const gone = () => import('../../http/gone.js');\n", rule: 'not-to-unresolvable' },
  { kind: 'a folder of src/ without a row in the table', file: 'src/plugins/plugin.ts', content: "import { route } from '../http/route.js';\nexport const p = route;\n", rule: 'layer-unknown' },
];

const AUTH_USING_TYPES = "import type { Store } from '../storage/store.js';\nexport const token = (s: Store): string => s.id;\n";
const AUTH = 'export const token = "t";\n';

const dirs: string[] = [];
/** The three runs start together (each is a separate process): the real src/, an allowed tree, an offending tree. */
let runs: Promise<[GateRun, GateRun, GateRun]>;
beforeAll(() => {
  const inTree = async (files: Record<string, string>) => {
    const dir = await tree(files);
    dirs.push(dir);
    return gate(dir);
  };
  runs = Promise.all([
    gate(ROOT),
    inTree({ ...ALLOWED, 'src/auth/token.ts': AUTH_USING_TYPES }),
    inTree({ ...ALLOWED, 'src/auth/token.ts': AUTH, ...Object.fromEntries(FORBIDDEN.map(({ file, content }) => [file, content])) }),
  ]);
  runs.catch(() => {}); // awaited (and so reported) by the tests
});
afterAll(async () => {
  await runs.catch(() => {});
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the dependency gate', () => {
  it('passes on the real src/', async () => {
    const [run] = await runs;
    expect(run.violations).toEqual([]);
    expect(run.exitCode, run.output).toBe(0);
    const cruised = Number(/no dependency violations found \((\d+) modules/.exec(run.output)?.[1]);
    expect(cruised).toBeGreaterThan(300); // it did look at the code base
  });

  it('passes a tree that only uses imports the table allows', async () => {
    const [, run] = await runs;
    expect(run.violations).toEqual([]);
    expect(run.exitCode, run.output).toBe(0);
  });

  describe('fails on each kind of forbidden import', () => {
    let run: GateRun;
    beforeAll(async () => {
      [, , run] = await runs;
    });

    it('exits non-zero: one per error', () => {
      expect(run.exitCode).toBe(run.violations.length);
      expect(run.exitCode).toBeGreaterThanOrEqual(FORBIDDEN.length);
    });

    it.each(FORBIDDEN)('$kind', ({ file, rule, from }) => {
      const found = run.violations.filter((v) => v.from === (from ?? file));
      expect(found.map((v) => `${v.rule} (${v.severity})`)).toEqual([`${rule} (error)`]);
    });

    it('reports nothing else (the allowed imports stay allowed next to the offenders)', () => {
      const expected = new Set(FORBIDDEN.map(({ file, from }) => from ?? file));
      expected.add('src/engines/pdf-edit'); // the other end of the folder cycle
      expect(run.violations.map((v) => v.from).filter((from) => !expected.has(from))).toEqual([]);
    });
  });
});
