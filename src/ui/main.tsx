/** The app's entry: mounts React and starts the engine worker. */
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { startEngine } from './controller';
import { initTheme } from './theme';
import { useApp } from '../store';
import './app.css';

initTheme();
createRoot(document.getElementById('root')!).render(<App />);
void startEngine();

// A read-only window for e2e tests and the browser benchmark (the editor's
// full text lives in Monaco's model; the DOM holds only the visible lines).
(window as unknown as { __xdpLab: unknown }).__xdpLab = {
  source: () => useApp.getState().source,
  state: () => useApp.getState(),
};
