/**
 * What __has_attribute / __has_builtin / __has_feature answer: clang-19's
 * answers for -target bpf on the names BPF programs and their headers test.
 * A header that asks takes the path it takes under clang; whether XDP Lab's
 * compiler then accepts the construct is the parser's business, and it
 * reports what it does not support by name.
 */

/** GNU/clang attributes (spelled without underscores). */
export const CLANG_ATTRIBUTES: ReadonlySet<string> = new Set([
  'aligned', 'packed', 'section', 'unused', 'used', 'always_inline', 'noinline', 'weak', 'visibility', 'const',
  'pure', 'noreturn', 'nonnull', 'format', 'deprecated', 'warn_unused_result', 'cold', 'hot', 'flatten',
  'alias', 'cleanup', 'constructor', 'destructor', 'fallthrough', 'mode', 'may_alias', 'transparent_union',
  'vector_size', 'designated_init', 'returns_nonnull', 'malloc', 'nocommon', 'externally_visible', 'gnu_inline',
  'no_instrument_function', 'no_sanitize', 'overloadable', 'preserve_access_index', 'preserve_static_offset',
  'btf_decl_tag', 'btf_type_tag', 'bpf_fastcall', 'address_space', 'counted_by', 'diagnose_if', 'enable_if',
  'error', 'warning', 'annotate', 'uninitialized', 'nodebug', 'noderef', 'unavailable', 'objc_boxable',
]);

/** Builtins clang knows for the BPF target. */
export const CLANG_BUILTINS: ReadonlySet<string> = new Set([
  '__builtin_memcpy', '__builtin_memset', '__builtin_memmove', '__builtin_memcmp', '__builtin_bswap16',
  '__builtin_bswap32', '__builtin_bswap64', '__builtin_constant_p', '__builtin_expect', '__builtin_offsetof',
  '__builtin_types_compatible_p', '__builtin_choose_expr', '__builtin_unreachable', '__builtin_trap',
  '__builtin_clz', '__builtin_clzll', '__builtin_ctz', '__builtin_ctzll', '__builtin_popcount', '__builtin_ffs',
  '__builtin_preserve_access_index', '__builtin_preserve_field_info', '__builtin_preserve_type_info',
  '__builtin_preserve_enum_value', '__builtin_btf_type_id', '__builtin_va_start', '__builtin_va_end',
  '__builtin_va_arg', '__builtin_va_copy', '__builtin_strlen', '__builtin_assume', '__builtin_assume_aligned',
  '__builtin_add_overflow', '__builtin_sub_overflow', '__builtin_mul_overflow', '__builtin_abs', '__builtin_dump_struct',
  '__sync_fetch_and_add', '__sync_fetch_and_sub', '__sync_fetch_and_or', '__sync_fetch_and_and',
  '__sync_fetch_and_xor', '__sync_val_compare_and_swap', '__sync_lock_test_and_set', '__atomic_fetch_add',
  '__atomic_load_n', '__atomic_store_n', '__atomic_exchange_n', '__atomic_compare_exchange_n',
]);

/** __has_feature / __has_extension names clang-19 answers 1 for, in C. */
export const CLANG_FEATURES: ReadonlySet<string> = new Set([
  'c_alignas', 'c_alignof', 'c_atomic', 'c_generic_selections', 'c_static_assert', 'c_thread_local',
  'attribute_deprecated_with_message', 'attribute_unavailable_with_message', 'enumerator_attributes',
  'attribute_overloadable', 'tls',
]);
