/**
 * A real `redis-server` (Debian's package) for the tests: started on a free loopback port with no persistence,
 * stopped after. Install it with `apt-get install -y redis-server` (`.ci/run` does when it is missing).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createConnection } from 'node:net';

export interface RedisServer {
  url: string;
  port: number;
  /** Kills the server (SIGKILL): what a crash looks like to clients. */
  kill(): Promise<void>;
  /** Stops it answering without closing its connections (SIGSTOP): what a hung server looks like to clients. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT). */
  resume(): void;
  /** Starts it again on the same port (empty: no persistence). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once the port answers PING with PONG. */
async function waitForPong(port: number, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().includes('PONG'));
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], { stdio: 'ignore' });
    child.once('error', () => {});
    await waitForPong(port);
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  await start();
  const signal = (name: NodeJS.Signals) => () => void child?.kill(name);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    restart: start,
    pause: signal('SIGSTOP'),
    resume: signal('SIGCONT'),
    stop: async () => {
      child?.kill('SIGCONT'); // a paused server would not die of SIGKILL any later, but cannot exit while stopped
      await kill();
    },
  };
}
