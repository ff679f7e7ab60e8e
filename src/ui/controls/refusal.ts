/**
 * The nearest setting a refusal allows, so the settings can offer it as one
 * click: the largest MTU a driver names when XDP cannot take the MTU
 * ("… (max 3494)", "… (largest MTU with XDP: 1514)"), and native mode when a
 * driver has no generic XDP modelled. Pure: reads the simulator's message.
 */
import type { SimSettings } from '../../engine/simTypes';

export interface Fix {
  label: string;
  patch: Partial<SimSettings['driver']>;
}

export function nearestAccepted(reason: string, asked: Partial<SimSettings['driver']>): Fix | null {
  const mtu = /\((?:max|largest MTU with XDP:|largest:)\s*(\d+)\)/.exec(reason);
  if (mtu) return { label: `Use MTU ${mtu[1]}`, patch: { mtu: Number(mtu[1]) } };
  if (/generic \(skb-mode\) XDP is modelled on/.test(reason)) return { label: 'Use native mode', patch: { ...asked, xdpMode: 'native' } };
  return null;
}
