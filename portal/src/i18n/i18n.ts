/**
 * The portal's strings live in one file per language (en.ts, de.ts; the compiler refuses a language
 * that lacks a key). The choice is remembered in sessionStorage, else taken from the browser; adding a
 * language is one file and one line in LANGUAGES.
 */
import { Store, useStore } from '../api/store';
import { de } from './de';
import { en, type MessageKey, type Messages } from './en';

export const LANGUAGES: Record<string, { name: string; messages: Messages }> = {
  en: { name: 'English', messages: en },
  de: { name: 'Deutsch', messages: de },
};

const STORAGE_KEY = 'quire.locale';

function initialLocale(): string {
  const saved = sessionStorage.getItem(STORAGE_KEY);
  if (saved && LANGUAGES[saved]) return saved;
  const preferred = navigator.languages.map((language) => language.slice(0, 2).toLowerCase()).find((language) => LANGUAGES[language]);
  return preferred ?? 'en';
}

export const locale = new Store<string>(initialLocale());

export function setLocale(next: string): void {
  if (!LANGUAGES[next]) return;
  sessionStorage.setItem(STORAGE_KEY, next);
  document.documentElement.lang = next;
  locale.set(next);
}

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export function translate(language: string, key: MessageKey, params?: Record<string, string | number>): string {
  const text = LANGUAGES[language]?.messages[key] ?? en[key];
  return params ? text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole)) : text;
}

export function useT(): Translate {
  const language = useStore(locale);
  return (key, params) => translate(language, key, params);
}

/** Sizes as people read them, in the locale's number format. */
export function formatBytes(bytes: number, language: string): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${new Intl.NumberFormat(language, { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)} ${units[unit]}`;
}
