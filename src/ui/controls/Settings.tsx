/**
 * Traffic (profile, rate, frame size, protocol mix, pcap upload) and driver
 * (driver model and hardware profile, rx queues, XDP mode, redirect target,
 * ring size, page cache, MTU) settings. Each change restarts the machine
 * with the new settings; invalid numbers are refused with a reason, and a
 * machine the simulator cannot build is refused with the simulator's reason
 * (the running machine carries on).
 */
import { useState } from 'react';
import { useApp } from '../../store';
import { configure, loadPcap } from '../simControl';
import { TRAFFIC_PROFILE_LABELS, type NicModel, type RedirectSetup, type SimSettings } from '../../engine/simTypes';
import { HARDWARE_PROFILES, type HardwareProfile } from '../../sim/hw';
import { nearestAccepted, type Fix } from './refusal';

const RING_SIZES = [64, 128, 256, 512, 1024, 2048, 4096, 8192];
const QUEUES = [1, 2, 4, 8];
const NICS: { id: NicModel; label: string }[] = [
  { id: 'mlx4', label: 'mlx4 (ConnectX-3; page cache)' },
  { id: 'vmxnet3', label: 'vmxnet3 (paravirtual; page_pool)' },
  { id: 'i40e', label: 'i40e (XL710/XXV710; page reuse)' },
];
const REDIRECTS: { id: RedirectSetup; label: string }[] = [
  { id: 'none', label: 'none (XDP_REDIRECT fails)' },
  { id: 'cpumap-drop', label: 'cpumap: another CPU, which drops' },
  { id: 'devmap-port', label: 'devmap: a second port of this NIC' },
  { id: 'devmap-i40e', label: 'devmap: an i40e port' },
  { id: 'devmap-veth', label: 'devmap: a veth (peer runs XDP_DROP)' },
];
const ENTRY_PROGS: { id: NonNullable<SimSettings['driver']['entryProg']>; label: string }[] = [
  { id: 'none', label: 'none' },
  { id: 'flush', label: 'run at flush (after the 2021 patch)' },
  { id: 'enqueue', label: 'run at enqueue (before it)' },
];

/** Which driver a hardware profile's NIC is driven by. */
export function profileNic(p: HardwareProfile): NicModel {
  if (/vmxnet3/i.test(p.nic)) return 'vmxnet3';
  if (/i40e/i.test(p.nic)) return 'i40e';
  return 'mlx4';
}

/** The hardware profiles whose NIC this driver drives. */
function profilesFor(nic: NicModel): HardwareProfile[] {
  return Object.values(HARDWARE_PROFILES).filter((p) => profileNic(p) === nic);
}

export function Settings() {
  const settings = useApp((s) => s.sim?.settings);
  const [error, setErrorText] = useState<string | null>(null);
  const [fix, setFix] = useState<Fix | null>(null);
  const attached = useApp((s) => s.sim?.attached);
  if (!settings) return null;
  const setError = (reason: string | null, asked: Partial<SimSettings['driver']> = {}) => {
    setErrorText(reason);
    setFix(reason ? nearestAccepted(reason, asked) : null);
  };
  // The program was detached because of a setting (an MTU XDP cannot take): say so beside the MTU, with the way back.
  const detachFix = attached && !attached.ok ? nearestAccepted(attached.reason, {}) : null;
  const { traffic, driver } = settings;
  /** Apply a driver change; a refusal (the simulator's reason) is shown here and the controls keep the running machine's values. */
  const setDriver = async (patch: Partial<SimSettings['driver']>) => setError(await configure({ driver: patch }), patch);
  const chooseNic = (nic: NicModel) => {
    const fits = profilesFor(nic);
    const model = fits.some((p) => p.name === driver.model) ? driver.model : fits[0]?.name ?? driver.model;
    void setDriver({ nic, model });
  };
  const profile = HARDWARE_PROFILES[driver.model];
  const devmap = driver.redirect.startsWith('devmap');
  const num = (v: string, lo: number, hi: number, what: string): number | null => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < lo || n > hi) {
      setError(`${what} must be between ${lo.toLocaleString('en')} and ${hi.toLocaleString('en')}`);
      return null;
    }
    setError(null);
    return n;
  };
  /** A refused value is not left in its field: the field goes back to the running machine's value and the reason is shown. */
  const refusedKeeps = async (field: HTMLInputElement, running: number, reply: Promise<string | null>) => {
    const reason = await reply;
    setError(reason, field.dataset.testid === 'mtu' ? { mtu: Number(field.value) } : {});
    if (reason) field.value = String(running);
  };
  return (
    <details className="settings" data-testid="settings">
      <summary>Traffic &amp; driver settings</summary>
      <fieldset>
        <legend>Traffic</legend>
        <label>Profile
          <select value={traffic.profile} data-testid="traffic-profile" onChange={(e) => void configure({ traffic: { profile: e.target.value } })}>
            {Object.entries(TRAFFIC_PROFILE_LABELS).map(([k, v]) => <option key={k} value={k}>{v}</option>)}
          </select>
        </label>
        <label>Rate (pps)
          <input type="number" key={traffic.ratePps} defaultValue={traffic.ratePps} min={1} max={100_000_000} data-testid="rate"
            onBlur={(e) => { const n = num(e.target.value, 1, 100_000_000, 'Rate'); if (n === null) e.target.value = String(traffic.ratePps); else if (n !== traffic.ratePps) void refusedKeeps(e.target, traffic.ratePps, configure({ traffic: { ratePps: n } })); }} />
        </label>
        <label>Frame size (B)
          <input type="number" key={traffic.frameSize} defaultValue={traffic.frameSize} min={60} max={9000} data-testid="frame-size"
            onBlur={(e) => { const n = num(e.target.value, 60, 9000, 'Frame size'); if (n === null) e.target.value = String(traffic.frameSize); else if (n !== traffic.frameSize) void refusedKeeps(e.target, traffic.frameSize, configure({ traffic: { frameSize: n } })); }} />
        </label>
        <label>Mix
          <select value={mixName(traffic.mix)} data-testid="mix" onChange={(e) => void configure({ traffic: { mix: MIXES[e.target.value] } })}>
            {Object.keys(MIXES).map((k) => <option key={k} value={k}>{k}</option>)}
          </select>
        </label>
        <label>pcap
          <input type="file" accept=".pcap,.pcapng,.cap,application/vnd.tcpdump.pcap" data-testid="pcap-upload"
            onChange={(e) => void loadPcap(e.target.files?.[0] ?? null)} />
        </label>
        <button onClick={() => void loadPcap(null)}>Use generated traffic</button>
      </fieldset>
      <fieldset>
        <legend data-testid="driver-legend" title={profile ? `${profile.cpu}; ${profile.nic}` : undefined}>Driver: {driver.nic} on {driver.model}</legend>
        <label>Driver model
          <select value={driver.nic} data-testid="nic" onChange={(e) => chooseNic(e.target.value as NicModel)}>
            {NICS.map((n) => <option key={n.id} value={n.id}>{n.label}</option>)}
          </select>
        </label>
        <label>Hardware profile
          <select value={driver.model} data-testid="hw-profile" onChange={(e) => void setDriver({ model: e.target.value })}>
            {profilesFor(driver.nic).map((p) => <option key={p.name} value={p.name} title={`${p.cpu}, ${p.nic}`}>{p.name}</option>)}
          </select>
        </label>
        <label>rx queues
          <select value={driver.queues} data-testid="queues" onChange={(e) => void setDriver({ queues: Number(e.target.value) })}>
            {QUEUES.map((n) => <option key={n} value={n}>{n} (one per CPU)</option>)}
          </select>
        </label>
        <label>XDP mode
          <select value={driver.xdpMode} data-testid="xdp-mode" disabled={driver.nic === 'mlx4'}
            title={driver.nic === 'mlx4' ? 'generic (skb-mode) XDP is modelled on vmxnet3 and i40e' : undefined}
            onChange={(e) => void setDriver({ xdpMode: e.target.value as 'native' | 'generic' })}>
            <option value="native">native (in the driver)</option>
            <option value="generic">generic (skb mode)</option>
          </select>
        </label>
        <label>Redirect target
          <select value={driver.redirect} data-testid="redirect" onChange={(e) => void setDriver({ redirect: e.target.value as RedirectSetup })}>
            {REDIRECTS.map((r) => <option key={r.id} value={r.id}>{r.label}</option>)}
          </select>
        </label>
        {devmap && (
          <label>devmap entry program
            <select value={driver.entryProg ?? 'none'} data-testid="entry-prog" onChange={(e) => void setDriver({ entryProg: e.target.value as SimSettings['driver']['entryProg'] })}>
              {ENTRY_PROGS.map((r) => <option key={r.id} value={r.id}>{r.label}</option>)}
            </select>
          </label>
        )}
        <label>Ring size
          <select value={driver.ringSize} data-testid="ring-size" onChange={(e) => void configure({ driver: { ringSize: Number(e.target.value) } })}>
            {RING_SIZES.map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={driver.pageCache} data-testid="page-cache" onChange={(e) => void configure({ driver: { pageCache: e.target.checked } })} />
          page cache
        </label>
        <label>MTU
          <input type="number" key={driver.mtu} defaultValue={driver.mtu} min={68} max={9000} data-testid="mtu"
            onBlur={(e) => { const n = num(e.target.value, 68, 9000, 'MTU'); if (n === null) e.target.value = String(driver.mtu); else if (n !== driver.mtu) void refusedKeeps(e.target, driver.mtu, configure({ driver: { mtu: n } })); }} />
        </label>
        {detachFix && (
          <p className="field-warning" role="status" data-testid="detach-warning">
            XDP detached: {attached && !attached.ok ? attached.reason : ''}{' '}
            <button data-testid="detach-fix" onClick={() => void setDriver(detachFix.patch)}>{detachFix.label}</button>
          </p>
        )}
      </fieldset>
      {error && (
        <p className="field-error" role="alert" data-testid="settings-error">
          {error}{' '}
          {fix && <button data-testid="settings-fix" onClick={() => void setDriver(fix.patch)}>{fix.label}</button>}
        </p>
      )}
    </details>
  );
}

const MIXES: Record<string, { udp: number; tcp: number; icmp: number; ipv6: number }> = {
  'UDP only': { udp: 1, tcp: 0, icmp: 0, ipv6: 0 },
  'TCP only': { udp: 0, tcp: 1, icmp: 0, ipv6: 0 },
  'mixed v4': { udp: 0.5, tcp: 0.4, icmp: 0.1, ipv6: 0 },
  'mixed v4/v6': { udp: 0.4, tcp: 0.3, icmp: 0.1, ipv6: 0.2 },
};

function mixName(m: { udp: number; tcp: number; icmp: number; ipv6: number }): string {
  return Object.entries(MIXES).find(([, v]) => v.udp === m.udp && v.tcp === m.tcp && v.icmp === m.icmp && v.ipv6 === m.ipv6)?.[0] ?? 'UDP only';
}
