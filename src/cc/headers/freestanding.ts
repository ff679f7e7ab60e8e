/**
 * The C library headers a BPF program may include, written for XDP Lab. They
 * sit where clang's resource directory sits in the search order (after -I,
 * before the system headers): stddef.h, stdint.h, stdbool.h, limits.h,
 * stdarg.h as clang's own freestanding headers define them for a 64-bit
 * target, and the few libc headers BPF code reaches for (string.h for
 * memcpy/memset/memcmp, errno.h, endian.h, sys/socket.h which linux/if.h
 * includes for struct sockaddr). BPF programs have no libc: these declare
 * only what compiles to BPF, and clang turns the string.h calls into
 * builtins just as XDP Lab's compiler does.
 */

const stddef_h = `#ifndef __XDP_LAB_STDDEF_H
#define __XDP_LAB_STDDEF_H
typedef unsigned long size_t;
typedef long ptrdiff_t;
typedef int wchar_t;
#define NULL ((void *)0)
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
`;

const stdint_h = `#ifndef __XDP_LAB_STDINT_H
#define __XDP_LAB_STDINT_H
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef signed char int_least8_t;
typedef short int_least16_t;
typedef int int_least32_t;
typedef long int_least64_t;
typedef unsigned char uint_least8_t;
typedef unsigned short uint_least16_t;
typedef unsigned int uint_least32_t;
typedef unsigned long uint_least64_t;
typedef signed char int_fast8_t;
typedef long int_fast16_t;
typedef long int_fast32_t;
typedef long int_fast64_t;
typedef unsigned char uint_fast8_t;
typedef unsigned long uint_fast16_t;
typedef unsigned long uint_fast32_t;
typedef unsigned long uint_fast64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef long intmax_t;
typedef unsigned long uintmax_t;
#define INT8_MIN (-128)
#define INT16_MIN (-32767-1)
#define INT32_MIN (-2147483647-1)
#define INT64_MIN (-9223372036854775807L-1)
#define INT8_MAX 127
#define INT16_MAX 32767
#define INT32_MAX 2147483647
#define INT64_MAX 9223372036854775807L
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615UL
#define INTPTR_MIN INT64_MIN
#define INTPTR_MAX INT64_MAX
#define UINTPTR_MAX UINT64_MAX
#define INTMAX_MIN INT64_MIN
#define INTMAX_MAX INT64_MAX
#define UINTMAX_MAX UINT64_MAX
#define SIZE_MAX UINT64_MAX
#define PTRDIFF_MIN INT64_MIN
#define PTRDIFF_MAX INT64_MAX
#define INT8_C(c) c
#define INT16_C(c) c
#define INT32_C(c) c
#define INT64_C(c) c ## L
#define UINT8_C(c) c
#define UINT16_C(c) c
#define UINT32_C(c) c ## U
#define UINT64_C(c) c ## UL
#define INTMAX_C(c) c ## L
#define UINTMAX_C(c) c ## UL
#endif
`;

const stdbool_h = `#ifndef __XDP_LAB_STDBOOL_H
#define __XDP_LAB_STDBOOL_H
#define bool _Bool
#define true 1
#define false 0
#define __bool_true_false_are_defined 1
#endif
`;

const limits_h = `#ifndef __XDP_LAB_LIMITS_H
#define __XDP_LAB_LIMITS_H
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-32768)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define INT_MIN (-2147483647-1)
#define INT_MAX 2147483647
#define UINT_MAX 4294967295U
#define LONG_MIN (-9223372036854775807L-1)
#define LONG_MAX 9223372036854775807L
#define ULONG_MAX 18446744073709551615UL
#define LLONG_MIN (-9223372036854775807LL-1)
#define LLONG_MAX 9223372036854775807LL
#define ULLONG_MAX 18446744073709551615ULL
#endif
`;

const stdarg_h = `#ifndef __XDP_LAB_STDARG_H
#define __XDP_LAB_STDARG_H
typedef __builtin_va_list va_list;
#define va_start(ap, param) __builtin_va_start(ap, param)
#define va_end(ap) __builtin_va_end(ap)
#define va_arg(ap, type) __builtin_va_arg(ap, type)
#define va_copy(dest, src) __builtin_va_copy(dest, src)
#endif
`;

const string_h = `#ifndef __XDP_LAB_STRING_H
#define __XDP_LAB_STRING_H
#include <stddef.h>
void *memcpy(void *dest, const void *src, size_t n);
void *memmove(void *dest, const void *src, size_t n);
void *memset(void *s, int c, size_t n);
int memcmp(const void *s1, const void *s2, size_t n);
size_t strlen(const char *s);
/* BPF has no libc to link: these are always the compiler's builtins, as clang treats them. */
#define memcpy(d, s, n) __builtin_memcpy(d, s, n)
#define memmove(d, s, n) __builtin_memmove(d, s, n)
#define memset(s, c, n) __builtin_memset(s, c, n)
#define memcmp(a, b, n) __builtin_memcmp(a, b, n)
#endif
`;

/** errno.h: the values are the kernel's (asm-generic/errno-base.h, errno.h), which BPF programs return. */
const errno_h = `#ifndef __XDP_LAB_ERRNO_H
#define __XDP_LAB_ERRNO_H
#include <asm/errno.h>
#endif
`;

const endian_h = `#ifndef __XDP_LAB_ENDIAN_H
#define __XDP_LAB_ENDIAN_H
#define __LITTLE_ENDIAN 1234
#define __BIG_ENDIAN 4321
#define __PDP_ENDIAN 3412
#define __BYTE_ORDER __LITTLE_ENDIAN
#define __FLOAT_WORD_ORDER __BYTE_ORDER
#define LITTLE_ENDIAN __LITTLE_ENDIAN
#define BIG_ENDIAN __BIG_ENDIAN
#define PDP_ENDIAN __PDP_ENDIAN
#define BYTE_ORDER __BYTE_ORDER
#define htobe16(x) __builtin_bswap16(x)
#define htole16(x) (unsigned short)(x)
#define be16toh(x) __builtin_bswap16(x)
#define le16toh(x) (unsigned short)(x)
#define htobe32(x) __builtin_bswap32(x)
#define htole32(x) (unsigned int)(x)
#define be32toh(x) __builtin_bswap32(x)
#define le32toh(x) (unsigned int)(x)
#define htobe64(x) __builtin_bswap64(x)
#define htole64(x) (unsigned long)(x)
#define be64toh(x) __builtin_bswap64(x)
#define le64toh(x) (unsigned long)(x)
#endif
`;

/** sys/socket.h: what the uapi headers take from it (linux/if.h: struct sockaddr) and the address families. */
const sys_socket_h = `#ifndef __XDP_LAB_SYS_SOCKET_H
#define __XDP_LAB_SYS_SOCKET_H
typedef unsigned short sa_family_t;
typedef unsigned int socklen_t;
struct sockaddr {
  sa_family_t sa_family;
  char sa_data[14];
};
#define AF_UNSPEC 0
#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 10
#define AF_PACKET 17
#define AF_XDP 44
#define PF_UNSPEC AF_UNSPEC
#define PF_UNIX AF_UNIX
#define PF_INET AF_INET
#define PF_INET6 AF_INET6
#define PF_PACKET AF_PACKET
#define PF_XDP AF_XDP
#define SOCK_STREAM 1
#define SOCK_DGRAM 2
#define SOCK_RAW 3
#endif
`;

export const FREESTANDING: Readonly<Record<string, string>> = {
  'stddef.h': stddef_h,
  'stdint.h': stdint_h,
  'stdbool.h': stdbool_h,
  'limits.h': limits_h,
  'stdarg.h': stdarg_h,
  'string.h': string_h,
  'errno.h': errno_h,
  'endian.h': endian_h,
  'sys/socket.h': sys_socket_h,
};
