import http from 'node:http';
import type { Duplex } from 'node:stream';

/** A parse error of Node's HTTP parser (`HPE_*`), or a request timeout. */
type ClientError = Error & { code?: string; reason?: string };

/** Status and words for a request Node could not parse: what was wrong, never a blank page. */
export function clientErrorReply(err: ClientError): { status: number; message: string } {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, message: `the request's headers (its URL included) exceed ${http.maxHeaderSize} bytes: send a shorter URL or fewer headers` };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'the request did not arrive in time' };
  if (err.code === 'HPE_INVALID_EOF_STATE') return { status: 400, message: 'the client finished sending before the whole request arrived (a body shorter than its Content-Length?)' };
  const reason = typeof err.reason === 'string' && err.reason !== '' ? err.reason : err.code ?? 'unreadable request';
  return { status: 400, message: `malformed HTTP request: ${reason.slice(0, 200)}` };
}

/**
 * The server's `clientError` handler: Node answers a request it cannot parse (headers over its
 * limit, a bad Content-Length, garbage) with a bare status line; this says in JSON what was wrong,
 * as every other refusal does. A socket already answering, or gone, is only closed.
 */
export function answerClientError(err: ClientError, socket: Duplex): void {
  const busy = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent ?? false;
  if (err.code === 'ECONNRESET' || !socket.writable || busy) {
    socket.destroy();
    return;
  }
  const { status, message } = clientErrorReply(err);
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`
    + `x-content-type-options: nosniff\r\nconnection: close\r\n\r\n${body}`,
  );
}
