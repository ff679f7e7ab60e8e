import { installSystemHeaders } from './src/cc';
import { diskSystemHeaders } from './src/cli/system_headers';
installSystemHeaders(diskSystemHeaders);
import { HARDWARE_PROFILES, runScenario, SCENARIOS } from './src/sim';
import { compareToPublished, formatFigure, seedWindow } from './src/sim/published';
import { examplePrograms } from './src/engine/programs';
const [prof, json, filter] = process.argv.slice(2);
Object.assign(HARDWARE_PROFILES[prof!]!.costs, JSON.parse(json ?? '{}'));
for (const s of SCENARIOS.filter((x) => x.name.includes(filter ?? ''))) {
  const r = runScenario(s, { programs: examplePrograms, packets: seedWindow(s) });
  for (const f of compareToPublished(s, r)) console.log(formatFigure(f));
}
