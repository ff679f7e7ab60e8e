/**
 * The app's Content-Security-Policy, in one place.
 *
 * The page: scripts only from our own origin (no inline script, no eval),
 * workers only from our origin, no plugins, no <base>, no form posts, no
 * framing. Styles may be inline: Monaco creates <style> elements at run time
 * and React sets style attributes; that is the one relaxation.
 *
 * Generated code: the VM's JIT (src/vm/jit.ts) turns verified bytecode into
 * JavaScript with `new Function`. Only the engine's worker and the grader's
 * worker run programs, and only their scripts are served with
 * 'unsafe-eval' (a dedicated worker takes its CSP from its own script's
 * response, not from the page). The page itself never gets it: any
 * `new Function` on the main thread throws, and compileJit falls back to the
 * interpreter (the header shows "engine: ready · JIT" when the worker may
 * JIT). A host that serves dist/ with one policy for every file simply runs
 * the interpreter.
 *
 * Where it applies: the production build carries the page policy as a
 * <meta> tag; `vite preview` (what the e2e suite runs) also sends it as a
 * header, with the worker variant on the two worker scripts; the dev server
 * (`npm start`) adds the meta tag with the hashes of the inline scripts
 * Vite's React refresh injects, so development runs under the same rules.
 */
import { createHash } from 'node:crypto';
import type { Plugin } from 'vite';

const PAGE: Record<string, string[]> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'worker-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
};

function serialize(p: Record<string, string[]>): string {
  return Object.entries(p).map(([k, v]) => `${k} ${v.join(' ')}`).join('; ');
}

/** The page's policy (extra script sources: hashes of inline scripts the dev server injects). */
export function pageCsp(extraScript: string[] = []): string {
  return serialize({ ...PAGE, 'script-src': [...PAGE['script-src']!, ...extraScript] });
}

/** As a header, the page's policy also forbids framing (frame-ancestors is ignored in <meta>). */
export const PAGE_CSP_HEADER = `${pageCsp()}; frame-ancestors 'none'`;

/** The engine's and the grader's worker scripts: the page's policy plus 'unsafe-eval' for the JIT. */
export const JIT_WORKER_CSP = serialize({ ...PAGE, 'script-src': [...PAGE['script-src']!, "'unsafe-eval'"] });

/** Built worker scripts that run programs (Vite names a worker's chunk after its file: worker.ts, teach.worker.ts). */
export const JIT_WORKER_SCRIPT = /\/assets\/(?:worker|teach\.worker)-[\w-]+\.js$/;

/** The policy to send with a response for this URL path. */
export function cspForPath(path: string): string {
  return JIT_WORKER_SCRIPT.test(path.split('?')[0] ?? '') ? JIT_WORKER_CSP : PAGE_CSP_HEADER;
}

const INLINE_SCRIPT = /<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g;

function metaTag(html: string): string {
  const hashes = [...html.matchAll(INLINE_SCRIPT)].map((m) => `'sha256-${createHash('sha256').update(m[1] ?? '').digest('base64')}'`);
  const meta = `<meta http-equiv="Content-Security-Policy" content="${pageCsp(hashes)}" />`;
  return html.replace(/<head>/, `<head>\n    ${meta}`);
}

export function csp(): Plugin {
  return {
    name: 'xdp-lab-csp',
    // Last, so the dev server's injected inline scripts are there to be hashed.
    transformIndexHtml: { order: 'post', handler: (html) => metaTag(html) },
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        res.setHeader('Content-Security-Policy', cspForPath(req.url ?? '/'));
        next();
      });
    },
  };
}
