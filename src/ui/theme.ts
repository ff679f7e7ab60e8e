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

export const monacoTheme = (t: Theme): string => (t === 'dark' ? 'xdp-dark' : 'vs');

/**
 * vs-dark with comments at AA contrast (its #608b4e is 4.2:1 on #1e1e1e;
 * VS Code's Dark+ #6a9955 is above 4.5:1). Registered by the editor before
 * it is created (Monaco loads lazily, so this module does not import it).
 */
export function defineMonacoThemes(m: { editor: { defineTheme(name: string, data: { base: 'vs-dark'; inherit: boolean; rules: { token: string; foreground: string }[]; colors: Record<string, string> }): void } }): void {
  m.editor.defineTheme('xdp-dark', { base: 'vs-dark', inherit: true, rules: [{ token: 'comment', foreground: '6a9955' }], colors: {} });
}
