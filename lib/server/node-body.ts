/**
 * Reading a request body off a Node `IncomingMessage`, for the protocol (node-bridge.ts) and the
 * sign-in form (sign-in.ts): capped, and given up on when the client stops sending. Node's own
 * `requestTimeout` (300 s) let a client that sent part of a body and then nothing hold its request
 * open for five minutes, and cut a long upload that was still arriving (a 256 MiB snapshot on a
 * slow link); here a body from which no byte arrives for `idleMs` is a 408, and the connection is
 * closed once that is sent (sendProtocolResponse: `Connection: close`). A slow but steady body is
 * never cut: each byte that arrives starts the wait again, and the server's whole-request limit
 * leaves a body read here alone (`bodyReadWithIdleLimit`).
 */
import type { IncomingMessage } from 'node:http';
import { bodyTooLarge } from './body';
import { ServiceError } from './errors';

export interface NodeBodyLimits {
  /** Refused with a 413 as soon as the body passes this many bytes (nothing more buffered). */
  maxBytes: number;
  /** Refused with a 408 when no byte arrives for this long (ms). */
  idleMs: number;
}

/** Requests whose body `readNodeBody` reads: cut when it stops arriving, not for its length (http-server.ts). */
const bodiesRead = new WeakSet<IncomingMessage>();

/** Whether `req`'s body is being (or was) read here, under the idle limit. */
export function bodyReadWithIdleLimit(req: IncomingMessage): boolean {
  return bodiesRead.has(req);
}

const clientGone = () => new ServiceError('bad_request', 'the client closed the connection before the whole body arrived');

/** The 408 of a body that stopped arriving. */
export function bodyIdle(idleMs: number): ServiceError {
  const wait = idleMs >= 1000 && idleMs % 1000 === 0 ? `${idleMs / 1000} s` : `${idleMs} ms`;
  return new ServiceError('request_timeout', `no byte of the request body arrived for ${wait}: the request was dropped and nothing of it was stored; send it again`);
}

/** Reads a Node request body whole, or rejects with a 413, a 408 or a 400 (client gone) — reading no further. */
export function readNodeBody(req: IncomingMessage, { maxBytes, idleMs }: NodeBodyLimits): Promise<Uint8Array> {
  bodiesRead.add(req);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (error: Error | null) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (error) {
        // Stop reading; the reply goes out with `Connection: close` (sendProtocolResponse).
        req.pause();
        reject(error);
      } else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    };
    const wait = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(bodyIdle(idleMs)), idleMs);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > maxBytes) return finish(bodyTooLarge(maxBytes));
      chunks.push(chunk);
      wait();
    };
    const onEnd = () => finish(null);
    // A client that hangs up mid-body (Node's "aborted") is the client's doing, not an internal error to log.
    const onError = () => finish(clientGone());
    const onClose = () => finish(clientGone());
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
    wait();
  });
}
