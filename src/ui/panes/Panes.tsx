/** The tabbed analysis panes under the simulation. */
import { setApp, useApp, type PaneTab } from '../../store';
import { DisasmPane } from './DisasmPane';
import { VerifierPane } from './VerifierPane';
import { ConsolePane } from './ConsolePane';
import { MapsPane } from './MapsPane';
import { PacketPane } from './PacketPane';

const TABS: { id: PaneTab; label: string }[] = [
  { id: 'disasm', label: 'Disassembly' },
  { id: 'verifier', label: 'Verifier' },
  { id: 'inspector', label: 'Packet' },
  { id: 'maps', label: 'Maps' },
  { id: 'console', label: 'Console' },
];

export function Panes() {
  const tab = useApp((s) => s.tab);
  return (
    <div className="panes">
      <div className="tabs" role="tablist" aria-label="Analysis panes">
        {TABS.map((t) => (
          <button key={t.id} role="tab" aria-selected={tab === t.id} data-testid={`tab-${t.id}`} onClick={() => setApp({ tab: t.id })}>
            {t.label}
          </button>
        ))}
      </div>
      <div className="pane-body" role="tabpanel">
        {tab === 'disasm' && <DisasmPane />}
        {tab === 'verifier' && <VerifierPane />}
        {tab === 'inspector' && <PacketPane />}
        {tab === 'maps' && <MapsPane />}
        {tab === 'console' && <ConsolePane />}
      </div>
    </div>
  );
}
