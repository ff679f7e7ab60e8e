/**
 * The Linux errno values the lab's helpers, kfuncs and maps return (as
 * negatives), from include/uapi/asm-generic/errno-base.h and errno.h: one
 * table, so a helper and a map cannot disagree on a number.
 */
export const EPERM = 1;
export const ENOENT = 2;
export const E2BIG = 7;
export const EBADF = 9;
export const EAGAIN = 11;
export const ENOMEM = 12;
export const EACCES = 13;
export const EFAULT = 14;
export const EEXIST = 17;
export const ENODEV = 19;
export const EINVAL = 22;
export const ENOSPC = 28;
export const ERANGE = 34;
export const EOPNOTSUPP = 95;
export const EAFNOSUPPORT = 97;
