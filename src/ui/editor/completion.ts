/**
 * Completion for the names the built-in headers define: helpers (with their
 * prototypes), macros, enum constants (XDP_*, BPF_MAP_TYPE_*, IPPROTO_*),
 * typedefs and struct tags; after `->` or `.`, the fields of the struct
 * the variable is declared as (`struct ethhdr *eth` → h_dest, h_source,
 * h_proto), or every header struct's fields when the type is not obvious.
 * The list is computed on the first request, in a chunk of its own (it
 * needs the compiler's front end), so it costs the page's start nothing.
 */
import { monaco } from './monaco';
import { declaredStruct } from './declaredStruct';
import type { HeaderName, HeaderNameKind } from './headerNames';

const K = monaco.languages.CompletionItemKind;
const KIND: Record<HeaderNameKind, monaco.languages.CompletionItemKind> = {
  helper: K.Function,
  macro: K.Constant,
  enum: K.EnumMember,
  typedef: K.TypeParameter,
  struct: K.Struct,
  field: K.Field,
};

let registered = false;

export function registerHeaderCompletion(): void {
  if (registered) return;
  registered = true;
  monaco.languages.registerCompletionItemProvider('c', {
    triggerCharacters: ['.', '>'],
    async provideCompletionItems(model, position) {
      const { headerNames, structFields } = await import('./headerNames');
      const word = model.getWordUntilPosition(position);
      const range = new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn);
      const before = model.getLineContent(position.lineNumber).slice(0, word.startColumn - 1);
      let names: readonly HeaderName[];
      const member = /([A-Za-z_]\w*)\s*(->|\.)\s*$/.exec(before);
      if (member) {
        const tag = declaredStruct(model.getValue(), member[1]!);
        const fields = tag ? structFields(tag) : [];
        if (fields.length) names = fields;
        else {
          const seen = new Set<string>();
          names = headerNames().filter((n) => n.kind === 'field' && !seen.has(n.label) && seen.add(n.label));
        }
      } else if (/[.>]\s*$/.test(before)) {
        return { suggestions: [] }; // `a > b`, `1.5`: nothing to complete
      } else {
        names = headerNames().filter((n) => n.kind !== 'field');
      }
      return {
        suggestions: names.map((n) => ({
          // A plain label: Monaco shows `detail` (the prototype, the field's type) beside it.
          label: n.label,
          kind: KIND[n.kind],
          detail: n.detail,
          documentation: n.documentation,
          insertText: n.label,
          range,
        })),
      };
    },
  });
}
