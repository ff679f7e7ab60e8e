/**
 * "Where the type is obvious": the struct tag a variable is declared with
 * in the program's text (`struct iphdr *iph`, `struct xdp_md *ctx`), so
 * completion after `iph->` can offer iphdr's fields. A text search, not a
 * parse: the program being typed rarely compiles.
 */
export function declaredStruct(text: string, name: string): string | null {
  const m = new RegExp(`\\bstruct\\s+(\\w+)\\s*\\*?\\s*\\b${name}\\b\\s*[;=,)\\[]`).exec(text);
  return m ? m[1]! : null;
}
