/* A domain name turned into a hash-map key one label at a time, in the style of small DNS filters:
 * the key buffer is cleared with memset at the start and again at every label separator inside a
 * bounded loop that copies one byte an iteration. clang-19 clears the 64-byte buffer with eight
 * 8-byte stores of a register holding 0; the kernel keeps each slot as a spilled scalar, and the
 * first byte written into a slot makes the whole slot plain data, so the loop's states repeat and
 * prune. Cleared byte by byte (or with immediate stores), every byte stays "zero" until written,
 * no two iterations have equal states, and the kernel gives up: "BPF program is too large". */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define NAME_MAX_LEN 64

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[NAME_MAX_LEN]);
} qname SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, char[NAME_MAX_LEN]);
	__type(value, __u32);
} verdicts SEC(".maps");

SEC("xdp")
int dns_label_key(struct xdp_md *ctx)
{
	__u32 zero = 0;
	char *name = bpf_map_lookup_elem(&qname, &zero);
	char label[NAME_MAX_LEN];
	__u32 *v;

	if (!name)
		return XDP_ABORTED;
	__builtin_memset(label, 0, sizeof(label));
	for (int i = 0; i < NAME_MAX_LEN; i++) {
		if (name[i] == '.') {
			/* keep only the last label */
			__builtin_memset(label, 0, sizeof(label));
			continue;
		} else if (name[i] == 0) {
			break;
		}
		label[i] = name[i];
	}
	v = bpf_map_lookup_elem(&verdicts, label);
	return v ? *v : XDP_PASS;
}

char _license[] SEC("license") = "GPL";
