/* Packets: any. Preprocessor coverage: function-like macros with # and
 * ##, variadic macros, #if/#elif/#else with defined(), nested macros.
 * Returns XDP_PASS for frames of at least MIN_LEN bytes, DROP otherwise. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define CONCAT(a, b) a##b
#define STR(x) #x
#define MIN_LEN 42
#define VERDICT(ok, ...) ((ok) ? CONCAT(XDP_, PASS) : CONCAT(XDP_, DROP))
#define SUM(...) sum_impl(__VA_ARGS__)
#define sum_impl(a, b, c) ((a) + (b) + (c))

#if defined(MIN_LEN) && MIN_LEN > 100
#error "MIN_LEN too big"
#elif !defined(STR)
#error "no STR"
#else
#define CHECK_LEN 1
#endif

#ifndef CHECK_LEN
#error "CHECK_LEN missing"
#endif

_Static_assert(sizeof(STR(abc)) == 4, "stringize");

SEC("xdp")
int xdp_macros(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	long len = data_end - data;

	return VERDICT(len >= SUM(MIN_LEN - 2, 1, 1), unused, args);
}
char _license[] SEC("license") = "GPL";
