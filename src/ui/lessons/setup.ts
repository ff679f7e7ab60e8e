/** Put the lab in the state a lesson step needs: its example, driver settings, pane and traffic. */
import { loadExample } from '../controller';
import { configure, setRunning } from '../simControl';
import { setApp, useApp } from '../../store';
import type { StepSetup } from '../../lessons/tours';

export async function runSetup(s: StepSetup): Promise<void> {
  if (s.example) {
    if (!useApp.getState().examples.some((e) => e.name === s.example)) {
      setApp({ notice: `This lesson needs the example "${s.example}", which this build does not have.` });
      return;
    }
    loadExample(s.example);
  }
  if (s.driver) await configure({ driver: s.driver });
  if (s.tab) setApp({ tab: s.tab });
  if (s.run) await setRunning(true);
}
