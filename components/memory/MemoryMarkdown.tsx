import ReactMarkdown from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import { remarkHtmlAsText, remarkImagesAsLinks } from './remark-html-as-text';

/**
 * Memory text is untrusted: markdown is rendered by react-markdown with raw HTML kept as text and
 * the result passed through rehype-sanitize (GitHub's schema). No rehype-raw, no innerHTML. Images are
 * links, never fetched; links open with no referrer.
 */
export function MemoryMarkdown({ text, testId = 'memory-markdown' }: { text: string; testId?: string }) {
  return (
    <div className="memory-md" data-testid={testId}>
      <ReactMarkdown remarkPlugins={[remarkGfm, remarkHtmlAsText, remarkImagesAsLinks]}
        rehypePlugins={[rehypeSanitize]}
        skipHtml={false}
        components={{ a: ({ node: _node, ...props }) => <a {...props} rel="noreferrer noopener nofollow" data-testid="memory-link" /> }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}
