/** The tabbed analysis panes under the simulation (WAI-ARIA tabs: arrows, Home and End move between them). */
import type { KeyboardEvent } from 'react';
import { setApp, useApp, type PaneTab } from '../../store';
import { keysFor } from '../shortcuts';
import { DisasmPane } from './DisasmPane';
import { VerifierPane } from './VerifierPane';
import { ConsolePane } from './ConsolePane';
import { MapsPane } from './MapsPane';
import { PacketPane } from './PacketPane';
import { CfgPane } from './CfgPane';

const TABS: { id: PaneTab; label: string }[] = [
  { id: 'disasm', label: 'Disassembly' },
  { id: 'verifier', label: 'Verifier' },
  { id: 'cfg', label: 'CFG' },
  { id: 'inspector', label: 'Packet' },
  { id: 'maps', label: 'Maps' },
  { id: 'console', label: 'Console' },
];

export function Panes() {
  const tab = useApp((s) => s.tab);
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const i = TABS.findIndex((t) => t.id === tab);
    const next = e.key === 'ArrowRight' ? (i + 1) % TABS.length : e.key === 'ArrowLeft' ? (i + TABS.length - 1) % TABS.length : e.key === 'Home' ? 0 : e.key === 'End' ? TABS.length - 1 : -1;
    if (next < 0) return;
    e.preventDefault();
    setApp({ tab: TABS[next]!.id });
    (e.currentTarget.children[next] as HTMLElement | undefined)?.focus();
  };
  return (
    <div className="panes">
      <div className="tabs" role="tablist" aria-label="Analysis panes" onKeyDown={onKey}>
        {TABS.map((t) => (
          <button key={t.id} role="tab" id={`tab-${t.id}`} aria-selected={tab === t.id} aria-controls="pane-body" tabIndex={tab === t.id ? 0 : -1}
            data-testid={`tab-${t.id}`} title={`${t.label}${keysFor(`show the ${t.id} pane`)}`} onClick={() => setApp({ tab: t.id })}>
            {t.label}
          </button>
        ))}
      </div>
      <div className="pane-body" role="tabpanel" id="pane-body" aria-labelledby={`tab-${tab}`}>
        {tab === 'disasm' && <DisasmPane />}
        {tab === 'verifier' && <VerifierPane />}
        {tab === 'cfg' && <CfgPane />}
        {tab === 'inspector' && <PacketPane />}
        {tab === 'maps' && <MapsPane />}
        {tab === 'console' && <ConsolePane />}
      </div>
    </div>
  );
}
