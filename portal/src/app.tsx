/**
 * The shell: the login page until a session exists, then the header (pages, language, user, logout)
 * and the current page. Pages other than the documents load on demand (their code is not part of the
 * first load).
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { finishLogin } from './api/oidc';
import { session } from './api/session';
import { useStore } from './api/store';
import { loadTheme, type Theme } from './api/theme';
import { lazy } from './components/lazy';
import { LANGUAGES, locale, setLocale, useT } from './i18n/i18n';
import { DocumentsPage } from './pages/documents';
import { LoginPage } from './pages/login';
import { linkProps, useRoute } from './router';

const ServicesPage = lazy(() => import('./pages/services').then((module) => module.ServicesPage));
const AdminPage = lazy(() => import('./pages/admin/admin').then((module) => module.AdminPage));

export function App(): JSX.Element {
  const state = useStore(session.state);
  const [starting, setStarting] = useState(true);
  const [startError, setStartError] = useState<string>();
  const [theme, setTheme] = useState<Theme>({});

  useEffect(() => {
    document.documentElement.lang = locale.get();
    void loadTheme().then(setTheme);
    // The data store page changed the logo or theme: load it again; the logo's address is the same,
    // so a version in its query makes the <img> fetch the new one.
    const reload = (): void => void loadTheme().then((next) => setTheme(next.logo ? { logo: `${next.logo}?v=${Date.now()}` } : next));
    addEventListener('quire:theme-changed', reload);
    void (async () => {
      try {
        const external = await finishLogin();
        if (external) await session.loginExternal(external);
        else await session.restore();
      } catch (error) {
        setStartError(error instanceof Error ? error.message : String(error));
      } finally {
        setStarting(false);
      }
    })();
    return () => removeEventListener('quire:theme-changed', reload);
  }, []);

  if (starting) return <p class="loading">…</p>;
  if (!state.user) return <LoginPage theme={theme} error={startError} />;
  return <Shell theme={theme} />;
}

function Shell({ theme }: { theme: Theme }): JSX.Element {
  const t = useT();
  const page = useRoute();
  const { user } = useStore(session.state);
  const language = useStore(locale);
  const section = page.split('/')[0] ?? '';
  const pages: Array<[string, string]> = [['', t('nav.documents')], ['services', t('nav.services')], ...(user?.isAdmin ? ([['admin', t('nav.admin')]] as Array<[string, string]>) : [])];
  return (
    <>
      <button type="button" class="skip-link" onClick={() => document.querySelector<HTMLElement>('main')?.focus()}>
        {t('nav.skip')}
      </button>
      <header class="top">
        <a class="brand" {...linkProps('')}>
          {/* The administration's logo names the product itself (the default one reads "Quire"). */}
          {theme.logo ? (
            <img src={theme.logo} alt="Quire" class="logo" />
          ) : (
            <>
              <span class="logo-mark" aria-hidden="true" />
              <span>Quire</span>
            </>
          )}
        </a>
        <nav aria-label={t('nav.label')}>
          <ul>
            {pages.map(([target, label]) => (
              <li key={target}>
                <a {...linkProps(target)} aria-current={section === target ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
            <li>
              <a href="/webPDF/api-docs/" target="_blank" rel="noopener">
                {t('nav.api')}
              </a>
            </li>
          </ul>
        </nav>
        <div class="account">
          <label class="visually-hidden" for="language">
            {t('nav.language')}
          </label>
          <select id="language" value={language} onChange={(event) => setLocale(event.currentTarget.value)}>
            {Object.entries(LANGUAGES).map(([code, { name }]) => (
              <option key={code} value={code}>
                {name}
              </option>
            ))}
          </select>
          <span class="user" title={user?.roles.join(', ')}>
            {user?.userName || t('login.anonymousUser')}
          </span>
          <button type="button" class="secondary" onClick={() => void session.logout()}>
            {t('nav.logout')}
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {section === 'services' ? <ServicesPage page={page} /> : section === 'admin' && user?.isAdmin ? <AdminPage page={page} /> : <DocumentsPage />}
      </main>
    </>
  );
}
