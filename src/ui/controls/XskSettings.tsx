/**
 * The AF_XDP socket setting: none, or xdpsock bound to queue 0 in
 * zero-copy, copy or SKB mode (xdpsock -z / -c / -S). AF_XDP is modelled on
 * the i40e driver with one queue, so choosing a mode also picks the seed
 * 001 i40e machine (unless an i40e profile is already chosen); SKB mode
 * attaches the program in generic mode, as xdpsock -S does. When the
 * simulator refuses the machine, its one-line reason is shown here.
 */
import { useState } from 'react';
import { useApp } from '../../store';
import { configure } from '../simControl';
import type { XskApp, XskSetup } from '../../engine/simTypes';

/** seed 001's machine (src/sim/hw.ts SEED2019_GOLD6140_I40E): i40e 25G on a Xeon Gold 6140. */
export const XSK_MODEL = 'seed2019-gold6140-i40e-25g';

const MODES: { value: XskSetup; label: string }[] = [
  { value: 'off', label: 'off (no socket)' },
  { value: 'zc', label: 'zero-copy (XDP_ZEROCOPY)' },
  { value: 'copy', label: 'copy (XDP_COPY)' },
  { value: 'skb', label: 'SKB mode (XDP_SKB, generic XDP)' },
];

/** Resolves to the simulator's refusal, or null when the machine was rebuilt. */
export function setXskMode(mode: XskSetup, current: { nic: string; model: string }): Promise<string | null> {
  if (mode === 'off') return configure({ driver: { xsk: 'off', xdpMode: 'native' } });
  return configure({
    driver: {
      nic: 'i40e',
      model: current.nic === 'i40e' ? current.model : XSK_MODEL,
      queues: 1,
      xdpMode: mode === 'skb' ? 'generic' : 'native',
      xsk: mode,
    },
  });
}

const APPS: { value: XskApp; label: string }[] = [
  { value: 'l2fwd', label: 'l2fwd: swap MACs, send back (-l)' },
  { value: 'rxdrop', label: 'rxdrop: receive and drop (-r)' },
  { value: 'txonly', label: 'txonly: only send (-t)' },
];

export function XskSettings() {
  const driver = useApp((s) => s.sim?.settings.driver);
  const hasSocket = useApp((s) => !!s.sim?.xsk);
  const attached = useApp((s) => s.sim?.attached);
  const [refusal, setRefusal] = useState<string | null>(null);
  if (!driver) return null;
  // Refused before the restart (the settings stay as they were), or saved settings that could not be built (the default machine runs instead).
  const refused = refusal ?? (driver.xsk !== 'off' && !hasSocket && attached && !attached.ok ? attached.reason : null);
  return (
    <div className="xsk-settings">
      <label>AF_XDP socket (xdpsock on queue 0)
        <select value={driver.xsk} data-testid="xsk-mode" onChange={(e) => void setXskMode(e.target.value as XskSetup, driver).then(setRefusal)}>
          {MODES.map((m) => <option key={m.value} value={m.value}>{m.label}</option>)}
        </select>
      </label>
      <label>xdpsock
        <select value={driver.xskApp ?? 'l2fwd'} data-testid="xsk-app-select" disabled={driver.xsk === 'off'}
          onChange={(e) => void configure({ driver: { xskApp: e.target.value as XskApp } }).then(setRefusal)}>
          {APPS.map((a) => <option key={a.value} value={a.value}>{a.label}</option>)}
        </select>
      </label>
      {refused && <p className="field-error" role="alert" data-testid="xsk-refused">{refused}</p>}
    </div>
  );
}
