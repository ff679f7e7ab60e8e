/**
 * Traffic (profile, rate, frame size, protocol mix, pcap upload) and driver
 * (model, ring size, page cache, MTU) settings. Each change restarts the
 * machine with the new settings; invalid numbers are refused with a reason.
 */
import { useState } from 'react';
import { useApp } from '../../store';
import { configure, loadPcap } from '../simControl';
import { TRAFFIC_PROFILE_LABELS } from '../../engine/simTypes';

const RING_SIZES = [64, 128, 256, 512, 1024, 2048, 4096, 8192];

export function Settings() {
  const settings = useApp((s) => s.sim?.settings);
  const [error, setError] = useState<string | null>(null);
  if (!settings) return null;
  const { traffic, driver } = settings;
  const num = (v: string, lo: number, hi: number, what: string): number | null => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < lo || n > hi) {
      setError(`${what} must be between ${lo.toLocaleString('en')} and ${hi.toLocaleString('en')}`);
      return null;
    }
    setError(null);
    return n;
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
          <input type="number" defaultValue={traffic.ratePps} min={1} max={100_000_000} data-testid="rate"
            onBlur={(e) => { const n = num(e.target.value, 1, 100_000_000, 'Rate'); if (n !== null && n !== traffic.ratePps) void configure({ traffic: { ratePps: n } }); }} />
        </label>
        <label>Frame size (B)
          <input type="number" defaultValue={traffic.frameSize} min={60} max={9000} data-testid="frame-size"
            onBlur={(e) => { const n = num(e.target.value, 60, 9000, 'Frame size'); if (n !== null && n !== traffic.frameSize) void configure({ traffic: { frameSize: n } }); }} />
        </label>
        <label>Mix
          <select value={mixName(traffic.mix)} data-testid="mix" onChange={(e) => void configure({ traffic: { mix: MIXES[e.target.value] } })}>
            {Object.keys(MIXES).map((k) => <option key={k} value={k}>{k}</option>)}
          </select>
        </label>
        <label>pcap
          <input type="file" accept=".pcap,.cap,application/vnd.tcpdump.pcap" data-testid="pcap-upload"
            onChange={(e) => void loadPcap(e.target.files?.[0] ?? null)} />
        </label>
        <button onClick={() => void loadPcap(null)}>Use generated traffic</button>
      </fieldset>
      <fieldset>
        <legend>Driver: mlx4 on {driver.model}</legend>
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
          <input type="number" defaultValue={driver.mtu} min={68} max={9000} data-testid="mtu"
            onBlur={(e) => { const n = num(e.target.value, 68, 9000, 'MTU'); if (n !== null && n !== driver.mtu) void configure({ driver: { mtu: n } }); }} />
        </label>
      </fieldset>
      {error && <p className="field-error" role="alert">{error}</p>}
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
