/**
 * The workspace as a file on the learner's disk: a zip of its files (paths
 * kept, so unpacking gives the project's folders back) plus the build flags
 * as `xdp-lab-flags.txt`, and the download itself.
 */
import { strToU8, zipSync, type Zippable } from 'fflate';
import type { Workspace } from '../../cc/workspace';

export const FLAGS_FILE = 'xdp-lab-flags.txt';

export function workspaceZip(ws: Workspace): Uint8Array {
  const z: Zippable = {};
  for (const f of ws.files) z[f.path] = strToU8(f.text);
  if (ws.flags.length && !(FLAGS_FILE in z)) z[FLAGS_FILE] = strToU8(`${ws.flags.join(' ')}\n`);
  return zipSync(z, { level: 6, mtime: new Date(2020, 0, 1) });
}

/** Offer the workspace as `name.zip` (named after the main file). */
export function downloadWorkspace(ws: Workspace): void {
  const base = (ws.main.split('/').pop() ?? 'workspace').replace(/\.[^.]*$/, '') || 'workspace';
  const bytes = workspaceZip(ws);
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/zip' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `${base}.zip`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
