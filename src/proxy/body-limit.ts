import { Transform, type Readable } from 'node:stream';

/** A request body passed on as a stream, cut off once it is larger than the limit (`exceeded` then says so). */
export interface LimitedBody {
  stream: Readable;
  readonly exceeded: boolean;
}

/**
 * Passes `body` on while it stays within `limitBytes`. A body sent without a Content-Length (chunked) can only be
 * measured as it goes: past the limit the stream fails, which aborts the upstream request, and the caller answers 413.
 */
export function limitBody(body: Readable, limitBytes: number): LimitedBody {
  let seen = 0;
  let exceeded = false;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen <= limitBytes) return callback(null, chunk);
      exceeded = true;
      // The rest is read and dropped, so the client can finish sending and then read the 413.
      body.unpipe(stream);
      body.resume();
      callback(new Error(`the request body is larger than ${limitBytes} bytes`));
    },
  });
  body.on('error', (error) => stream.destroy(error));
  body.pipe(stream);
  return {
    stream,
    get exceeded() {
      return exceeded;
    },
  };
}
