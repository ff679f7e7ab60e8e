/**
 * Preload links for what the first screen loads lazily.
 *
 * The entry (src/ui/main.tsx) imports the UI and React's renderer with
 * import(). Left alone, the browser hears of those chunks only once the
 * entry has been fetched and run. This plugin puts a
 * <link rel="modulepreload"> for each, and the chunks they import, into
 * index.html, so the browser fetches and compiles them alongside the
 * entry. A preload does not run a module.
 *
 * Production builds only (the dev server serves modules one by one).
 */
import type { Plugin } from 'vite';

/**
 * The lazily imported modules the first screen needs at once, in order. Not
 * the editor: preloading Monaco's 3.4 MB (fetch and compile) at the start
 * took CPU from the simulation's start on the 2-core machine; the UI
 * imports it once the simulation is on screen (src/ui/App.tsx).
 */
const FIRST_SCREEN = ['react-dom/client', 'src/ui/App.tsx'];

/** Whether a chunk's entry module is `id`: a project path, or a package's module (react-dom/client → node_modules/react-dom/client.js). */
function isModule(facade: string | null, id: string): boolean {
  if (facade === null) return false;
  const f = facade.replace(/\\/g, '/');
  return id.startsWith('src/') ? f.endsWith(`/${id}`) : f.includes(`/node_modules/${id}.`);
}

export function preloadFirstScreen(): Plugin {
  let base = '/';
  return {
    name: 'xdp-lab-preload-first-screen',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        if (!ctx.bundle) return [];
        const chunks = Object.values(ctx.bundle).flatMap((c) => (c.type === 'chunk' ? [c] : []));
        const byFile = new Map(chunks.map((c) => [c.fileName, c]));
        // The entry and what it imports statically are in the page already (Vite links those itself).
        const inPage = new Set<string>();
        const closure = (file: string): void => {
          if (inPage.has(file)) return;
          inPage.add(file);
          for (const dep of byFile.get(file)?.imports ?? []) closure(dep);
        };
        for (const c of chunks) if (c.isEntry) closure(c.fileName);
        const files: string[] = [];
        const add = (file: string): void => {
          const chunk = byFile.get(file);
          if (!chunk || inPage.has(file) || files.includes(file)) return;
          // A chunk's own imports first, in the order the module graph asks for them.
          for (const dep of chunk.imports) add(dep);
          files.push(file);
        };
        for (const id of FIRST_SCREEN) {
          const chunk = chunks.find((c) => c.isDynamicEntry && isModule(c.facadeModuleId, id));
          if (!chunk) throw new Error(`preload: no lazily loaded chunk for ${id} (renamed, or now imported statically?)`);
          add(chunk.fileName);
        }
        return files.map((f) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `${base}${f}` }, injectTo: 'head' as const }));
      },
    },
  };
}
