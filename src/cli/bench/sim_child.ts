/**
 * Child process of the 'sim' bench: one named scenario with the VM running
 * its programs, tracing off, measured as in the bench's own process
 * (scenarioRate) but in a fresh one, so the JIT's type feedback is this
 * scenario's alone — as in the app's worker, which runs one simulation —
 * not the mix of every scenario the bench ran before it. Prints one JSON
 * line: ScenarioRate. Arguments: scenario name, CPU seconds per window, windows.
 */
import { installSystemHeaders } from '../../cc/system_headers';
import { examplePrograms } from '../../engine/programs';
import { findScenario } from '../../sim';
import { diskSystemHeaders } from '../system_headers';
import { scenarioRate } from './sim_rate';

installSystemHeaders(diskSystemHeaders);
const [name, cpuS, rounds] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4])];
const s = findScenario(name);
if (!s) throw new Error(`no scenario ${name}`);
process.stdout.write(JSON.stringify(scenarioRate(s, examplePrograms, cpuS, rounds)) + '\n');
