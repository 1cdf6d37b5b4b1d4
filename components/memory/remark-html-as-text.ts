/**
 * Remark plugins for untrusted memory text.
 * - `remarkHtmlAsText`: raw HTML nodes become plain text, so `<script>` or `<img onerror>` in a memory
 *   is shown exactly as written instead of being dropped (react-markdown's default) or run.
 * - `remarkImagesAsLinks`: a markdown image becomes a link to it, never loaded: viewing a memory must
 *   not tell a remote host that it was read (a tracking pixel), and the page's CSP forbids it anyway.
 */
interface MdNode {
  type: string;
  value?: string;
  alt?: string | null;
  url?: string;
  title?: string | null;
  children?: MdNode[];
}

function walk(node: MdNode, visit: (node: MdNode) => void): void {
  visit(node);
  for (const child of node.children ?? []) walk(child, visit);
}

export function remarkHtmlAsText() {
  return (tree: MdNode) => walk(tree, (node) => {
    if (node.type === 'html') node.type = 'text';
  });
}

/** `![alt](url)` → a link reading `image: alt` (or the URL); `![alt][ref]` → a link reference alike. */
export function remarkImagesAsLinks() {
  return (tree: MdNode) => walk(tree, (node) => {
    if (node.type !== 'image' && node.type !== 'imageReference') return;
    const label = node.alt && node.alt.trim().length > 0 ? node.alt : (node.url ?? 'image');
    node.type = node.type === 'image' ? 'link' : 'linkReference';
    node.children = [{ type: 'text', value: `image: ${label}` }];
    delete node.alt;
  });
}
