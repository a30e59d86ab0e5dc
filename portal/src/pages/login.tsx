/**
 * Login: user and password (Basic), anonymous, and each configured OAuth 2.0 / OIDC provider. Says why
 * the user is here again (session expired, logged out) and what went wrong (the server's message).
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { listProviders, type Provider, startLogin } from '../api/oidc';
import { session } from '../api/session';
import { useStore } from '../api/store';
import type { Theme } from '../api/theme';
import { LANGUAGES, locale, setLocale, useT } from '../i18n/i18n';
import { ErrorText } from '../components/error-text';

export function LoginPage({ theme, error: startError }: { theme: Theme; error?: string | undefined }): JSX.Element {
  const t = useT();
  const { notice } = useStore(session.state);
  const language = useStore(locale);
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(startError);
  const [providers, setProviders] = useState<Provider[]>([]);

  useEffect(() => {
    void listProviders().then(setProviders);
    document.title = `${t('login.title')} – Quire`;
  }, []);

  const attempt = async (action: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="login" tabIndex={-1}>
      <div class="login-card">
        <div class="login-head">
          {theme.logo ? <img src={theme.logo} alt="" class="logo" /> : <span class="logo-mark" aria-hidden="true" />}
          <h1>{t('login.title')}</h1>
          <label class="visually-hidden" for="login-language">
            {t('nav.language')}
          </label>
          <select id="login-language" value={language} onChange={(event) => setLocale(event.currentTarget.value)}>
            {Object.entries(LANGUAGES).map(([code, { name }]) => (
              <option key={code} value={code}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <p class="lead">{t('login.lead')}</p>
        {notice && (
          <p class={`notice ${notice.kind}`} role="status">
            {notice.kind === 'expired' ? t('login.expired') : notice.kind === 'loggedOut' ? t('login.loggedOut') : notice.detail}
          </p>
        )}
        <ErrorText message={error} />
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void attempt(() => session.login(user, password));
          }}
        >
          <div class="field">
            <label for="login-user">{t('login.user')}</label>
            <input id="login-user" name="username" autocomplete="username" required value={user} onInput={(event) => setUser(event.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="login-password">{t('login.password')}</label>
            <input id="login-password" name="password" type="password" autocomplete="current-password" value={password} onInput={(event) => setPassword(event.currentTarget.value)} />
          </div>
          <button type="submit" disabled={busy}>
            {t('login.submit')}
          </button>
        </form>
        <div class="login-alternatives">
          <button type="button" class="secondary" disabled={busy} onClick={() => void attempt(() => session.login())}>
            {t('login.anonymous')}
          </button>
          {providers.map((provider) => (
            <button key={provider.id} type="button" class="secondary" disabled={busy} onClick={() => void attempt(() => startLogin(provider))}>
              {t('login.provider', { name: provider.name || provider.id })}
            </button>
          ))}
        </div>
      </div>
    </main>
  );
}
