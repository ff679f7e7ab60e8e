/**
 * The app's entry. The engine worker is started before the editor's code
 * is even parsed (Monaco is most of the bundle), so compiling the default
 * example overlaps with loading the UI.
 */
import { setWorkspace, startEngine } from './controller';
import { initTheme } from './theme';
import { mainText, setApp, useApp } from '../store';
import { setRunning } from './simControl';
import type { Speed } from '../engine/api';
import { applyBootNotice, resolveBoot, startAutosave } from './persist';
import { installShortcuts } from './shortcuts';
import './app.css';

initTheme();

// A read-only window for e2e tests and the browser benchmark (the editor's
// full text lives in Monaco's model; the DOM holds only the visible lines).
(window as unknown as { __xdpLab: unknown }).__xdpLab = {
  source: () => useApp.getState().source,
  workspace: () => useApp.getState().workspace,
  state: () => useApp.getState(),
  setSpeed: (s: Speed) => setRunning(true, s),
};

void (async () => {
  const boot = resolveBoot();
  if (boot.workspace) setApp({ workspace: boot.workspace, activeFile: boot.workspace.main, source: mainText(boot.workspace), exampleName: boot.example });
  // ?speed=N opens with traffic at N events per second (a slower start for demos and tests).
  const speed = Number(new URLSearchParams(location.search).get('speed'));
  if (Number.isFinite(speed) && speed >= 1) setApp({ speed: Math.floor(speed) });
  // A share link's speed is what its author chose: it wins over the page's ?speed.
  if (boot.speed !== null) setApp({ speed: boot.speed });
  applyBootNotice(boot, (s) => setWorkspace(s.workspace, { example: s.example }));
  startAutosave();
  installShortcuts();
  let painted!: () => void;
  const engine = startEngine(boot.settings, new Promise<void>((r) => (painted = r)));
  const [{ createRoot }, { App }] = await Promise.all([import('react-dom/client'), import('./App')]);
  createRoot(document.getElementById('root')!).render(<App />);
  requestAnimationFrame(() => setTimeout(painted, 0));
  await engine;
})();
