// Records the version and the build time in dist/, for the OpenAPI info.version and the server status.
import { readFileSync, writeFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const info = { version: pkg.version, buildTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') };
writeFileSync(new URL('../dist/build-info.json', import.meta.url), `${JSON.stringify(info, null, 2)}\n`);
