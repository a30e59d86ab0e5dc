import { describe, expect, it } from 'vitest';
import { QuireError } from '../../../src/core/errors.js';
import { httpSettings } from '../../../src/operations/urlconverter/http-settings.js';

function failure(settings: unknown): QuireError {
  try {
    httpSettings(settings);
  } catch (error) {
    if (error instanceof QuireError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('urlconverter settings.http', () => {
  it('has the reference defaults when absent', () => {
    expect(httpSettings(undefined)).toEqual({ followRedirects: true, headers: {}, userAgent: undefined, responseTimeoutMs: undefined });
    expect(httpSettings({ compress: {} })).toEqual({ followRedirects: true, headers: {}, userAgent: undefined, responseTimeoutMs: undefined });
  });

  it('takes what the official clients send by default (every member at its default)', () => {
    const settings = httpSettings({
      http: { followRedirect: true, userAgent: '', headers: { header: [] }, ssl: { ciphers: { cipher: [] }, protocols: { protocol: [] } }, timeout: { connect: 10000, response: 60000 } },
    });
    expect(settings).toEqual({ followRedirects: true, headers: {}, userAgent: undefined, responseTimeoutMs: 60000 });
  });

  it('honours redirects, headers and user agent', () => {
    const settings = httpSettings({
      http: {
        followRedirect: false,
        userAgent: ' Agent/2 ',
        headers: {
          header: [
            { name: 'X-One', value: 'a' },
            { name: '', value: 'ignored' },
          ],
        },
      },
    });
    expect(settings).toEqual({ followRedirects: false, headers: { 'x-one': 'a' }, userAgent: 'Agent/2', responseTimeoutMs: undefined });
  });

  it('refuses what it cannot honour with -104 naming the member', () => {
    const ssl = failure({ http: { ssl: { ciphers: { cipher: ['TLS_AES_128_GCM_SHA256'] } } } });
    expect(ssl.errorCode).toBe(-104);
    expect(ssl.message).toContain('settings.http.ssl.ciphers');
    const connect = failure({ http: { timeout: { connect: 1 } } });
    expect(connect.errorCode).toBe(-104);
    expect(connect.message).toContain('settings.http.timeout.connect');
  });

  it('refuses malformed members with -14 naming the field', () => {
    const cases: [unknown, string][] = [
      [{ http: { followRedirect: 'yes' } }, 'settings.http.followRedirect'],
      [{ http: { headers: { header: [{ name: 'Bad Name', value: 'x' }] } } }, 'settings.http.headers.header[0].name'],
      [{ http: { headers: { header: [{ name: 'Host', value: 'x' }] } } }, 'settings.http.headers.header[0].name'],
      [{ http: { headers: { header: [{ name: 'X-A', value: 'a\r\nInjected: 1' }] } } }, 'settings.http.headers.header[0].value'],
      [{ http: { userAgent: 'a\nb' } }, 'settings.http.userAgent'],
      [{ http: { timeout: { response: 0 } } }, 'settings.http.timeout.response'],
      [{ http: [] }, 'settings.http'],
    ];
    for (const [settings, field] of cases) {
      const error = failure(settings);
      expect(error.errorCode, field).toBe(-14);
      expect(error.message, field).toContain(field);
    }
  });
});
