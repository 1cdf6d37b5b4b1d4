import ReactMarkdown from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import { remarkHtmlAsText } from './remark-html-as-text';

/**
 * Memory text is untrusted: markdown is rendered by react-markdown with raw HTML kept as text and
 * the result passed through rehype-sanitize (GitHub's schema). No rehype-raw, no innerHTML.
 */
export function MemoryMarkdown({ text, testId = 'memory-markdown' }: { text: string; testId?: string }) {
  return (
    <div className="memory-md" data-testid={testId}>
      <ReactMarkdown remarkPlugins={[remarkGfm, remarkHtmlAsText]} rehypePlugins={[rehypeSanitize]} skipHtml={false}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
