/**
 * A remark plugin that turns raw HTML nodes into plain text, so `<script>` or `<img onerror>` in a
 * memory is shown exactly as written instead of being dropped (react-markdown's default) or run.
 */
interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

function walk(node: MdNode): void {
  if (node.type === 'html') node.type = 'text';
  for (const child of node.children ?? []) walk(child);
}

export function remarkHtmlAsText() {
  return (tree: MdNode) => walk(tree);
}
