/**
 * Seed programs for the verifier and VM fuzz targets that reach the helpers
 * issue 17 added to the VM (queue/stack maps, task context, probe reads,
 * strtol/strtoul, socket lookups, ringbuf_query, check_mtu, per-cpu
 * lookups, perf counters), with arguments taken from the packet so that
 * mutations move them. Not in tests/corpus: the kernel oracle the corpus is
 * compared against cannot create queue or stack maps.
 */
const PRELUDE = `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
`;

export const HELPER_SEEDS: readonly string[] = [
  `${PRELUDE}
struct { __uint(type, BPF_MAP_TYPE_QUEUE); __uint(value_size, 8); __uint(max_entries, 4); } q SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_STACK); __uint(value_size, 4); __uint(max_entries, 2); } st SEC(".maps");
SEC("xdp") int seed_queue(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 16 > end) return XDP_PASS;
  __u64 v = *(__u64 *)data;
  __u32 w = *(__u32 *)(data + 8);
  __u64 flags = *(unsigned char *)(data + 12) & 3;
  long r = bpf_map_push_elem(&q, &v, flags);
  long s = bpf_map_push_elem(&st, &w, flags);
  __u64 out = 0;
  __u32 o2 = 0;
  if (w & 1) r += bpf_map_pop_elem(&q, &out);
  else r += bpf_map_peek_elem(&q, &out);
  s += bpf_map_pop_elem(&st, &o2);
  return (r + s + out + o2) & 3;
}`,
  `${PRELUDE}
SEC("xdp") int seed_task(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  char buf[16] = {};
  char comm[16];
  long res = 0;
  unsigned long ures = 0;
  if (data + 16 > end) return XDP_PASS;
  __builtin_memcpy(buf, data, 16);
  long n = bpf_strtol(buf, 16, buf[0] & 0x1f, &res);
  n += bpf_strtoul(buf + 1, 15, 0, &ures);
  n += bpf_get_current_comm(comm, sizeof(comm));
  n += bpf_get_current_pid_tgid() + bpf_get_current_uid_gid() + bpf_get_current_cgroup_id();
  n += bpf_get_current_ancestor_cgroup_id(buf[2]) + bpf_get_cgroup_classid(ctx);
  struct bpf_pidns_info ns;
  n += bpf_get_ns_current_pid_tgid(buf[3], 0xeffffffc, &ns, sizeof(ns));
  return (n + res + ures + comm[0] + ns.pid) & 3;
}`,
  `${PRELUDE}
SEC("xdp") int seed_probe(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  char dst[16];
  __u64 x = 0;
  if (data + 16 > end) return XDP_PASS;
  __u64 addr = *(__u64 *)data;
  long n = bpf_probe_read_kernel(&x, 8, data);
  n += bpf_probe_read_kernel_str(dst, sizeof(dst), data + 2);
  n += bpf_probe_read_kernel(dst, 8, (void *)addr);
  n += bpf_probe_read_user(dst, 4, (void *)addr);
  n += bpf_probe_read_user_str(dst, 8, data);
  n += bpf_probe_read_kernel_str(dst, 8, (void *)bpf_get_current_task());
  return (n + x + dst[1]) & 3;
}`,
  `${PRELUDE}
struct { __uint(type, BPF_MAP_TYPE_RINGBUF); __uint(max_entries, 4096); } rb SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(key_size, 4); __uint(value_size, 8); __uint(max_entries, 4); } pc SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY); __uint(key_size, 4); __uint(value_size, 4); __uint(max_entries, 2); } pe SEC(".maps");
SEC("xdp") int seed_ring(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 8 > end) return XDP_PASS;
  __u32 k = *(unsigned char *)data & 7;
  __u32 cpu = *(unsigned char *)(data + 1) & 3;
  __u64 *v = bpf_map_lookup_percpu_elem(&pc, &k, cpu);
  if (v) *v += 1;
  __u64 *rec = bpf_ringbuf_reserve(&rb, 16, 0);
  long n = bpf_ringbuf_query(&rb, *(unsigned char *)(data + 2) & 7);
  if (rec) {
    rec[0] = n;
    if (k & 1) bpf_ringbuf_submit(rec, 0);
    else bpf_ringbuf_discard(rec, 0);
  }
  __u32 mtu = *(unsigned short *)(data + 4);
  n += bpf_check_mtu(ctx, *(unsigned char *)(data + 3) & 3, &mtu, *(short *)(data + 6), 0);
  n += bpf_perf_event_read(&pe, cpu);
  struct bpf_perf_event_value pv;
  n += bpf_perf_event_read_value(&pe, k, &pv, sizeof(pv));
  return (n + mtu + pv.counter) & 3;
}`,
  `${PRELUDE}
SEC("xdp") int seed_sock(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct bpf_sock_tuple t = {};
  if (data + 40 > end) return XDP_PASS;
  __builtin_memcpy(&t, data + 2, sizeof(t.ipv4));
  struct bpf_sock *sk = bpf_sk_lookup_tcp(ctx, &t, sizeof(t.ipv4), BPF_F_CURRENT_NETNS, 0);
  if (sk) { bpf_sk_release(sk); return XDP_DROP; }
  sk = bpf_sk_lookup_udp(ctx, &t, sizeof(t.ipv6), BPF_F_CURRENT_NETNS, 0);
  if (sk) { bpf_sk_release(sk); return XDP_DROP; }
  struct bpf_sock *sc = bpf_skc_lookup_tcp(ctx, &t, sizeof(t.ipv4), BPF_F_CURRENT_NETNS, 0);
  if (sc) { bpf_sk_release(sc); return XDP_TX; }
  return XDP_PASS;
}`,
];
