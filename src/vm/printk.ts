/**
 * bpf_trace_printk's and bpf_trace_vprintk's formatting
 * (kernel/trace/bpf_trace.c with bpf_bprintf_prepare's rules): a
 * conversion for each argument given at most (three for bpf_trace_printk), the conversions
 * %d %i %u %x %X %c %s %p and their l/ll forms, %%; anything else is -EINVAL.
 * Returns the text (without the trace_pipe prefix) or an errno.
 */
export type PrintkArg = { value: bigint; str?: () => string | undefined };

export function formatPrintk(fmt: string, args: readonly PrintkArg[]): string | { errno: number } {
  let out = '';
  let used = 0;
  for (let i = 0; i < fmt.length; i++) {
    const ch = fmt[i]!;
    if (ch !== '%') {
      out += ch;
      continue;
    }
    if (fmt[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    const m = /^([-+ 0#]*)(\d*)(?:\.(\d+))?(ll|l|h|hh|z)?([diuxXcsp])/.exec(fmt.slice(i + 1));
    if (!m || used >= args.length) return { errno: 22 };
    i += m[0].length;
    const a = args[used++]!;
    const len = m[4] ?? '';
    const wide = len === 'll' || len === 'l' || len === 'z';
    const conv = m[5]!;
    let text: string;
    const v = a.value;
    switch (conv) {
      case 'd':
      case 'i':
        text = (wide ? BigInt.asIntN(64, v) : BigInt.asIntN(32, v)).toString();
        break;
      case 'u':
        text = (wide ? BigInt.asUintN(64, v) : BigInt.asUintN(32, v)).toString();
        break;
      case 'x':
      case 'X':
        text = (wide ? BigInt.asUintN(64, v) : BigInt.asUintN(32, v)).toString(16);
        if (conv === 'X') text = text.toUpperCase();
        if (m[1]!.includes('#') && v !== 0n) text = '0x' + text;
        break;
      case 'c':
        text = String.fromCharCode(Number(v & 0xffn));
        break;
      case 'p':
        text = '0x' + BigInt.asUintN(64, v).toString(16);
        break;
      default: {
        const s = a.str?.();
        text = s ?? '(efault)';
        break;
      }
    }
    const width = Number(m[2] || 0);
    if (text.length < width) text = m[1]!.includes('-') ? text.padEnd(width) : text.padStart(width, m[1]!.includes('0') && conv !== 's' ? '0' : ' ');
    out += text;
  }
  return out;
}
