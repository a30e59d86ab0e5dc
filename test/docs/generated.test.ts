import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED } from '../../scripts/docs.js';

describe('generated reference docs', () => {
  for (const [file, render] of Object.entries(GENERATED)) {
    it(`${file} matches the sources (run npm run docs)`, () => {
      expect(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')).toBe(render());
    });
  }
});
