import { installSystemHeaders } from './src/cc';
import { diskSystemHeaders } from './src/cli/system_headers';
installSystemHeaders(diskSystemHeaders);
import { findScenario, runScenario, SEED2016_E5 } from './src/sim';
import { compareToPublished, formatFigure } from './src/sim/published';
import { examplePrograms } from './src/engine/programs';
const o = JSON.parse(process.argv[2] ?? '{}');
Object.assign(SEED2016_E5.costs, o.costs ?? {});
if (o.pollIdleNs) SEED2016_E5.pollIdleNs = o.pollIdleNs;
if (o.rxCoalFrames) SEED2016_E5.rxCoalFrames = o.rxCoalFrames;
if (o.rxCoalUsecs) SEED2016_E5.rxCoalUsecs = o.rxCoalUsecs;
for (const n of ['seed000-xdp1-drop', 'seed000-xdp1-drop-nocache', 'seed000-xdp2-tx']) {
  const s = findScenario(n)!;
  const r = runScenario(s, { programs: examplePrograms });
  const c = r.counters;
  console.log(n, (r.rate_pps/1e6).toFixed(2), 'idle', r.idle_percent, 'irq', c.interrupts, 'polls', c.polls, 'bx', c.budget_exhausted, 'pkt/irq', (c.rx_packets/c.interrupts).toFixed(1), 'missed', c.rx_missed);
  console.log('  ', r.profile.slice(0, 14).map((e) => `${e.symbol} ${e.percent.toFixed(1)}`).join(', '));
  for (const f of compareToPublished(s, r)) if (!f.ok || f.figure === 'rate') console.log('   ', formatFigure(f));
}
