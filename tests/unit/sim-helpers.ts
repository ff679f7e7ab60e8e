/** Shared fixtures for the simulator's unit tests. */
import type { SimConfig, XdpHook } from '../../src/sim';
import type { TrafficSpec } from '../../src/net';

/** pktgen-like UDP traffic at `pps` over `flows` source ports. */
export function udpTraffic(pps: number, opts: { flows?: number; maxPackets?: number; burst?: number; linkGbps?: number } = {}): TrafficSpec {
  return { linkGbps: opts.linkGbps ?? 40, maxPackets: opts.maxPackets, sources: [{ ratePps: pps, frameLen: 60, sport: 1000, sportCount: opts.flows ?? 1, burst: opts.burst }] };
}

/** A program whose action is chosen by the UDP source port: sport % actions.length. */
export function actionBySport(actions: number[], insns = 10): XdpHook {
  return {
    name: `by-sport[${actions.join(',')}]`,
    engine: 'native',
    run(x) {
      // Ethernet 14 + IPv4 20: the source port is at offset 34.
      const sport = (x.mem[x.data + 34]! << 8) | x.mem[x.data + 35]!;
      x.insns = insns;
      return actions[sport % actions.length]!;
    },
  };
}

// Rings large enough that interrupt moderation (44 frames / 16 us) never starves them, unless a test says otherwise.
export const base = (over: Partial<SimConfig> & { traffic: TrafficSpec }): SimConfig => ({ rxRingSize: 256, txRingSize: 64, memoryPages: 2048, ...over });
