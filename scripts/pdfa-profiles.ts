// Regenerates resources/pdfa/profiles/PDFA-*.json from the veraPDF profiles (PDFA-*.xml) next to them:
//   node --import tsx scripts/pdfa-profiles.ts
// The server reads only the JSON (src/engines/pdfa-validator/profile/load.ts); the test
// test/engines/pdfa-validator/profile/profile-files.test.ts fails when the two differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { profileFile } from '../src/engines/pdfa-validator/profile/load.js';
import { PDFA_LEVELS } from '../src/engines/pdfa-validator/profile/model.js';
import { profileJson, readProfileXml } from '../src/engines/pdfa-validator/profile/profile-xml.js';

for (const level of PDFA_LEVELS) {
  const json = fileURLToPath(profileFile(level));
  const source = readProfileXml(readFileSync(json.replace(/\.json$/, '.xml'), 'utf8'));
  writeFileSync(json, profileJson(source));
  console.log(`${json}: ${source.rules.length} rules, ${source.variables.length} variables`);
}
