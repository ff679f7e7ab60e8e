/**
 * The graded course: for every exercise the reference solution passes, the
 * starter fails, and a plausible wrong solution (off-by-one bounds, wrong
 * byte order, a missing checksum update…) fails with a message naming the
 * failing packet (or the map entry that came out wrong).
 */
import { describe, expect, it } from 'vitest';
import { EXERCISES, exerciseList, grade } from '../../src/lessons/exercises';

/** id → [text in the reference solution, what a learner plausibly wrote instead, the mistake]. */
const WRONG: Record<string, [string, string, string]> = {
  'first-pass': ['return XDP_PASS;', 'return XDP_DROP;', 'wrong action'],
  'drop-all': ['XDP_DROP', 'XDP_ABORTED', 'aborts instead of dropping'],
  'size-filter': ['> 1000', '>= 1000', 'off by one'],
  'ipv4-only': ['bpf_htons(ETH_P_IP)', 'ETH_P_IP', 'host byte order'],
  'vlan-filter': ['bpf_ntohs(vh->h_vlan_TCI) & 0x0fff', 'vh->h_vlan_TCI & 0x0fff', 'host byte order'],
  qinq: ['i < 2', 'i < 1', 'only the outer tag'],
  'ipv4-options': ['(void *)iph + iph->ihl * 4', '(void *)iph + 20', 'ignores IP options'],
  'ipv6-ext': ['next != 0 && next != 60', 'next != 0', 'forgets destination options'],
  'icmp-echo': ['ICMP_ECHO ?', 'ICMP_ECHOREPLY ?', 'wrong ICMP type'],
  icmpv6: ['== 128 ?', '>= 128 ?', 'drops neighbour discovery'],
  'tcp-syn': [' && !tcp->ack', '', 'drops SYN-ACKs'],
  'udp-port': ['port <= 5010', 'port < 5010', 'off by one'],
  'mac-swap': ['__builtin_memcpy(eth->h_source, tmp, ETH_ALEN);', '__builtin_memcpy(eth->h_source, eth->h_dest, ETH_ALEN);', 'overwrites before saving'],
  'ttl-csum': ['check += bpf_htons(0x0100);', '', 'missing checksum update'],
  'vlan-pop': ['__builtin_memcpy(eth, macs, 12);', '', 'forgets to move the MACs'],
  'vlan-push': ['bpf_htons(42)', '42', 'host byte order'],
  'port-rewrite': ['udp->check = csum_replace2(udp->check, udp->dest, bpf_htons(80));', '', 'missing checksum update'],
  'tail-trim': ['128 - len', '127 - len', 'off by one'],
  'percpu-count': ['*count += 1;', '*count = 1;', 'sets instead of adding'],
  'hash-blocklist': ['__be32 src = iph->saddr;', '__be32 src = bpf_ntohl(iph->saddr);', 'host byte order key'],
  'lru-conntrack': ['if (tcp->syn && !tcp->ack) {', 'if (tcp->ack) {', 'opens flows on ACK'],
  'byte-count': ['bpf_map_update_elem(&bytes, &src, &len, BPF_NOEXIST);', '', 'never creates an entry'],
  'icmp-reply': ['icmp->checksum = (__u16)(c + (c >> 16));', '', 'missing checksum update'],
  'redirect-ifindex': ['bpf_redirect(3, 0)', 'bpf_redirect(2, 0)', 'wrong port'],
  devmap: ['bpf_redirect_map(&tx_port, 0, XDP_DROP)', 'bpf_redirect_map(&tx_port, 1, XDP_DROP)', 'empty slot'],
  cpumap: ['bpf_redirect_map(&cpus, 2, XDP_PASS)', 'bpf_redirect_map(&cpus, 1, XDP_PASS)', 'wrong CPU'],
  'af-xdp': ['bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS)', 'bpf_redirect_map(&xsks, 0, XDP_PASS)', 'always queue 0'],
  'token-bucket': ['if (b->tokens > BURST)\n\t\t\tb->tokens = BURST;', '', 'no burst cap'],
  metadata: ['*meta = iph->protocol;', '', 'never writes the protocol'],
  'fib-forward': ['__builtin_memcpy(eth->h_dest, p.dmac, ETH_ALEN);', '', 'keeps the old destination MAC'],
  'tail-call': ['bpf_tail_call(ctx, &jmp, SLOT_TCP)', 'bpf_tail_call(ctx, &jmp, SLOT_UDP)', 'TCP sent to the UDP handler'],
  'lpm-filter': ['.prefixlen = 32', '.prefixlen = 24', 'looks up a /24'],
};

describe('graded course', () => {
  it('has at least 30 exercises from a first XDP_PASS to AF_XDP and the mechanisms, with unique ids', () => {
    const list = exerciseList();
    expect(list.length).toBeGreaterThanOrEqual(30);
    expect(new Set(list.map((e) => e.id)).size).toBe(list.length);
    expect(list[0]!.id).toBe('first-pass');
    const topics = new Set(list.map((e) => e.topic));
    for (const t of ['basics', 'parsing', 'rewriting', 'maps', 'actions', 'redirect', 'af_xdp', 'mechanisms']) expect(topics.has(t as never), t).toBe(true);
    for (const e of EXERCISES) expect(e.hints.length, e.id).toBeGreaterThan(0);
  });

  for (const ex of EXERCISES) {
    if (ex.kind === 'program') {
      it(`${ex.id}: reference passes, starter fails, a plausible wrong solution fails naming the packet`, () => {
        const ref = grade(ex, ex.solution);
        expect(ref.error, ref.explanation?.summary).toBeUndefined();
        expect(ref.tests.filter((t) => !t.pass).map((t) => t.message)).toEqual([]);
        expect(ref.pass).toBe(true);
        expect(grade(ex, ex.starter).pass).toBe(false);
        const w = WRONG[ex.id];
        expect(w, `a wrong solution for ${ex.id}`).toBeDefined();
        expect(ex.solution.includes(w![0]), `${ex.id}: the mutation applies`).toBe(true);
        const wrong = grade(ex, ex.solution.replace(w![0], w![1]));
        expect(wrong.error, `${ex.id} (${w![2]}) should compile and verify`).toBeUndefined();
        expect(wrong.pass, `${ex.id}: ${w![2]} must fail`).toBe(false);
        const failed = wrong.tests.filter((t) => !t.pass);
        expect(failed.length).toBeGreaterThan(0);
        for (const f of failed) expect(f.message).toMatch(/^packet \d+ \(.+\)|map "\w+" key [0-9a-f]+/);
      });
    } else {
      it(`${ex.id}: the simulator's answer passes, a plausible wrong prediction fails`, () => {
        const right = grade(ex, ex.rightAnswer);
        expect(right.error).toBeUndefined();
        expect(right.pass, right.tests[0]?.message).toBe(true);
        const wrong = grade(ex, ex.wrongAnswer);
        expect(wrong.pass).toBe(false);
        expect(wrong.tests[0]?.message).toMatch(/simulator shows/);
        expect(grade(ex, '').pass).toBe(false);
      });
    }
  }

  it('a refused program fails with the verifier\'s explanation, not a crash', () => {
    const ex = EXERCISES.find((e) => e.id === 'ipv4-only')!;
    const r = grade(ex, ex.kind === 'program' ? ex.solution.replace(/\tif \(\(void \*\)\(eth \+ 1\) > data_end\)\n\t\treturn XDP_DROP;\n/, '') : '');
    expect(r.pass).toBe(false);
    expect(r.stage).toBe('verify');
    expect(r.explanation?.kind).toBe('pkt-access');
    expect(r.explanation?.fix?.insert).toMatch(/data_end/);
  });

  it('a byte diff names the header field', () => {
    const ex = EXERCISES.find((e) => e.id === 'ttl-csum')!;
    const r = grade(ex, ex.kind === 'program' ? ex.solution.replace('check += bpf_htons(0x0100);', '') : '');
    const f = r.tests.find((t) => !t.pass)!;
    expect(f.diff?.[0]?.field).toBe('ipv4.check');
    expect(f.message).toMatch(/packet 1 \(UDP ttl 64\).*ipv4\.check/);
  });
});
