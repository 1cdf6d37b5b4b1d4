/**
 * `LINEAGE_REQUEST_TIMING_LOG=<file>`: one JSON line per request — method, URL, status and the
 * server's time from the request's arrival to the last byte of its response handed to the socket.
 * What the ui-scale bench reads as each data request's server time. A `Server-Timing` header could
 * not carry it: headers leave before a streamed page has finished rendering, and browsers ignore
 * the header as a trailer. Off unless set; appended synchronously so a reader sees a request's line
 * as soon as its response is complete.
 */
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RequestTiming {
  /** ISO time the request arrived. */
  at: string;
  method: string;
  url: string;
  status: number;
  /** Arrival → response finished (or connection closed), in ms. */
  ms: number;
  /** Present when the connection closed before the response was finished (the client left). */
  aborted?: true;
}

export type RequestTimer = (req: IncomingMessage, res: ServerResponse) => void;

/** A timer appending to `file`, or null when no file is configured. */
export function requestTimingLog(file: string | undefined): RequestTimer | null {
  if (!file) return null;
  return (req, res) => {
    const started = performance.now();
    const at = new Date().toISOString();
    let written = false;
    const write = (aborted: boolean) => {
      if (written) return;
      written = true;
      const line: RequestTiming = { at, method: req.method ?? '', url: req.url ?? '', status: res.statusCode, ms: Math.round((performance.now() - started) * 100) / 100 };
      if (aborted) line.aborted = true;
      try {
        fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
      } catch {
        // A timing log that cannot be written must not break serving.
      }
    };
    res.once('finish', () => write(false));
    // A client that leaves before the last byte (a page given up on) still gets its line.
    res.once('close', () => write(!res.writableFinished));
  };
}

/** Reads a timing log (lines after `fromByte`, default all). */
export function readRequestTimings(file: string, fromByte = 0): RequestTiming[] {
  let text: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(Math.max(0, size - fromByte));
      fs.readSync(fd, buf, 0, buf.length, fromByte);
      text = buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
  return text.split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as RequestTiming);
}
