// The module scripts/vite-system-headers.ts serves: the system headers, bundled from libbpf-dev and linux-libc-dev.
declare module 'virtual:system-headers' {
  /** Every header the bundle holds, by include name. */
  export const names: string[];
  /** The headers in the first chunk (closed under #include). */
  export const commonNames: string[];
  export function loadCommon(): Promise<Record<string, string>>;
  export function loadRest(): Promise<Record<string, string>>;
  export function loadVmlinux(): Promise<string | undefined>;
}
