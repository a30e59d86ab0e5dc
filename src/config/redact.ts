import type { Config } from './load.js';

/** What replaces every secret in a redacted copy. */
export const REDACTED = '[redacted]';

/**
 * Key names that hold secrets wherever they appear: passwords (users[].password, adminPassword),
 * secrets (clientSecret), tokens (refreshToken, accessToken) and keys (privateKey, apiKey, key).
 */
const SECRET_KEY = /(password|passwd|secret|token|credential|key)$/i;

/** Query parameters of a URL that commonly carry credentials (`?access_token=`, `?apiKey=`). */
const SECRET_PARAM = /(password|passwd|secret|token|credential|key|signature|sig)$/i;

export function isSecretKey(name: string): boolean {
  return SECRET_KEY.test(name);
}

/**
 * A deep copy of the configuration that is safe to show or ship (configuration endpoint, support
 * package): every value under a secret-looking key becomes "[redacted]", and credentials embedded
 * in URLs (user info, secret query parameters) are redacted too. Unset secrets stay unset, so a
 * reader can still tell whether one was configured.
 */
export function redactConfig(config: Config): Config {
  return redactValue(config, undefined) as Config;
}

function redactValue(value: unknown, key: string | undefined): unknown {
  if (value === undefined || value === null) return value;
  if (key !== undefined && isSecretKey(key)) return REDACTED;
  if (typeof value === 'string') return redactUrl(value);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, undefined));
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, redactValue(item, name)]));
  }
  return value;
}

/** The string with the credentials of a URL redacted; any other string unchanged. */
export function redactUrl(text: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text;
  }
  let changed = false;
  if (url.username || url.password) {
    url.username = REDACTED;
    url.password = '';
    changed = true;
  }
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) {
      url.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  // Only a URL that held a credential is re-serialised, so others keep their exact spelling; the
  // marker is shown unescaped so a reader recognises it.
  return changed ? url.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED) : text;
}
