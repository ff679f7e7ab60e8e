/**
 * Light and dark themes: CSS variables keyed on <html data-theme>, and the
 * matching Monaco theme. The first visit follows the OS preference.
 */
import { setApp, useApp, type Theme } from '../store';

const KEY = 'xdp-lab:theme';

export function initTheme(): void {
  let t = localStorage.getItem(KEY) as Theme | null;
  if (t !== 'light' && t !== 'dark') t = matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  applyTheme(t);
}

export function applyTheme(t: Theme): void {
  document.documentElement.dataset.theme = t;
  localStorage.setItem(KEY, t);
  setApp({ theme: t });
}

export function toggleTheme(): void {
  applyTheme(useApp.getState().theme === 'dark' ? 'light' : 'dark');
}

export const monacoTheme = (t: Theme): string => (t === 'dark' ? 'vs-dark' : 'vs');
