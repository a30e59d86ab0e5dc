import { describe, expect, it } from 'vitest';
import { bearer, json, login } from '../../helpers/client.js';
import { useTestServer } from '../../helpers/fixture.js';
import { ADMIN_PASSWORD } from '../../helpers/server.js';

type Json = Record<string, unknown>;

/** The official clients' `testExecutables`: the application envelope as read, mode validate, one executable check. */
async function checkExecutables(rest: string, names: string[]): Promise<Json> {
  const { token } = await login(rest, { name: 'admin', password: ADMIN_PASSWORD });
  const headers = { ...bearer(token), accept: 'application/json' };
  const read = await json(await fetch(`${rest}/admin/configuration/application`, { headers }));
  const response = await fetch(`${rest}/admin/configuration/`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ ...read, configurationMode: 'validate', configurationChecks: [{ checkType: 'executable', executables: names }] }),
  });
  expect(response.status).toBe(200);
  return json(response);
}

const code = (result: Json) => (result.error as Json).code;

describe('executable checks with the installed engines', () => {
  const { server } = useTestServer({ session: false });

  it('maps outsideIn onto LibreOffice and pdftools onto qpdf, poppler and Ghostscript, and finds them', async () => {
    const result = await checkExecutables(server.rest, ['outsideIn', 'pdftools']);
    expect((result.error as Json).description).toMatch(/valid/);
    expect(code(result)).toBe(0);
    expect(result.executableError).toBeUndefined();
  });

  it('passes the engines that run inside the server (imageMagick: sharp; fisimple: format detection) and the Quire names', async () => {
    expect(code(await checkExecutables(server.rest, ['imageMagick', 'fisimple']))).toBe(0);
    const own = await checkExecutables(server.rest, ['libreoffice', 'python', 'ghostscript', 'chromium']);
    expect(code(own), JSON.stringify(own)).toBe(0);
  });

  it('answers -47 for what cannot exist here, naming it', async () => {
    for (const name of ['officeBridge', 'sharePointBridge', 'tesseract']) {
      const result = await checkExecutables(server.rest, ['pdftools', name]);
      expect(code(result)).toBe(-47);
      expect(result.executableError).toMatchObject({ applicationName: name, isSuccessful: false, commandLine: [] });
      expect((result.executableError as Json).message).toMatch(new RegExp(`"${name}" cannot run on this server`));
    }
    const windows = await checkExecutables(server.rest, ['officeBridge']);
    expect((windows.executableError as Json).message).toMatch(/Windows/);
  });
});

describe('executable checks with engines configured wrongly', () => {
  // echo exists but is not LibreOffice; false prints nothing and fails. Neither engine is started (the pools are off).
  const { server } = useTestServer({
    session: false,
    yaml: 'engines:\n  libreoffice:\n    enabled: false\n    executable: /bin/echo\n  ghostscript: /bin/false\n',
  });

  it('fails outsideIn when the LibreOffice executable does not print its version (-131), with its output', async () => {
    const result = await checkExecutables(server.rest, ['outsideIn']);
    expect(code(result)).toBe(-131);
    const error = result.executableError as Json;
    expect(error).toMatchObject({ applicationName: 'outsideIn', commandLine: ['/bin/echo', '--version'], exitCode: 0, isSuccessful: false });
    expect(error.message).toMatch(/did not print its version.*engines\.libreoffice\.executable/);
    expect((error.consoleOutput as string[]).join('\n')).toMatch(/echo/);
  });

  it('fails pdftools when Ghostscript does not answer, naming the setting', async () => {
    const result = await checkExecutables(server.rest, ['pdftools']);
    expect(code(result)).toBe(-131);
    expect(result.executableError).toMatchObject({ applicationName: 'pdftools', commandLine: ['/bin/false', '--version'], exitCode: 1 });
    expect((result.executableError as Json).message).toMatch(/engines\.ghostscript\.executable/);
  });

  it('reports a failed check before a program that cannot exist', async () => {
    const result = await checkExecutables(server.rest, ['officeBridge', 'outsideIn']);
    expect(code(result)).toBe(-131);
    expect(result.executableError).toMatchObject({ applicationName: 'outsideIn' });
    const [problem] = result.problems as Json[];
    expect(problem!.message).toMatch(/^executable: "outsideIn": .*; "officeBridge" cannot run on this server/);
  });
});
