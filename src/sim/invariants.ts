/**
 * Conservation, checked: every page is in exactly one place (free, an rx
 * ring slot, a page cache, an XDP tx ring, the stack, or a fragment page
 * whose reference count equals the fragments that point at it), and every
 * packet that reached the NIC is counted exactly once (missed, waiting in a
 * ring, or finished with one action). The tests call this after every
 * step; the UI can show its verdict live. Returns problems, never throws.
 */
import type { Simulation } from './simulation';
import { PAGE_LOC_NAMES, PageLoc } from './page_alloc';

export function checkInvariants(sim: Simulation): string[] {
  const errs: string[] = [];
  const a = sim.machine.alloc;
  const nic = sim.nic;
  // Expected location and reference count of every allocated head page.
  const refs = new Int32Array(a.totalPages);
  const where = new Int8Array(a.totalPages).fill(-1);
  const claim = (page: number, loc: PageLoc, what: string) => {
    if (page < 0 || page >= a.totalPages) {
      errs.push(`${what}: bad page id ${page}`);
      return;
    }
    refs[page]!++;
    const isFrag = a.order[page]! > 0 && a.loc[page] === PageLoc.FRAGS;
    const want = isFrag ? PageLoc.FRAGS : loc;
    if (where[page]! >= 0 && !isFrag) errs.push(`page ${page} is in two places: ${PAGE_LOC_NAMES[where[page]!]} and ${what}`);
    where[page] = want;
    if (a.loc[page] !== want) errs.push(`page ${page} (${what}) is marked ${PAGE_LOC_NAMES[a.loc[page]!]}, expected ${PAGE_LOC_NAMES[want]}`);
  };
  for (const r of nic.rings) {
    if (!(r.cons <= r.hw && r.hw <= r.prod && r.prod - r.cons <= r.size)) errs.push(`ring ${r.index}: indices out of order cons=${r.cons} hw=${r.hw} prod=${r.prod}`);
    const tx = r.tx;
    if (!(tx.cons <= tx.db && tx.db <= tx.prod && tx.prod - tx.cons <= tx.size)) errs.push(`tx ring ${r.index}: indices out of order cons=${tx.cons} db=${tx.db} prod=${tx.prod}`);
  }
  nic.forEachPageRef(claim);

  let allocated = 0;
  for (let p = 0; p < a.totalPages; p++) {
    const l = a.loc[p]!;
    if (l === PageLoc.TAIL || l === PageLoc.FREE) {
      if (refs[p]! > 0) errs.push(`page ${p} is ${PAGE_LOC_NAMES[l]} but referenced ${refs[p]} time(s)`);
      if (l === PageLoc.FREE && !a.isFreeHead(p)) errs.push(`page ${p} marked free but not on a free list`);
      continue;
    }
    allocated += 1 << a.order[p]!;
    if (l === PageLoc.IN_FLIGHT) errs.push(`page ${p} is still in flight between steps`);
    else if (refs[p] === 0) errs.push(`page ${p} (${PAGE_LOC_NAMES[l]}) is referenced by nothing: leaked`);
    else if (l === PageLoc.FRAGS && a.refcount[p] !== refs[p]) errs.push(`fragment page ${p}: refcount ${a.refcount[p]} but ${refs[p]} references`);
  }
  const listed = a.countFreeListPages();
  if (listed !== a.freePages) errs.push(`free page count ${a.freePages} but free lists hold ${listed}`);
  if (allocated + a.freePages !== a.totalPages) errs.push(`pages: ${allocated} allocated + ${a.freePages} free != ${a.totalPages}`);

  // Packets.
  const c = sim.counters();
  let waiting = 0;
  let txOut = 0;
  for (const r of nic.rings) {
    waiting += r.hw - r.cons;
    txOut += r.tx.prod - r.tx.cons;
  }
  const finished = c.xdp_aborted + c.xdp_drop + c.xdp_pass + c.xdp_tx + c.xdp_redirect + c.xdp_unknown + c.rx_no_xdp;
  const accounted = c.rx_missed + c.rx_oversize + c.rx_flushed + waiting + finished;
  if (accounted !== sim.offered) errs.push(`packets: ${sim.offered} offered but ${accounted} accounted (missed ${c.rx_missed}, oversize ${c.rx_oversize}, flushed ${c.rx_flushed}, waiting ${waiting}, finished ${finished})`);
  if (c.rx_packets !== waiting + finished + c.rx_flushed) errs.push(`packets: ${c.rx_packets} received but ${waiting + finished + c.rx_flushed} waiting/finished/flushed`);
  if (c.xdp_tx !== c.tx_dropped + txOut + c.tx_packets + c.tx_flushed) errs.push(`XDP_TX: ${c.xdp_tx} verdicts but ${c.tx_dropped} dropped + ${txOut} on the ring + ${c.tx_packets} sent + ${c.tx_flushed} flushed`);
  if (c.stack_rx !== c.xdp_pass + c.rx_no_xdp) errs.push(`stack: ${c.stack_rx} skbs but ${c.xdp_pass} XDP_PASS + ${c.rx_no_xdp} without XDP`);
  if (!nic.redirect && c.xdp_redirect !== c.xdp_redirect_err + c.redirect_done + nic.framesInTransit()) errs.push(`XDP_REDIRECT: ${c.xdp_redirect} verdicts but ${c.xdp_redirect_err} errors + ${c.redirect_done} delivered + ${nic.framesInTransit()} queued`);
  const queued = nic.sockets ? nic.sockets.length : 0;
  if (c.stack_rx !== c.stack_dropped + c.sock_delivered + c.sock_dropped) errs.push(`stack: ${c.stack_rx} skbs but ${c.stack_dropped + c.sock_delivered + c.sock_dropped} consumed`);
  if (nic.sockets && queued > c.sock_delivered) errs.push(`socket holds ${queued} but only ${c.sock_delivered} were delivered`);
  if (nic.extraInvariants) errs.push(...nic.extraInvariants());
  return errs;
}
