import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { REDACTED, redactConfig } from '../../src/config/redact.js';

/** The members the administration stores (issue 13, item 5): the trust store password is a secret wherever the configuration is shown. */
describe('redactConfig and the stored administration members', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-redact-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('redacts truststore.password and keeps the rest as stored', () => {
    const file = path.join(dir, 'quire.yaml');
    writeFileSync(
      file,
      'server:\n  hostName: pdf.example.com\ncluster:\n  mode: cluster\ntruststore:\n  file: corp.jks\n  password: s3cret-trust\nkeystore:\n  type: JKS\nportal:\n  userInterface:\n    limits:\n      displayDiskSpace: true\n',
    );
    const config = loadConfig({ QUIRE_CONFIG: file, QUIRE_DATA_DIR: dir });
    expect(config.truststore).toEqual({ file: 'corp.jks', password: 's3cret-trust' });
    const shown = redactConfig(config);
    expect(shown.truststore).toEqual({ file: 'corp.jks', password: REDACTED });
    expect(JSON.stringify(shown)).not.toContain('s3cret-trust');
    expect(shown.server.hostName).toBe('pdf.example.com');
    expect(shown.cluster.mode).toBe('cluster');
    expect(shown.keystore.type).toBe('JKS');
    // The portal member comes back whole: the member written, the reference's defaults beside it.
    expect(shown.portal.userInterface).toEqual({ limits: { displayDiskSpace: true, displayMaxFiles: false }, tooltips: { showDelay: 5 } });
    expect(shown.portal.functions.compress).toBe(true);
  });

  it('refuses a host name with a scheme or path, an unknown portal member and an unknown cluster mode', () => {
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, 'server:\n  hostName: "https://x/y"\ncluster:\n  mode: swarm\nportal:\n  colour: red\n');
    expect(() => loadConfig({ QUIRE_CONFIG: file, QUIRE_DATA_DIR: dir })).toThrow(/server\.hostName[\s\S]*cluster\.mode|cluster\.mode[\s\S]*server\.hostName/);
    expect(() => loadConfig({ QUIRE_CONFIG: file, QUIRE_DATA_DIR: dir })).toThrow(/portal\.colour[^\n]*unknown key/);
  });
});
