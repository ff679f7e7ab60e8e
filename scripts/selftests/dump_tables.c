/*
 * Dump the kernel's test_verifier tables as JSON lines, one case a line:
 * descr, prog_type, result, the map fixups (which lddw slots take which of
 * test_verifier's maps), the flags that need BTF or kfuncs, and the program
 * as hex (8 bytes a slot; programs written by a fill helper included).
 *
 * Built by scripts/fetch-selftests.sh against the downloaded source:
 * tv_head.c is test_verifier.c up to the end of its tests[] array (the
 * struct bpf_test layout, its macros and fill helpers, and the tables of
 * verifier/ *.c), taken from the source at setup time, never kept here.
 */
#include "tv_head.c"

/* The program length test_verifier uses: up to the last non-zero slot. */
static int prog_length(const struct bpf_insn *fp)
{
	int len;

	for (len = MAX_INSNS - 1; len > 0; --len)
		if (fp[len].code != 0 || fp[len].imm != 0)
			break;
	return len + 1;
}

static void hex(const struct bpf_insn *p, int n)
{
	const unsigned char *b = (const unsigned char *)p;

	for (int i = 0; i < n * 8; i++)
		printf("%02x", b[i]);
}

static void jstr(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void fix(const char *name, const int *f, int *first)
{
	if (!*f)
		return;
	printf("%s\"%s\":[", *first ? "" : ",", name);
	*first = 0;
	for (int i = 0; i < MAX_FIXUPS && f[i]; i++)
		printf("%s%d", i ? "," : "", f[i]);
	printf("]");
}

int main(void)
{
	for (unsigned t = 0; t < sizeof(tests) / sizeof(tests[0]); t++) {
		struct bpf_test *x = &tests[t];
		const struct bpf_insn *prog = x->insns;
		int len, first = 1;

		if (x->fill_helper) {
			x->fill_insns = calloc(MAX_TEST_INSNS, sizeof(struct bpf_insn));
			x->fill_helper(x);
			prog = x->fill_insns;
			len = x->prog_len;
		} else {
			len = prog_length(x->insns);
		}
		printf("{\"descr\":");
		jstr(x->descr);
		printf(",\"prog_type\":%d,\"result\":%d,\"flags\":%d,\"fill\":%d,\"func_info_cnt\":%d,\"btf_types\":%d,\"kfunc\":",
		       x->prog_type, x->result, x->flags, x->fill_helper != NULL, x->func_info_cnt, x->btf_types[0] != 0);
		jstr(x->kfunc);
		printf(",\"errstr\":");
		jstr(x->errstr);
		printf(",\"fixups\":{");
#define F(n) fix(#n, x->fixup_##n, &first);
		F(map_hash_8b) F(map_hash_48b) F(map_hash_16b) F(map_array_48b) F(map_sockmap) F(map_sockhash)
		F(map_xskmap) F(map_stacktrace) F(prog1) F(prog2) F(map_in_map) F(cgroup_storage)
		F(percpu_cgroup_storage) F(map_spin_lock) F(map_array_ro) F(map_array_wo) F(map_array_small)
		F(sk_storage_map) F(map_event_output) F(map_reuseport_array) F(map_ringbuf) F(map_timer) F(map_kptr)
		if (x->fixup_kfunc_btf_id[0].kfunc) {
			printf("%s\"kfunc_btf_id\":[%d]", first ? "" : ",", x->fixup_kfunc_btf_id[0].insn_idx);
			first = 0;
		}
		printf("},\"insns\":\"");
		hex(prog, len);
		printf("\"}\n");
	}
	return 0;
}
