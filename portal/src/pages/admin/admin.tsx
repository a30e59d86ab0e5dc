/**
 * The administration (shown to the admin role only; the server refuses every admin call of anyone else).
 * Its pages load with it, in one chunk that users without the role never fetch.
 */
import type { JSX } from 'preact';
import { useEffect } from 'preact/hooks';
import { useT } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/en';
import { linkProps } from '../../router';
import { ConfigurationPage } from './configuration';
import { DashboardPage } from './dashboard';
import { DataStorePage } from './datastore';
import { LogsPage } from './logs';
import { ReplayPage } from './replay';
import { SessionsPage } from './sessions';

const PAGES: Array<[string, MessageKey, () => JSX.Element]> = [
  ['admin', 'admin.dashboard', DashboardPage],
  ['admin/sessions', 'admin.sessions', SessionsPage],
  ['admin/logs', 'admin.logs', LogsPage],
  ['admin/replay', 'admin.replay', ReplayPage],
  ['admin/configuration', 'admin.configuration', ConfigurationPage],
  ['admin/datastore', 'admin.datastore', DataStorePage],
];

export function AdminPage({ page }: { page: string }): JSX.Element {
  const t = useT();
  const [, title, Page] = PAGES.find(([path]) => path === page) ?? PAGES[0]!;
  useEffect(() => {
    document.title = `${t(title)} – Quire`;
  }, [title]);
  return (
    <div class="admin">
      <nav class="subnav" aria-label={t('nav.admin')}>
        <ul>
          {PAGES.map(([path, label]) => (
            <li key={path}>
              <a {...linkProps(path)} aria-current={path === page || (page === 'admin' && path === 'admin') ? 'page' : undefined}>
                {t(label)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <section aria-labelledby="admin-title">
        <h1 id="admin-title" tabIndex={-1}>
          {t(title)}
        </h1>
        <Page />
      </section>
    </div>
  );
}
