/**
 * The workspace's controls above the editor: a tab per file (the main file
 * marked), add / rename / delete, the main file, upload of files or a folder
 * (relative paths kept, so "../common/x.h" resolves), download as a zip, and
 * the build flags (parsed as clang would; a bad flag is named, not applied).
 */
import { useEffect, useState } from 'react';
import { setWorkspace } from '../controller';
import { setApp, showNotice, useApp } from '../../store';
import { flagsText, MAX_WORKSPACE_BYTES, parseFlagsText, pathProblem } from '../schema';
import { downloadWorkspace } from './zip';
import type { WorkspaceFile } from '../../cc/workspace';

async function readUploads(list: FileList): Promise<{ files: WorkspaceFile[]; skipped: string[] }> {
  const files: WorkspaceFile[] = [];
  const skipped: string[] = [];
  for (const f of Array.from(list)) {
    const path = (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name;
    const problem = pathProblem(path);
    if (problem) { skipped.push(problem); continue; }
    if (f.size > MAX_WORKSPACE_BYTES) { skipped.push(`${path} is too large`); continue; }
    try {
      files.push({ path, text: new TextDecoder('utf-8', { fatal: true }).decode(await f.arrayBuffer()) });
    } catch {
      skipped.push(`${path} is not UTF-8 text`);
    }
  }
  return { files, skipped };
}

export function WorkspaceBar() {
  const ws = useApp((s) => s.workspace);
  const active = useApp((s) => s.activeFile);
  const [flags, setFlags] = useState(flagsText(ws.flags));
  const [flagErrs, setFlagErrs] = useState<string[]>([]);
  useEffect(() => setFlags(flagsText(ws.flags)), [ws.flags]);

  const upload = async (list: FileList | null) => {
    if (!list?.length) return;
    const { files, skipped } = await readUploads(list);
    const cur = useApp.getState().workspace;
    const byPath = new Map(cur.files.map((f) => [f.path, f]));
    for (const f of files) byPath.set(f.path, f);
    const firstC = files.find((f) => f.path.endsWith('.c'));
    setWorkspace({ ...cur, files: [...byPath.values()], main: firstC?.path ?? cur.main });
    if (firstC) setApp({ activeFile: firstC.path });
    if (skipped.length) showNotice(`Some files were not added: ${skipped.join('; ')}.`);
  };
  const add = () => {
    const name = prompt('New file name (e.g. common/helpers.h)');
    if (!name) return;
    const problem = pathProblem(name);
    if (problem || ws.files.some((f) => f.path === name)) { showNotice(problem ?? `${name} exists already`); return; }
    setWorkspace({ ...ws, files: [...ws.files, { path: name, text: '' }] });
    setApp({ activeFile: name });
  };
  const rename = () => {
    const name = prompt('Rename to', active);
    if (!name || name === active) return;
    const problem = pathProblem(name);
    if (problem || ws.files.some((f) => f.path === name)) { showNotice(problem ?? `${name} exists already`); return; }
    setWorkspace({ ...ws, files: ws.files.map((f) => (f.path === active ? { path: name, text: f.text } : f)), main: ws.main === active ? name : ws.main });
    setApp({ activeFile: name });
  };
  const remove = () => {
    if (ws.files.length <= 1 || active === ws.main) { showNotice('The main file cannot be deleted; choose another main file first.'); return; }
    if (!confirm(`Delete ${active}?`)) return;
    setWorkspace({ ...ws, files: ws.files.filter((f) => f.path !== active) });
    setApp({ activeFile: ws.main });
  };
  const applyFlags = () => {
    const r = parseFlagsText(flags);
    setFlagErrs(r.errors);
    if (!r.errors.length && flagsText(r.flags) !== flagsText(ws.flags)) setWorkspace({ ...ws, flags: r.flags });
  };

  return (
    <div className="ws-bar" data-testid="workspace-bar">
      <div className="ws-tabs" role="tablist" aria-label="Workspace files">
        {ws.files.map((f) => (
          <button key={f.path} role="tab" aria-selected={f.path === active} data-testid="file-tab" data-path={f.path} className={f.path === active ? 'active' : ''} onClick={() => setApp({ activeFile: f.path })} title={f.path}>
            {f.path}{f.path === ws.main ? ' (main)' : ''}
          </button>
        ))}
      </div>
      <div className="ws-tools">
        <button onClick={add} data-testid="file-add">New</button>
        <button onClick={rename} data-testid="file-rename">Rename</button>
        <button onClick={remove} data-testid="file-delete">Delete</button>
        <label>main <select data-testid="file-main" value={ws.main} onChange={(e) => setWorkspace({ ...ws, main: e.target.value })}>
          {ws.files.filter((f) => f.path.endsWith('.c')).map((f) => <option key={f.path} value={f.path}>{f.path}</option>)}
        </select></label>
        <label className="ws-upload">Files<input type="file" multiple data-testid="upload-files" onChange={(e) => void upload(e.target.files)} /></label>
        <label className="ws-upload">Folder<input type="file" multiple data-testid="upload-folder" ref={(el) => el?.setAttribute('webkitdirectory', '')} onChange={(e) => void upload(e.target.files)} /></label>
        <button onClick={() => downloadWorkspace(ws)} data-testid="download-zip">.zip</button>
        <input className="ws-flags" data-testid="build-flags" aria-label="Build flags" placeholder="flags: -I common -DX=1" value={flags} onChange={(e) => setFlags(e.target.value)} onBlur={applyFlags} onKeyDown={(e) => { if (e.key === 'Enter') applyFlags(); }} />
      </div>
      {flagErrs.length > 0 && <div className="ws-flag-errors" role="alert" data-testid="flag-errors">Flags not applied: {flagErrs.join('; ')}</div>}
    </div>
  );
}
