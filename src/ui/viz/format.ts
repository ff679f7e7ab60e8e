/** Number formats for rates and counts (SI prefixes, as perf and ethtool users read them). */
import { format } from 'd3';

const si = format('.3~s');
export const fmtCount = (n: number): string => (n < 1000 ? String(Math.round(n)) : si(n));
export const fmtRate = (pps: number): string => `${pps < 1000 ? Math.round(pps) : si(pps)}pps`;
export const fmtTime = (ns: number): string => (ns < 1e3 ? `${ns.toFixed(0)} ns` : ns < 1e6 ? `${(ns / 1e3).toFixed(1)} µs` : ns < 1e9 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e9).toFixed(3)} s`);
