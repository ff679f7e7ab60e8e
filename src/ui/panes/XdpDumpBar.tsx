/**
 * xdpdump in the browser: start and stop a capture of what the attached
 * program saw and did (each run's frame at entry and at exit, with the
 * verdict), and download it as pcapng (a comment per packet with its
 * number and verdict) or classic pcap, for Wireshark or tcpdump.
 */
import { useState } from 'react';
import { engine } from '../controller';
import type { XdpDumpStatus } from '../../engine';

function download(bytes: Uint8Array, name: string): void {
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/vnd.tcpdump.pcap' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function XdpDumpBar() {
  const [status, setStatus] = useState<XdpDumpStatus | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  const command = async (cmd: 'start' | 'stop' | 'status') => {
    try {
      const r = await engine().call('xdpdump', cmd);
      if ('error' in r) { setMessage(r.error); return; }
      setMessage(null);
      setStatus(r);
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  const save = async (format: 'pcapng' | 'pcap') => {
    try {
      const s = await engine().call('xdpdump', 'status');
      if (!('error' in s)) setStatus(s);
      const r = await engine().call('xdpdumpFile', format);
      if (!r.ok) { setMessage(r.reason); return; }
      setMessage(null);
      download(r.bytes, r.name);
    } catch (e) {
      setMessage((e as Error).message);
    }
  };

  const capturing = status?.capturing ?? false;
  return (
    <div className="xdpdump-bar" data-testid="xdpdump">
      <strong title="A capture of the program's runs: the frame at its entry and at its exit, with the verdict (xdpdump --rx-capture entry,exit)">xdpdump</strong>
      {capturing
        ? <button data-testid="xdpdump-stop" onClick={() => void command('stop')}>Stop capture</button>
        : <button data-testid="xdpdump-start" onClick={() => void command('start')}>Start capture</button>}
      <button data-testid="xdpdump-refresh" onClick={() => void command('status')} disabled={!status}>Refresh</button>
      <span data-testid="xdpdump-status" data-packets={status?.packets ?? 0} data-capturing={capturing ? 'true' : 'false'}>
        {status ? `${capturing ? 'capturing' : 'stopped'}: ${status.packets.toLocaleString('en')} packets${status.full ? ' (full)' : ''}` : 'not capturing'}
      </span>
      <button data-testid="xdpdump-pcapng" onClick={() => void save('pcapng')} disabled={!status}>Download .pcapng</button>
      <button data-testid="xdpdump-pcap" onClick={() => void save('pcap')} disabled={!status}>Download .pcap</button>
      {message && <span className="muted" role="alert" data-testid="xdpdump-message">{message}</span>}
    </div>
  );
}
