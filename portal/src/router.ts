/**
 * Pages are paths under /webPDF/ (the server answers index.html for any of them), moved between with
 * the History API: the address bar names the page, reload and back work, and links stay real links.
 */
import { Store, useStore } from './api/store';

export const BASE = '/webPDF/';

function current(): string {
  return location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length).replace(/\/$/, '') : '';
}

export const route = new Store<string>(current());
addEventListener('popstate', () => route.set(current()));

export function navigate(page: string): void {
  if (page === route.get()) return;
  history.pushState(null, '', `${BASE}${page}`);
  route.set(page);
  // The new page's heading takes the focus, so a screen reader announces the change.
  requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
}

export function useRoute(): string {
  return useStore(route);
}

/** An in-app link: a real href (open in a new tab works), plain clicks move without a reload. */
export function linkProps(page: string): { href: string; onClick: (event: MouseEvent) => void } {
  return {
    href: `${BASE}${page}`,
    onClick: (event: MouseEvent) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      navigate(page);
    },
  };
}
