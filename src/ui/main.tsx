/** The app's entry: mounts React and starts the engine worker. */
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { startEngine } from './controller';
import { initTheme } from './theme';
import { setApp, useApp } from '../store';
import { setRunning } from './simControl';
import type { Speed } from '../engine';
import { applyBootNotice, resolveBoot, startAutosave } from './persist';
import './app.css';

initTheme();
createRoot(document.getElementById('root')!).render(<App />);
void (async () => {
  const boot = await resolveBoot();
  setApp({ source: boot.source ?? '', exampleName: boot.source ? boot.example : null });
  applyBootNotice(boot);
  startAutosave();
  await startEngine(boot.settings);
})();

// A read-only window for e2e tests and the browser benchmark (the editor's
// full text lives in Monaco's model; the DOM holds only the visible lines).
(window as unknown as { __xdpLab: unknown }).__xdpLab = {
  source: () => useApp.getState().source,
  state: () => useApp.getState(),
  setSpeed: (s: Speed) => setRunning(true, s),
};
