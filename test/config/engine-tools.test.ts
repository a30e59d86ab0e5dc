import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { yamlFile } from './fixtures.js';

const GB = 1024 ** 3;
const MB = 1024 ** 2;

describe('engine tool settings (engines.qpdf, engines.poppler, engines.ghostscript, engines.print)', () => {
  it('have defaults: executables from PATH, 2 GB caps (1 GB for the print command), 4 GB pool caps', () => {
    const { engines } = loadConfig({}, '/srv');
    expect(engines.qpdf).toEqual({ executable: 'qpdf', maxMemoryBytes: 2 * GB });
    expect(engines.poppler).toEqual({ directory: '', maxMemoryBytes: 2 * GB });
    expect(engines.ghostscript).toEqual({ executable: 'gs', maxMemoryBytes: 2 * GB });
    expect(engines.print).toEqual({ maxMemoryBytes: 1 * GB });
    expect(engines.libreoffice.memoryLimitBytes).toBe(4 * GB);
    expect(engines.chromium.memoryLimitBytes).toBe(4 * GB);
  });

  it('still load the old string form of engines.ghostscript (the executable) from a file', () => {
    const file = yamlFile('engines:\n  ghostscript: /opt/gs/bin/gs\n');
    const { engines } = loadConfig({ QUIRE_CONFIG: file }, '/srv');
    expect(engines.ghostscript).toEqual({ executable: '/opt/gs/bin/gs', maxMemoryBytes: 2 * GB });
  });

  it('still take the old string form from the environment (QUIRE_ENGINES__GHOSTSCRIPT)', () => {
    const { engines } = loadConfig({ QUIRE_ENGINES__GHOSTSCRIPT: '/nonexistent/gs' }, '/srv');
    expect(engines.ghostscript.executable).toBe('/nonexistent/gs');
  });

  it('read the object forms, sizes with units, and environment overrides of single keys', () => {
    const file = yamlFile(`
engines:
  qpdf: { executable: /usr/local/bin/qpdf, maxMemory: 3GB }
  poppler: { directory: /opt/poppler/bin, maxMemory: 512 }
  ghostscript: { executable: /usr/bin/gs, maxMemory: 1.5GB }
  print: { maxMemory: 0 }
  chromium: { memoryLimit: 2GB }
`);
    const { engines } = loadConfig({ QUIRE_CONFIG: file, QUIRE_ENGINES__LIBREOFFICE__MEMORY_LIMIT: '6GB', QUIRE_ENGINES__QPDF__MAX_MEMORY: '2.5GB' }, '/srv');
    expect(engines.qpdf).toEqual({ executable: '/usr/local/bin/qpdf', maxMemoryBytes: 2.5 * GB });
    expect(engines.poppler).toEqual({ directory: '/opt/poppler/bin', maxMemoryBytes: 512 * MB });
    expect(engines.ghostscript).toEqual({ executable: '/usr/bin/gs', maxMemoryBytes: 1.5 * GB });
    expect(engines.print.maxMemoryBytes).toBe(0);
    expect(engines.chromium.memoryLimitBytes).toBe(2 * GB);
    expect(engines.libreoffice.memoryLimitBytes).toBe(6 * GB);
  });

  it('refuse unknown keys and bad sizes, naming them', () => {
    const file = yamlFile('engines:\n  qpdf: { maxMemory: lots }\n  ghostscript: { executable: gs, memory: 1GB }\n');
    let problems: string[] = [];
    try {
      loadConfig({ QUIRE_CONFIG: file }, '/srv');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      problems = (error as ConfigError).problems;
    }
    expect(problems.some((p) => p.startsWith('engines.qpdf.maxMemory'))).toBe(true);
    expect(problems.some((p) => p.startsWith('engines.ghostscript'))).toBe(true);
  });
});
